// The article's per-position table as a view: position, token (whitespace made visible), id, label
// or -100, attention bit, position id and role of the selected row, built by core/table's
// buildPositionTable. Filters hide the system turn, whitespace tokens and padding; graded rows stand out;
// Ctrl+C copies the selection (TSV as text, Markdown alongside); Export writes Markdown, CSV or HTML.
#pragma once
#include "core/table/PositionTable.h"

#include <QString>
#include <QWidget>
#include <vector>

class QCheckBox;
class QLabel;
class QMimeData;
class QTableView;

namespace maskscope {

class PositionTableModel;
class Session;

class PositionTableView : public QWidget {
  Q_OBJECT
public:
  explicit PositionTableView(Session* session, QWidget* parent = nullptr);

  QCheckBox* hideSystemBox() const { return hideSystem_; }
  QCheckBox* hideWhitespaceBox() const { return hideWhitespace_; }
  QCheckBox* hidePaddingBox() const { return hidePadding_; }
  // Checks the boxes of f (`snapshot --view table --hide ...` sets the filters this way).
  void setFilter(const PositionTableFilter& f);
  QTableView* table() const { return table_; }
  PositionTableFilter filter() const;
  // The rows on screen, as core built them.
  const std::vector<PositionTableRow>& rows() const { return rows_; }
  QString summaryText() const;
  QString gradedText() const; // "Graded text (...): Blue.<|im_end|>": the row's graded targets decoded
  // The selected rows (all rows when none is selected): text/plain as TSV, text/markdown as Markdown.
  QMimeData* selectionMimeData() const;
  void copySelection() const;
  // Writes the shown rows; the format follows the extension (.md, .csv, .html); false + error otherwise.
  bool exportTo(const QString& path, QString* error = nullptr) const;

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  void changeEvent(QEvent* event) override;

private:
  void rebuild();
  void followSelection();
  void exportWithDialog();
  std::vector<PositionTableRow> selectedRows() const;

  Session* session_;
  QCheckBox* hideSystem_ = nullptr;
  QCheckBox* hideWhitespace_ = nullptr;
  QCheckBox* hidePadding_ = nullptr;
  QLabel* summary_ = nullptr;
  QLabel* gradedText_ = nullptr;
  QString gradedFull_;
  void fitTableToLines();
  void fitGradedText(); // the label shows gradedFull_ in two lines at most (the tooltip has it whole) // the table
                        // shows three rows of its type at least, under its header
  QTableView* table_ = nullptr;
  PositionTableModel* model_ = nullptr;
  std::vector<PositionTableRow> rows_;
  bool syncing_ = false;
};

// This view's row in the view registry (ui/shell/ViewRegistry.h), defined in PositionTableViewSpec.cpp.
struct ViewSpec;
ViewSpec positionTableViewSpec();

} // namespace maskscope
