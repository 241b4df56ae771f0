// Main window layout and wiring between the session and the views.
#include "ui/MainWindow.h"
#include "core/collate/CollatorSpec.h"
#include "ui/AttentionGridView.h"
#include "ui/Palette.h"
#include "ui/Session.h"
#include "ui/TokenStripView.h"

#include <QComboBox>
#include <QDockWidget>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QToolBar>
#include <QVBoxLayout>

namespace maskscope {

namespace {

QWidget* legendItem(const QColor& colour, const QString& text, QWidget* parent) {
  auto* w = new QWidget(parent);
  auto* l = new QHBoxLayout(w);
  l->setContentsMargins(0, 0, 8, 0);
  auto* swatch = new QLabel(w);
  swatch->setFixedSize(14, 14);
  swatch->setStyleSheet(QStringLiteral("background:%1;border:1px solid #666;").arg(colour.name()));
  l->addWidget(swatch);
  l->addWidget(new QLabel(text, w));
  return w;
}

QString conversationTitle(const Conversation& c) {
  QString first;
  for (const auto& m : c.messages)
    if (m.role == "user") { first = QString::fromStdString(m.content); break; }
  if (first.isEmpty() && c.plainText) first = QString::fromStdString(c.plainPrompt);
  first = first.simplified();
  if (first.size() > 60) first = first.left(57) + QStringLiteral("...");
  return QStringLiteral("%1  %2  (%3 msgs)").arg(c.rowIndex).arg(first).arg(c.messages.size());
}

} // namespace

MainWindow::MainWindow(Session* session, QWidget* parent) : QMainWindow(parent), session_(session) {
  setWindowTitle(tr("maskscope"));
  resize(1280, 820);

  // Toolbar: collator preset and batch size.
  auto* tb = addToolBar(tr("Collator"));
  tb->setObjectName(QStringLiteral("collatorToolbar"));
  tb->addWidget(new QLabel(tr(" Collator "), tb));
  collatorBox_ = new QComboBox(tb);
  for (const auto& p : collatorPresets()) {
    collatorBox_->addItem(QString::fromStdString(p.name) + (p.buggy ? QStringLiteral("  (bug)") : QString()),
                          QString::fromStdString(p.name));
    collatorBox_->setItemData(collatorBox_->count() - 1, QString::fromStdString(p.mirrors), Qt::ToolTipRole);
  }
  tb->addWidget(collatorBox_);
  tb->addWidget(new QLabel(tr("  Batch rows "), tb));
  batchSize_ = new QSpinBox(tb);
  batchSize_->setRange(1, 64);
  batchSize_->setValue(session_->batchSize());
  tb->addWidget(batchSize_);

  // Left: conversations.
  auto* dock = new QDockWidget(tr("Conversations"), this);
  dock->setObjectName(QStringLiteral("conversationsDock"));
  auto* left = new QWidget(dock);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(4, 4, 4, 4);
  filter_ = new QLineEdit(left);
  filter_->setPlaceholderText(tr("Search conversations"));
  filter_->setClearButtonEnabled(true);
  list_ = new QListWidget(left);
  leftLayout->addWidget(filter_);
  leftLayout->addWidget(list_);
  dock->setWidget(left);
  addDockWidget(Qt::LeftDockWidgetArea, dock);

  // Centre: summary, token strip, grid with legend.
  auto* centre = new QWidget(this);
  auto* cl = new QVBoxLayout(centre);
  summary_ = new QLabel(centre);
  summary_->setWordWrap(true);
  summary_->setTextFormat(Qt::RichText);
  cl->addWidget(summary_);
  auto* split = new QSplitter(Qt::Vertical, centre);
  strip_ = new TokenStripView(session_, split);
  auto* gridPane = new QWidget(split);
  auto* gl = new QVBoxLayout(gridPane);
  gl->setContentsMargins(0, 0, 0, 0);
  auto* legend = new QWidget(gridPane);
  auto* ll = new QHBoxLayout(legend);
  ll->setContentsMargins(0, 0, 0, 0);
  ll->addWidget(new QLabel(tr("<b>Attention grid</b> (query rows x key columns):"), legend));
  ll->addWidget(legendItem(palette::cellColour(CellState::Allowed), tr("allowed"), legend));
  ll->addWidget(legendItem(palette::cellColour(CellState::Future), tr("future (causal)"), legend));
  ll->addWidget(legendItem(palette::cellColour(CellState::Padding), tr("padding"), legend));
  ll->addWidget(legendItem(palette::cellColour(CellState::OtherExample), tr("other example"), legend));
  ll->addStretch();
  gl->addWidget(legend);
  grid_ = new AttentionGridView(session_, gridPane);
  gl->addWidget(grid_, 1);
  split->addWidget(strip_);
  split->addWidget(gridPane);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  cl->addWidget(split, 1);
  setCentralWidget(centre);

  connect(session_, &Session::datasetChanged, this, &MainWindow::fillConversationList);
  connect(session_, &Session::batchChanged, this, &MainWindow::updateSummary);
  connect(session_, &Session::errorOccurred, this, [this](const QString& m) { statusBar()->showMessage(m, 15000); });
  connect(list_, &QListWidget::currentRowChanged, this, [this](int item) {
    if (item < 0) return;
    session_->selectRow(list_->item(item)->data(Qt::UserRole).toInt());
  });
  connect(filter_, &QLineEdit::textChanged, this, &MainWindow::applyFilter);
  connect(collatorBox_, &QComboBox::currentIndexChanged, this,
          [this](int i) { session_->setCollator(collatorBox_->itemData(i).toString()); });
  connect(batchSize_, &QSpinBox::valueChanged, session_, &Session::setBatchSize);
  connect(strip_, &TokenStripView::positionSelected, grid_, &AttentionGridView::setHighlightedQuery);

  fillConversationList();
  updateSummary();
}

void MainWindow::fillConversationList() {
  QSignalBlocker block(list_);
  list_->clear();
  for (int r = 0; r < session_->rowCount(); ++r) {
    auto* item = new QListWidgetItem(conversationTitle(session_->conversation(r)), list_);
    item->setData(Qt::UserRole, r);
  }
  if (session_->selectedRow() >= 0) list_->setCurrentRow(session_->selectedRow());
  if (!session_->rowErrors().isEmpty())
    statusBar()->showMessage(tr("%1 rows skipped: %2").arg(session_->rowErrors().size()).arg(session_->rowErrors().first()));
}

void MainWindow::applyFilter(const QString& text) {
  for (int i = 0; i < list_->count(); ++i) {
    QListWidgetItem* item = list_->item(i);
    const Conversation& c = session_->conversation(item->data(Qt::UserRole).toInt());
    bool match = text.isEmpty();
    for (const auto& m : c.messages)
      match = match || QString::fromStdString(m.content).contains(text, Qt::CaseInsensitive);
    item->setHidden(!match);
  }
}

void MainWindow::updateSummary() {
  if (!session_->hasBatch()) {
    summary_->setText(tr("No batch."));
    return;
  }
  const Batch& b = session_->batch();
  const int r = session_->batchRow();
  int64_t real = 0, graded = 0, pads = 0, gradedPads = 0, attendedPads = 0;
  for (int64_t t = 0; t < b.length(); ++t) {
    const bool pad = size_t(r) < b.meta.size() && b.meta[size_t(r)][size_t(t)].kind == PositionKind::Padding;
    const bool g = b.labels.at(r, t) != kIgnoreIndex;
    pads += pad;
    real += !pad;
    graded += g;
    gradedPads += pad && g;
    attendedPads += pad && b.attentionMask.at(r, t) != 0;
  }
  QString text = tr("<b>Row %1</b> of a %2 x %3 batch (%4) &mdash; %5 tokens, %6 padding, <b>%7 graded</b>")
                     .arg(session_->selectedRow())
                     .arg(b.batchSize())
                     .arg(b.length())
                     .arg(QString::fromStdString(session_->pipeline()->collator().spec().describe()).toHtmlEscaped())
                     .arg(real)
                     .arg(pads)
                     .arg(graded);
  if (gradedPads) text += tr(" &mdash; <span style='color:#d62728'><b>%1 pads graded</b></span>").arg(gradedPads);
  if (attendedPads) text += tr(" &mdash; <span style='color:#d62728'><b>%1 pads attended</b></span>").arg(attendedPads);
  summary_->setText(text);
}

} // namespace maskscope
