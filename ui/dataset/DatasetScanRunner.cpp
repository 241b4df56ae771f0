// A pass over the dataset's conversations on the worker pool: through the offset index when the
// session has one (streamed from the file), else over a copy of its few in-memory rows (preference).
#include "ui/dataset/DatasetScanRunner.h"
#include "ui/shell/Session.h"
#include "ui/shell/WorkerPool.h"

#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>

namespace maskscope {

DatasetScanRunner::DatasetScanRunner(QObject* parent) : QObject(parent) {}

DatasetScanRunner::~DatasetScanRunner() {
  if (watcher_) watcher_->cancel(); // the worker owns its inputs; this only stops it early
}

void DatasetScanRunner::cancel() {
  if (watcher_) watcher_->cancel(); // its finished handler sees it is no longer the current run
  watcher_ = nullptr;
}

void DatasetScanRunner::start(const QString& key, const Session& session, PerRow perRow) {
  cancel();
  key_ = key;
  std::shared_ptr<const DatasetIndex> index = session.datasetIndex();
  auto copies = std::make_shared<std::vector<Conversation>>();
  if (!index)
    for (int r = 0; r < session.conversationCount(); ++r) copies->push_back(session.conversation(r));
  const int n = session.conversationCount();
  auto* watcher = new QFutureWatcher<Result>(this);
  watcher_ = watcher;
  connect(watcher, &QFutureWatcherBase::progressValueChanged, this, [this, watcher](int done) {
    if (watcher == watcher_) Q_EMIT progress(done, watcher->progressMaximum());
  });
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
    watcher->deleteLater();
    if (watcher != watcher_) return; // cancelled, or replaced by a newer run
    watcher_ = nullptr;
    if (watcher->isCanceled() || watcher->future().resultCount() == 0) return;
    Q_EMIT finished(key_, watcher->future().result());
  });
  watcher->setFuture(QtConcurrent::run(workerPool(), [index, copies, n, perRow](QPromise<Result>& promise) {
    promise.setProgressRange(0, n);
    Result result;
    auto visit = [&](size_t r, const Conversation& c) {
      if (promise.isCanceled()) return false;
      perRow(int(r), c, result.values);
      if ((r & 255) == 255) promise.setProgressValue(int(r) + 1);
      return true;
    };
    try {
      if (index)
        index->forEachRow(0, visit);
      else
        for (size_t r = 0; r < copies->size() && visit(r, (*copies)[r]);) ++r;
    } catch (const std::exception& e) {
      result.error = QString::fromUtf8(e.what());
    }
    if (promise.isCanceled()) return;
    promise.setProgressValue(n);
    promise.addResult(std::move(result));
  }));
}

} // namespace maskscope
