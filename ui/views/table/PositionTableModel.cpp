// Cells of the position table, formatted on demand from core's rows (PositionTableModel.h).
#include "ui/views/table/PositionTableModel.h"
#include "ui/widgets/Palette.h"

#include <QBrush>
#include <QFont>

namespace maskscope {

void PositionTableModel::setRows(const std::vector<PositionTableRow>* rows) {
  beginResetModel();
  rows_ = rows;
  endResetModel();
}

int PositionTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !rows_ ? 0 : int(rows_->size());
}

int PositionTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumns; }

QString PositionTableModel::text(const PositionTableRow& r, int row, int column) const {
  switch (column) {
  case kRow:
    return QString::number(row + 1);
  case kPosition:
    return QString::number(r.position);
  case kToken:
    return QString::fromStdString(r.token);
  case kId:
    return QString::number(r.id);
  case kLabel:
    return r.graded() ? QStringLiteral("%1 \u2713").arg(r.label) : QString::number(r.label);
  case kAttention:
    return QString::number(r.attention);
  case kPositionId:
    return QString::number(r.positionId);
  case kRole: // the tool's name with its kind, as docs/cli.md (Tool calls) shows it
    return r.tool.empty()
               ? QString::fromStdString(r.role)
               : QStringLiteral("%1: %2").arg(QString::fromStdString(r.role), QString::fromStdString(r.tool));
  default:
    return {};
  }
}

// Graded rows: bold, tinted with the palette's graded blue and marked in the label cell; ignored
// rows keep the base colours, so the difference reads without colour too.
QVariant PositionTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !rows_ || index.row() >= int(rows_->size()) || index.column() >= kColumns) return {};
  const PositionTableRow& r = (*rows_)[size_t(index.row())];
  switch (role) {
  case Qt::DisplayRole:
  case Qt::EditRole:
    return text(r, index.row(), index.column());
  case Qt::TextAlignmentRole:
    return index.column() == kToken || index.column() == kRole ? QVariant()
                                                               : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
  case Qt::FontRole: {
    if (!r.graded()) return {};
    QFont f;
    f.setBold(true);
    return f;
  }
  case Qt::BackgroundRole: {
    if (!r.graded()) return {};
    QColor tint = palette::graded();
    tint.setAlpha(48);
    return QBrush(tint);
  }
  case Qt::ForegroundRole:
    return r.padding ? QVariant(QBrush(palette::padding())) : QVariant();
  default:
    return {};
  }
}

QVariant PositionTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  static const char* names[] = {"row", "position", "token", "id", "label", "attention", "position id", "role"};
  return section >= 0 && section < kColumns ? tr(names[section]) : QVariant();
}

} // namespace maskscope
