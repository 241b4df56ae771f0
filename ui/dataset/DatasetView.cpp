// Layout of the dataset browser (left dock).
#include "ui/dataset/DatasetView.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QSpinBox>
#include <QStyle>
#include <QTreeView>
#include <QVBoxLayout>

namespace maskscope {

DatasetView::DatasetView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText(tr("Search conversations"));
  filter_->setClearButtonEnabled(true);
  auto* filters = new QHBoxLayout;
  minMessages_ = new QSpinBox(this);
  minMessages_->setRange(0, 1000);
  minMessages_->setPrefix(tr("msgs \u2265 "));
  minMessages_->setToolTip(tr("Only rows with at least this many messages (role count)"));
  minTokens_ = new QSpinBox(this);
  minTokens_->setRange(0, 1000000);
  minTokens_->setSingleStep(16);
  minTokens_->setPrefix(tr("tokens \u2265 "));
  minTokens_->setToolTip(tr("Only rows at least this long once tokenized"));
  // Each box as narrow as its prefix and a few digits (not the width of its largest value): the panel's
  // least width then fits the dock's, which never scrolls sideways and hides the list's header edge.
  for (QSpinBox* box : {minMessages_, minTokens_}) {
    box->setMinimumWidth(box->fontMetrics().horizontalAdvance(box->prefix() + QStringLiteral("000")) +
                         box->style()->pixelMetric(QStyle::PM_ScrollBarExtent) + 16);
    filters->addWidget(box);
  }
  findingFilter_ = new QComboBox(this);
  findingFilter_->addItem(tr("all rows"), QString());
  findingFilter_->addItem(tr("rows with lint findings"), QStringLiteral("*"));
  findingFilter_->setToolTip(tr("Only rows the last lint run reported (any rule, or one rule); lint the whole "
                                "dataset to filter all of it"));
  // A list with a header: its one column is as wide as the list until the user drags the header's edge
  // (a title the column cuts is then read by scrolling sideways, or whole in the row's tooltip).
  list_ = new QTreeView(this);
  list_->setRootIsDecorated(false);
  list_->setUniformRowHeights(true);
  list_->setItemsExpandable(false);
  list_->setAllColumnsShowFocus(true);
  list_->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
  list_->setTextElideMode(Qt::ElideRight);
  list_->header()->setStretchLastSection(false);
  list_->header()->setSectionResizeMode(QHeaderView::Interactive);
  list_->header()->setToolTip(
      tr("Drag the header's right edge to widen the column; each row's tooltip shows it whole"));
  list_->viewport()->installEventFilter(this);
  connect(list_->header(), &QHeaderView::sectionCountChanged, this, &DatasetView::fitColumn);  // a model set
  connect(list_->header(), &QHeaderView::sectionResized, this, [this] { userSized_ = true; }); // by the user
  layout->addWidget(filter_);
  layout->addLayout(filters);
  layout->addWidget(findingFilter_);
  layout->addWidget(list_);
}

// The column fills the list's width, and follows it, until the user sizes it by the header.
bool DatasetView::eventFilter(QObject* watched, QEvent* event) {
  if (watched == list_->viewport() && event->type() == QEvent::Resize) fitColumn();
  return QWidget::eventFilter(watched, event);
}

void DatasetView::fitColumn() {
  QHeaderView* h = list_->header();
  if (userSized_ || h->count() == 0) return;
  const QSignalBlocker block(h); // not the user's
  h->resizeSection(0, list_->viewport()->width());
}

} // namespace maskscope
