// Layout of the dataset browser (left dock).
#include "ui/dataset/DatasetView.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QListView>
#include <QSpinBox>
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
  filters->addWidget(minMessages_);
  filters->addWidget(minTokens_);
  findingFilter_ = new QComboBox(this);
  findingFilter_->addItem(tr("all rows"), QString());
  findingFilter_->addItem(tr("rows with lint findings"), QStringLiteral("*"));
  findingFilter_->setToolTip(tr("Only rows the last lint run reported (any rule, or one rule); lint the whole "
                                "dataset to filter all of it"));
  list_ = new QListView(this);
  list_->setUniformItemSizes(true);
  layout->addWidget(filter_);
  layout->addLayout(filters);
  layout->addWidget(findingFilter_);
  layout->addWidget(list_);
}

} // namespace maskscope
