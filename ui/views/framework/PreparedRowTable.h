// One prepared row of a framework (the rows after its dataset preparation: `collate --stage
// prepared`) as a table: a row per position, a column per framework column in its order, token ids
// with their text when a tokenizer is known; lengths and scalars (seq_lengths, ...) above the table.
// Positions whose labels are graded are bold.
#pragma once
#include <QWidget>

class QLabel;
class QTableWidget;

namespace maskscope {

class Session;

class PreparedRowTable : public QWidget {
  Q_OBJECT
public:
  explicit PreparedRowTable(Session* session, QWidget* parent = nullptr);

  QTableWidget* table() const { return table_; }
  QString headerText() const;
  // The columns shown in the table, in the framework's order.
  QStringList columnNames() const;
  void refresh();

private:
  Session* session_;
  QLabel* header_ = nullptr;
  QTableWidget* table_ = nullptr;
};

} // namespace maskscope
