// File > Export audit report: writes the `lint --report` page (core/lint/AuditReport.h) for the
// session's dataset with its settings, on a worker thread, with progress and cancel.
#pragma once
#include "core/lint/DatasetLinter.h"

#include <QFuture>
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>

namespace maskscope {

class Session;

class AuditReportRunner : public QObject {
  Q_OBJECT
public:
  explicit AuditReportRunner(QObject* parent = nullptr);
  ~AuditReportRunner() override; // cancels a running export and waits for it

  // Starts writing the page for the session's dataset to path; false (with why in *error) when the
  // session has no dataset to audit (a batch dump, a framework spec, preference data) or one runs.
  bool start(const Session& session, const QString& path, QString* error = nullptr);
  void cancel();
  bool running() const { return future_.isRunning(); }

Q_SIGNALS:
  void progressed(int percent, long rows); // percent of the dataset's bytes read
  // ok: the page is written (message: its verdict); otherwise message says why (or "cancelled").
  void finished(bool ok, const QString& message);

private:
  QFuture<void> future_;
  std::shared_ptr<std::atomic<bool>> cancelled_;
};

} // namespace maskscope
