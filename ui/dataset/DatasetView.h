// The dataset browser's widgets: search box, message-count and token-length filters, the lint
// filter (any finding, or one rule) and the row list (each row with its file line; the user widens its
// column by the header, the list then scrolls sideways; the whole title is in each row's tooltip).
// DatasetController (beside it) gives the list its model (DatasetRowModel) and applies the filters.
#pragma once
#include <QWidget>

class QComboBox;
class QLineEdit;
class QTreeView;
class QSpinBox;

namespace maskscope {

class DatasetView : public QWidget {
  Q_OBJECT
public:
  explicit DatasetView(QWidget* parent = nullptr);

  QLineEdit* searchBox() const { return filter_; }
  QSpinBox* minMessagesBox() const { return minMessages_; }
  QSpinBox* minTokensBox() const { return minTokens_; }
  QComboBox* findingFilterBox() const { return findingFilter_; }
  QTreeView* list() const { return list_; } // one column, its width the user's (header)

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  void fitColumn();
  bool userSized_ = false; // the header's edge was dragged: the column keeps the user's width
  QLineEdit* filter_ = nullptr;
  QSpinBox* minMessages_ = nullptr;
  QSpinBox* minTokens_ = nullptr;
  QComboBox* findingFilter_ = nullptr;
  QTreeView* list_ = nullptr;
};

// This view's row in the view registry (ui/shell/ViewRegistry.h), defined in DatasetViewSpec.cpp.
struct ViewSpec;
ViewSpec datasetViewSpec();

} // namespace maskscope
