// Prepared row table: the session's prepared row (the one the selection falls in), column by column.
#include "ui/views/framework/PreparedRowTable.h"
#include "core/frameworks/PreparedFramework.h"
#include "core/mask/GradedPositions.h"
#include "core/util/Utf8.h"
#include "ui/shell/Session.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace maskscope {

namespace {

// Per-row facts rather than per-position values: listed above the table.
bool isRowFact(const PreparedColumn& c) {
  return c.scalar || c.name == "seq_lengths" || c.name == "seq_lens" || c.name == "lengths";
}

bool holdsTokenIds(const std::string& name) {
  return name == "tokens" || name.ends_with("input_ids") || name.ends_with("_ids");
}

constexpr int kMaxFactValues = 32; // longer lists show their length

} // namespace

PreparedRowTable::PreparedRowTable(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  header_ = new QLabel(this);
  header_->setObjectName(QStringLiteral("preparedRowHeader"));
  header_->setWordWrap(true);
  header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  table_ = new QTableWidget(this);
  table_->setObjectName(QStringLiteral("preparedRowTable"));
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 4);
  table_->verticalHeader()->hide(); // the position column numbers the rows
  layout->addWidget(header_);
  layout->addWidget(table_, 1);
  connect(session_, &Session::batchChanged, this, &PreparedRowTable::refresh);
  connect(session_, &Session::rowsChanged, this, &PreparedRowTable::refresh);
  refresh();
}

QString PreparedRowTable::headerText() const { return header_->text(); }

QStringList PreparedRowTable::columnNames() const {
  QStringList names;
  for (int c = 1; c < table_->columnCount(); ++c) names << table_->horizontalHeaderItem(c)->text();
  return names;
}

void PreparedRowTable::refresh() {
  table_->clear();
  table_->setRowCount(0);
  table_->setColumnCount(0);
  const PreparedFramework* fw = session_->preparedFramework();
  const int p = session_->preparedRow();
  if (!fw || p < 0 || size_t(p) >= fw->rows().size()) {
    header_->setText(session_->isFramework() ? tr("No prepared row: the selected row is in none (see the centre).")
                                             : tr("Prepared rows are a framework's dataset preparation: pick a "
                                                  "framework in the toolbar, or File > Open framework config."));
    return;
  }
  const PreparedRow& row = fw->rows()[size_t(p)];
  QStringList facts, sources;
  std::vector<const PreparedColumn*> shown;
  size_t length = 0;
  for (const PreparedColumn& c : row.columns) {
    if (!isRowFact(c)) {
      shown.push_back(&c);
      length = std::max(length, c.values.size());
      continue;
    }
    QStringList values;
    for (size_t i = 0; i < c.values.size() && i < size_t(kMaxFactValues); ++i) values << QString::number(c.values[i]);
    facts << (c.scalar ? QStringLiteral("%1 = %2").arg(QString::fromStdString(c.name), values.value(0))
              : c.values.size() > size_t(kMaxFactValues)
                  ? QStringLiteral("%1: %2 values").arg(QString::fromStdString(c.name)).arg(c.values.size())
                  : QStringLiteral("%1 = [%2]").arg(QString::fromStdString(c.name), values.join(QStringLiteral(", "))));
  }
  for (long s : row.sourceRows) sources << QString::number(s);
  header_->setText(tr("<b>Prepared row %1</b> of %2 (%3) &mdash; from dataset row%4 %5%6")
                       .arg(p)
                       .arg(fw->rows().size())
                       .arg(QString::fromStdString(fw->spec().describe()).toHtmlEscaped())
                       .arg(row.sourceRows.size() > 1 ? QStringLiteral("s") : QString())
                       .arg(sources.join(QStringLiteral(", ")))
                       .arg(facts.isEmpty() ? QString() : QStringLiteral("<br>") + facts.join(QStringLiteral("; "))));
  table_->setColumnCount(int(shown.size()) + 1);
  table_->setRowCount(int(length));
  table_->setHorizontalHeaderItem(0, new QTableWidgetItem(tr("position")));
  const std::vector<int64_t>* labels = row.find("labels");
  const bool named = session_->hasTokenizer();
  for (size_t c = 0; c < shown.size(); ++c) {
    table_->setHorizontalHeaderItem(int(c) + 1, new QTableWidgetItem(QString::fromStdString(shown[c]->name)));
    const bool ids = named && holdsTokenIds(shown[c]->name);
    for (size_t t = 0; t < shown[c]->values.size(); ++t) {
      const int64_t v = shown[c]->values[t];
      const QString text = ids ? QStringLiteral("%1  %2").arg(v).arg(QString::fromStdString(
                                     utf8::visibleWhitespace(session_->tokenText(v).toStdString())))
                               : QString::number(v);
      auto* item = new QTableWidgetItem(text);
      if (labels && t < labels->size() && gradedLabel(int64_t(t), (*labels)[t])) { // graded: bold
        QFont f = item->font();
        f.setBold(true);
        item->setFont(f);
      }
      table_->setItem(int(t), int(c) + 1, item);
    }
  }
  for (size_t t = 0; t < length; ++t) table_->setItem(int(t), 0, new QTableWidgetItem(QString::number(t)));
  table_->resizeColumnsToContents();
}

} // namespace maskscope
