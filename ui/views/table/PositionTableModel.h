// The position table's rows as a Qt item model: cells are formatted when the view asks for them
// (only the visible ones), so a 128k-position row costs its core rows, not a million table items.
// Graded rows are bold and tinted, padding greyed, numbers right-aligned.
#pragma once
#include "core/table/PositionTable.h"

#include <QAbstractTableModel>
#include <vector>

namespace maskscope {

class PositionTableModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { kRow, kPosition, kToken, kId, kLabel, kAttention, kPositionId, kRole, kColumns };
  using QAbstractTableModel::QAbstractTableModel;

  void setRows(const std::vector<PositionTableRow>* rows); // not owned; nullptr = empty
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  QString text(const PositionTableRow& r, int row, int column) const;
  const std::vector<PositionTableRow>* rows_ = nullptr;
};

} // namespace maskscope
