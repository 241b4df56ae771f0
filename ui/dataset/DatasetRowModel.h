// The dataset browser's list as a model of the rows the filters leave: one int per shown row, each
// title read from the session only when the list paints it, so a 5 GB dataset's list costs 4 bytes
// a row instead of a widget item and a title string.
#pragma once
#include <QAbstractListModel>
#include <vector>

namespace maskscope {

class Session;

class DatasetRowModel : public QAbstractListModel {
  Q_OBJECT
public:
  explicit DatasetRowModel(Session* session, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  // DisplayRole: the session's title of the row; ToolTipRole: that title with the first message whole;
  // Qt::UserRole: the session row it shows.
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override; // the column's title

  // The session rows to show, ascending; resets the model.
  void setRows(std::vector<int> rows);
  const std::vector<int>& rows() const { return rows_; }
  int sessionRow(int listRow) const; // -1 outside the list
  int listRow(int sessionRow) const; // -1 when the filters hide it

private:
  Session* session_;
  std::vector<int> rows_;
};

} // namespace maskscope
