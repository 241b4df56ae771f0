// Renders the generations of both runs (see TrainingLabGenerations.h). The text is decoded by the
// plan's tokenizer, the one the runs were trained with; the stop token is shown by its own text.
#include "ui/lab/TrainingLabGenerations.h"
#include "core/collate/DatasetPipeline.h"
#include "core/train/TrainReport.h"
#include "core/util/Utf8.h"
#include "ui/lab/TrainingLabCharts.h"

#include <QGridLayout>
#include <QTextBrowser>
#include <cmath>

namespace maskscope {

QString generationHtml(const GenerationRecord& g, const Tokenizer& tokenizer, int64_t maxNewTokens) {
  std::vector<int32_t> body(g.tokens.begin(), g.tokens.end());
  int32_t stop = -1;
  if (g.stopped && !body.empty()) {
    stop = body.back();
    body.pop_back();
  }
  QString html = QString::fromStdString(tokenizer.decode(body)).toHtmlEscaped();
  html.replace(QLatin1Char('\n'), QStringLiteral("<br>"));
  if (stop >= 0)
    return html +
           QStringLiteral(" <span style=\"background:#2e7d32;color:white;font-weight:bold\">&nbsp;%1&nbsp;</span>")
               .arg(QString::fromStdString(utf8::visibleWhitespace(tokenizer.idToToken(stop))).toHtmlEscaped());
  return html + QStringLiteral(" <span style=\"background:#c62828;color:white;font-weight:bold\">&nbsp;%1&nbsp;</span>")
                    .arg(TrainingLabGenerations::tr("no end-of-turn token in %1 tokens").arg(maxNewTokens));
}

TrainingLabGenerations::TrainingLabGenerations(QWidget* parent) : QWidget(parent) {
  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(0, 0, 0, 0);
  for (int r = 0; r < 2; ++r) {
    text_[r] = new QTextBrowser;
    text_[r]->setMinimumHeight(60); // the panel must dock beside the others at the bottom
    text_[r]->setObjectName(r == 0 ? QStringLiteral("generationsA") : QStringLiteral("generationsB"));
    grid->addWidget(text_[r], 0, r);
  }
  clear();
}

void TrainingLabGenerations::clear() {
  for (int r = 0; r < 2; ++r) {
    heading_[r] = r == 0 ? tr("Run A") : tr("Run B");
    text_[r]->setHtml(headingHtml(r) +
                      tr("<p style=\"color:gray\">The generations appear here when both runs have trained.</p>"));
  }
}

namespace {
QString number(double v, int digits) { return std::isnan(v) ? QStringLiteral("n/a") : QString::number(v, 'f', digits); }
} // namespace

void TrainingLabGenerations::showResults(const TrainABPlan& plan, const TrainReport& report) {
  const Tokenizer& tok = plan.pipeline->tokenizer();
  for (int r = 0; r < 2; ++r) {
    const TrainRunResult& run = report.runs[r];
    size_t stopped = 0;
    for (const GenerationRecord& g : run.generations) stopped += g.stopped;
    heading_[r] = tr("Run %1 - %2: stop_fraction %3 (%4 of %5 ended), final training loss %6, held-out %7")
                      .arg(r == 0 ? QLatin1Char('A') : QLatin1Char('B'))
                      .arg(QString::fromStdString(plan.collator[r]))
                      .arg(number(stopFraction(run), 2))
                      .arg(stopped)
                      .arg(run.generations.size())
                      .arg(number(run.steps.empty() ? NAN : run.steps.back().trainLoss, 3))
                      .arg(number(run.heldOut.empty() ? NAN : run.heldOut.back().loss, 3));
    QString html = headingHtml(r);
    for (size_t i = 0; i < run.generations.size(); ++i)
      html += QStringLiteral("<p><b>row %1</b>: %2</p>")
                  .arg(i < plan.generationRows.size() ? plan.generationRows[i] : long(i))
                  .arg(generationHtml(run.generations[i], tok, plan.request.generation.maxNewTokens));
    text_[r]->setHtml(html);
  }
}

QString TrainingLabGenerations::html(int run) const { return text_[run]->toHtml(); }
QString TrainingLabGenerations::heading(int run) const { return heading_[run]; }

// The heading in the run's colour, at the top of its column (it scrolls with the generations, so it
// never takes room from them in a small dock).
QString TrainingLabGenerations::headingHtml(int run) const {
  return QStringLiteral("<p style=\"color:%1\"><b>%2</b></p>")
      .arg(trainingRunColour(run).name(), heading_[run].toHtmlEscaped());
}

} // namespace maskscope
