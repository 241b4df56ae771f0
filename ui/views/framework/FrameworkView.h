// The Framework view: which framework, version, collator and options build the batch (and from which
// spec or config file), what its dataset preparation did to the rows (read, kept, dropped, its
// warnings), the options form generated from the registry, and the prepared row of the selection.
#pragma once
#include <QWidget>

class QLabel;
class QPainter;
class QScrollArea;

namespace maskscope {

class FrameworkOptionsForm;
class PreparedRowTable;
class Session;

class FrameworkView : public QWidget {
  Q_OBJECT
public:
  explicit FrameworkView(Session* session, QWidget* parent = nullptr);

  FrameworkOptionsForm* optionsForm() const { return form_; }
  PreparedRowTable* preparedTable() const { return prepared_; }
  QString summaryText() const;
  void refresh();

private:
  Session* session_;
  QLabel* summary_ = nullptr;
  FrameworkOptionsForm* form_ = nullptr;
  QScrollArea* formScroll_ = nullptr; // the form, as wide as its labels and fields need
  PreparedRowTable* prepared_ = nullptr;
};

// This view's row in the view registry (ui/shell/ViewRegistry.h), defined in FrameworkViewSpec.cpp.
struct ViewSpec;
ViewSpec frameworkViewSpec();

} // namespace maskscope
