// The audit export's worker: lints the dataset with an AuditCollector (bounded state) and writes the
// page; cancel makes the linter's progress callback throw, which stops its reading and workers.
#include "ui/shell/AuditReportRunner.h"
#include "core/lint/AuditReport.h"
#include "core/util/Error.h"
#include "ui/shell/Session.h"
#include "ui/shell/WorkerPool.h"

#include <QMetaObject>
#include <QtConcurrent/QtConcurrentRun>
#include <fstream>

namespace maskscope {

namespace {

struct Cancelled {};

AuditSettings settingsOf(const Session& s, const DatasetLintOptions& o, const QString& path) {
  AuditSettings st;
  st.source = s.datasetSpec().toStdString();
  st.tokenizer = o.pipeline.tokenizerSpec;
  st.templateSpec = o.pipeline.templateSpec;
  st.collator = o.pipeline.collatorSpec;
  for (const auto& [k, v] : o.pipeline.render.variables) st.vars.emplace_back(k, v);
  st.minPixels = o.pipeline.render.minPixels;
  st.maxPixels = o.pipeline.render.maxPixels;
  st.microBatch = o.microBatchSize;
  st.commandLine = auditReproduceCommand(st, path.toStdString());
  return st;
}

} // namespace

AuditReportRunner::AuditReportRunner(QObject* parent) : QObject(parent) {}

AuditReportRunner::~AuditReportRunner() {
  cancel();
  future_.waitForFinished();
}

void AuditReportRunner::cancel() {
  if (cancelled_) *cancelled_ = true;
}

bool AuditReportRunner::start(const Session& s, const QString& path, QString* error) {
  auto refuse = [&](const QString& why) {
    if (error) *error = why;
    return false;
  };
  if (running()) return refuse(tr("An audit report is being written already."));
  if (s.datasetSpec().isEmpty() || s.isBatchDump())
    return refuse(tr("The audit report covers a dataset; open a dataset (a batch dump has no dataset rows)."));
  if (s.isFramework())
    return refuse(
        tr("The audit report covers datasets collated by a preset; a framework spec is linted as one batch."));
  if (s.isPreference()) return refuse(tr("The audit report covers SFT datasets, not preference pairs."));
  DatasetLintOptions o;
  o.pipeline.tokenizerSpec = s.tokenizerSpec().isEmpty() ? "builtin:demo" : s.tokenizerSpec().toStdString();
  o.pipeline.templateSpec = s.templateSpec().toStdString();
  o.pipeline.collatorSpec = s.collatorSpec().isEmpty() ? "default" : s.collatorSpec().toStdString();
  o.pipeline.render.variables = s.templateVariables();
  o.microBatchSize = s.batchSize();
  o.threads = 1; // keep a core for the UI
  const AuditSettings settings = settingsOf(s, o, path);
  const std::string data = s.datasetSpec().toStdString(), file = path.toStdString();
  cancelled_ = std::make_shared<std::atomic<bool>>(false);
  auto cancelled = cancelled_;
  AuditReportRunner* self = this; // outlives the worker: the destructor waits for it
  o.progress = [self, cancelled](double f, long rows) {
    if (*cancelled) throw Cancelled{};
    QMetaObject::invokeMethod(
        self, [self, f, rows] { Q_EMIT self->progressed(int(100 * f), rows); }, Qt::QueuedConnection);
  };
  future_ = QtConcurrent::run(workerPool(), [self, cancelled, o, settings, data, file] {
    bool ok = false;
    QString message;
    try {
      AuditCollector audit;
      DatasetLintOptions opt = o;
      opt.audit = &audit;
      const LintReport report = lintDataset(data, opt);
      if (*cancelled) throw Cancelled{};
      std::ofstream out(file, std::ios::binary | std::ios::trunc);
      if (!out) throw Error("cannot write the audit report", {file});
      writeAuditReport(out, report, audit, settings);
      out.flush();
      if (!out) throw Error("writing the audit report failed (disk full?)", {file});
      ok = true;
      message = QString::fromStdString(auditVerdict(report.summary, settings.failOn));
    } catch (const Cancelled&) {
      message = QStringLiteral("cancelled");
    } catch (const std::exception& e) {
      message = QString::fromUtf8(e.what());
    }
    QMetaObject::invokeMethod(
        self, [self, ok, message] { Q_EMIT self->finished(ok, message); }, Qt::QueuedConnection);
  });
  return true;
}

} // namespace maskscope
