// The shown rows of the dataset browser; titles come from Session::rowTitle when painted.
#include "ui/dataset/DatasetRowModel.h"
#include "ui/shell/Session.h"

#include <algorithm>

namespace maskscope {

DatasetRowModel::DatasetRowModel(Session* session, QObject* parent) : QAbstractListModel(parent), session_(session) {}

int DatasetRowModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }

QVariant DatasetRowModel::data(const QModelIndex& index, int role) const {
  const int r = sessionRow(index.row());
  if (r < 0) return {};
  if (role == Qt::DisplayRole) return session_->rowTitle(r);
  if (role == Qt::ToolTipRole) return session_->rowToolTip(r); // the list's column cuts a long title
  if (role == Qt::UserRole) return r;
  return {};
}

QVariant DatasetRowModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (section == 0 && orientation == Qt::Horizontal && role == Qt::DisplayRole)
    return tr("Conversation (file line \u00b7 first message)");
  return QAbstractListModel::headerData(section, orientation, role);
}

void DatasetRowModel::setRows(std::vector<int> rows) {
  if (rows == rows_) return; // keeps the list's current row and scroll position
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
}

int DatasetRowModel::sessionRow(int listRow) const {
  return listRow >= 0 && size_t(listRow) < rows_.size() ? rows_[size_t(listRow)] : -1;
}

int DatasetRowModel::listRow(int sessionRow) const {
  auto at = std::lower_bound(rows_.begin(), rows_.end(), sessionRow);
  return at != rows_.end() && *at == sessionRow ? int(at - rows_.begin()) : -1;
}

} // namespace maskscope
