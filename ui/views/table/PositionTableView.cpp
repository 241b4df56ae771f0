// The per-position table view: core/table builds and writes the rows; this file shows, filters,
// copies and exports them, and keeps the selected position in step with the other views.
#include "ui/views/table/PositionTableView.h"
#include "core/table/GradedText.h"
#include "ui/shell/Session.h"
#include "ui/views/table/PositionTableModel.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QFile>
#include <QFileDialog>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <optional>
#include <set>
#include <sstream>

namespace maskscope {

namespace {
QString tableText(const std::vector<PositionTableRow>& rows, TableFormat format) {
  std::ostringstream out;
  writePositionTable(out, rows, format);
  return QString::fromStdString(out.str());
}

// The same rows as tab-separated values (pastes into a spreadsheet); header as core's CSV.
QString tsv(const std::vector<PositionTableRow>& rows) {
  QStringList lines;
  for (const PositionTableRow& r : rows)
    lines << QStringList{QString::number(r.position),    QString::fromStdString(r.token), QString::number(r.id),
                         QString::number(r.label),       QString::number(r.attention),    QString::number(r.positionId),
                         QString::fromStdString(r.role), QString::fromStdString(r.tool)}
                 .join(QLatin1Char('\t'));
  lines.prepend(QStringLiteral("position\ttoken\tid\tlabel\tattention\tposition_id\trole\ttool"));
  return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

std::optional<TableFormat> formatOfPath(const QString& path) {
  const QString p = path.toLower();
  if (p.endsWith(QLatin1String(".md")) || p.endsWith(QLatin1String(".markdown"))) return TableFormat::Markdown;
  if (p.endsWith(QLatin1String(".csv"))) return TableFormat::Csv;
  if (p.endsWith(QLatin1String(".html")) || p.endsWith(QLatin1String(".htm"))) return TableFormat::Html;
  return std::nullopt;
}
} // namespace

PositionTableView::PositionTableView(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  hideSystem_ = new QCheckBox(tr("Hide the system turn"), this);
  hideWhitespace_ = new QCheckBox(tr("Hide whitespace tokens"), this);
  hidePadding_ = new QCheckBox(tr("Hide padding"), this);
  summary_ = new QLabel(this);
  summary_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // shrinks: exports may be narrow
  auto* copy = new QPushButton(tr("Copy"), this);
  copy->setToolTip(tr("Copy the selected rows (Ctrl+C): tab-separated text, Markdown alongside"));
  auto* exportButton = new QPushButton(tr("Export\u2026"), this);
  exportButton->setToolTip(tr("Write the shown rows as Markdown, CSV or HTML"));
  bar->addWidget(hideSystem_);
  bar->addWidget(hideWhitespace_);
  bar->addWidget(hidePadding_);
  bar->addWidget(summary_, 1);
  bar->addWidget(copy);
  bar->addWidget(exportButton);
  layout->addLayout(bar);
  // "Verify one batch": what the loss reads in this row, decoded (the whole row, whatever is hidden).
  gradedText_ = new QLabel(this);
  gradedText_->setObjectName(QStringLiteral("gradedText"));
  gradedText_->setTextFormat(Qt::PlainText);
  gradedText_->setWordWrap(true);
  gradedText_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  gradedText_->installEventFilter(this); // elided anew to its width
  layout->addWidget(gradedText_);
  table_ = new QTableView(this);
  model_ = new PositionTableModel(this);
  table_->setModel(model_);
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->horizontalHeader()->setSectionResizeMode(PositionTableModel::kToken, QHeaderView::Stretch);
  table_->installEventFilter(this);
  layout->addWidget(table_, 1);
  fitTableToLines();

  connect(hideSystem_, &QCheckBox::toggled, this, &PositionTableView::rebuild);
  connect(hideWhitespace_, &QCheckBox::toggled, this, &PositionTableView::rebuild);
  connect(hidePadding_, &QCheckBox::toggled, this, &PositionTableView::rebuild);
  connect(copy, &QPushButton::clicked, this, &PositionTableView::copySelection);
  connect(exportButton, &QPushButton::clicked, this, &PositionTableView::exportWithDialog);
  connect(session_, &Session::batchChanged, this, &PositionTableView::rebuild);
  connect(session_, &Session::positionChanged, this, &PositionTableView::followSelection);
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
    const int row = current.row();
    if (!syncing_ && row >= 0 && row < int(rows_.size())) session_->selectPosition(int(rows_[size_t(row)].position));
  });
  rebuild();
}

PositionTableFilter PositionTableView::filter() const {
  PositionTableFilter f;
  f.hideSystem = hideSystem_->isChecked();
  f.hideWhitespace = hideWhitespace_->isChecked();
  f.hidePadding = hidePadding_->isChecked();
  return f;
}

void PositionTableView::setFilter(const PositionTableFilter& f) {
  {
    QSignalBlocker a(hideSystem_), b(hideWhitespace_), c(hidePadding_);
    hideSystem_->setChecked(f.hideSystem);
    hideWhitespace_->setChecked(f.hideWhitespace);
    hidePadding_->setChecked(f.hidePadding);
  }
  rebuild();
}

QString PositionTableView::summaryText() const { return summary_->text(); }

QString PositionTableView::gradedText() const { return gradedFull_; }

// Two lines of the label's width at most, the rest in its tooltip: at presenter mode's type on a
// 1024 x 768 projector four lines of graded text left the table under three rows.
void PositionTableView::fitGradedText() {
  const int width = std::max(100, gradedText_->width());
  // Word wrap loses up to a word a line: aim under two full lines.
  const QString shown = gradedText_->fontMetrics().elidedText(
      gradedFull_, Qt::ElideRight, 2 * width - 8 * gradedText_->fontMetrics().averageCharWidth());
  if (gradedText_->text() != shown) gradedText_->setText(shown);
  gradedText_->setToolTip(shown == gradedFull_ ? QString() : gradedFull_.left(4000));
}

void PositionTableView::rebuild() {
  syncing_ = true;
  model_->setRows(nullptr); // the model reads rows_: detach it while they change
  rows_.clear();
  QString graded;
  if (session_->hasBatch()) {
    const Tokenizer* tok = session_->pipeline() ? &session_->pipeline()->tokenizer() : nullptr;
    rows_ = buildPositionTable(session_->batch(), session_->batchRow(), tok, filter());
    graded = QString::fromStdString(gradedTextOfRow(session_->batch(), session_->batchRow(), tok));
  }
  // A long row's graded text is capped: a word-wrapped label lays out all of it on every resize.
  constexpr qsizetype kShown = 2000;
  if (graded.size() > kShown) {
    const qsizetype cut = graded.at(kShown - 1).isHighSurrogate() ? kShown - 1 : kShown;
    graded = tr("%1\u2026 (%2 more characters)").arg(graded.left(cut)).arg(graded.size() - cut);
  }
  gradedFull_ = session_->hasBatch() ? tr("Graded text (what the loss reads, runs joined by \u2026): %1")
                                           .arg(graded.isEmpty() ? tr("nothing is graded") : graded)
                                     : QString();
  fitGradedText();
  model_->setRows(&rows_);
  // The role column fits its longest cell ("tool_call: get_weather"), found in one pass over the rows
  // (ResizeToContents would measure every row of a 128k-position table).
  size_t longest = 0;
  const PositionTableRow* widest = nullptr;
  for (const PositionTableRow& r : rows_)
    if (const size_t n = r.role.size() + (r.tool.empty() ? 0 : r.tool.size() + 2); n > longest) {
      longest = n;
      widest = &r;
    }
  if (widest) {
    const QString cell = model_->index(int(widest - rows_.data()), PositionTableModel::kRole).data().toString();
    QFont bold = table_->font(); // graded rows are bold
    bold.setBold(true);
    table_->setColumnWidth(PositionTableModel::kRole, std::max(table_->columnWidth(PositionTableModel::kRole),
                                                               QFontMetrics(bold).horizontalAdvance(cell) + 24));
  }
  syncing_ = false;
  const PositionTableCounts c = countTable(rows_);
  summary_->setText(tr("%1 rows: %2 graded, %3 ignored (-100)").arg(c.rows).arg(c.graded).arg(c.ignored));
  followSelection();
}

void PositionTableView::followSelection() {
  const int p = session_->selectedPosition();
  // rows_ are in position order: the selected position's row by binary search.
  const auto it = std::lower_bound(rows_.begin(), rows_.end(), int64_t(p),
                                   [](const PositionTableRow& r, int64_t v) { return r.position < v; });
  if (it == rows_.end() || it->position != p) return;
  syncing_ = true;
  const QModelIndex current = table_->currentIndex();
  const QModelIndex index = model_->index(int(it - rows_.begin()), current.isValid() ? current.column() : 0);
  table_->setCurrentIndex(index);
  table_->scrollTo(index);
  syncing_ = false;
}

std::vector<PositionTableRow> PositionTableView::selectedRows() const {
  std::set<int> picked;
  for (const QModelIndex& i : table_->selectionModel()->selectedIndexes()) picked.insert(i.row());
  if (picked.empty()) return rows_;
  std::vector<PositionTableRow> out;
  for (int i : picked)
    if (i >= 0 && i < int(rows_.size())) out.push_back(rows_[size_t(i)]);
  return out;
}

QMimeData* PositionTableView::selectionMimeData() const {
  const std::vector<PositionTableRow> rows = selectedRows();
  auto* mime = new QMimeData;
  mime->setText(tsv(rows));
  mime->setData(QStringLiteral("text/markdown"), tableText(rows, TableFormat::Markdown).toUtf8());
  return mime;
}

void PositionTableView::copySelection() const { QApplication::clipboard()->setMimeData(selectionMimeData()); }

// Three rows of text under the header whatever the type (presenter mode's large type on a 1024 x 768
// projector left the rows 64 px, under three lines): the dock grows to that, the rest scrolls.
void PositionTableView::fitTableToLines() {
  table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
  const int header = table_->horizontalHeader()->sizeHint().height();
  table_->setMinimumHeight(header + 3 * table_->fontMetrics().lineSpacing() + 2 * table_->frameWidth() + 2);
}

void PositionTableView::changeEvent(QEvent* e) {
  QWidget::changeEvent(e);
  if (e->type() == QEvent::FontChange) {
    fitTableToLines();
    fitGradedText();
  }
}

bool PositionTableView::eventFilter(QObject* watched, QEvent* event) {
  if (watched == gradedText_ && event->type() == QEvent::Resize) fitGradedText();
  if (watched == table_ && event->type() == QEvent::KeyPress &&
      static_cast<QKeyEvent*>(event)->matches(QKeySequence::Copy)) {
    copySelection();
    return true;
  }
  return QWidget::eventFilter(watched, event);
}

bool PositionTableView::exportTo(const QString& path, QString* error) const {
  const std::optional<TableFormat> format = formatOfPath(path);
  if (!format) {
    if (error) *error = tr("%1: the table exports as .md, .csv or .html").arg(path);
    return false;
  }
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(tableText(rows_, *format).toUtf8()) < 0) {
    if (error) *error = tr("%1: %2").arg(path, f.errorString());
    return false;
  }
  return true;
}

void PositionTableView::exportWithDialog() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Export table"), QStringLiteral("positions.md"),
                                                    tr("Markdown (*.md);;CSV (*.csv);;HTML (*.html)"));
  QString error;
  if (!path.isEmpty() && !exportTo(path, &error)) QMessageBox::warning(this, tr("Export table"), error);
}

} // namespace maskscope
