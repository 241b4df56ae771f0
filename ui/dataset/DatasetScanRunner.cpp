// A pass over the dataset's conversations on the worker pool: through the offset index when the
// session has one (streamed from the file), else over a copy of its few in-memory rows (preference).
#include "ui/dataset/DatasetScanRunner.h"
#include "ui/shell/Session.h"
#include "ui/shell/WorkerPool.h"

#include "core/util/Error.h"

#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>
#include <cstdio>

namespace maskscope {

namespace {

// Each indexed row's bytes in file order, from sequential reads of 4 MiB or more; visit(r, raw)
// returns false to stop. False when the file cannot be opened (builtin: datasets).
bool forEachRawRow(const DatasetIndex& index, const std::function<bool(size_t, std::string_view)>& visit) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(index.spec().c_str(), "rb"), &std::fclose);
  if (!file) return false;
  std::string buf;      // file bytes [bufStart, bufStart + buf.size()); the file is read up to their end
  int64_t bufStart = 0; // (rows are indexed in file order)
  for (size_t r = 0; r < index.rowCount(); ++r) {
    const IndexedRow& row = index.row(r);
    const int64_t end = row.offset + int64_t(row.bytes);
    if (end > bufStart + int64_t(buf.size())) {
      if (row.offset > bufStart + int64_t(buf.size())) { // a gap (skipped rows): jump over it
        if (fseeko(file.get(), off_t(row.offset), SEEK_SET) != 0) throw Error("cannot read", {index.spec()});
        bufStart = row.offset;
        buf.clear();
      }
      buf.erase(0, size_t(row.offset - bufStart)); // keep the row's start
      bufStart = row.offset;
      const size_t want = std::max<size_t>(size_t(4) << 20, size_t(end - bufStart) - buf.size());
      const size_t had = buf.size();
      buf.resize(had + want);
      buf.resize(had + std::fread(buf.data() + had, 1, want, file.get()));
      if (bufStart + int64_t(buf.size()) < end)
        throw Error("the dataset file is shorter than when it was opened; reopen it", {index.spec(), row.line});
    }
    if (!visit(r, std::string_view(buf).substr(size_t(row.offset - bufStart), row.bytes))) break;
  }
  return true;
}

} // namespace

DatasetScanRunner::DatasetScanRunner(QObject* parent) : QObject(parent) {}

DatasetScanRunner::~DatasetScanRunner() {
  if (watcher_) watcher_->cancel(); // the worker owns its inputs; this only stops it early
}

void DatasetScanRunner::cancel() {
  if (watcher_) watcher_->cancel(); // its finished handler sees it is no longer the current run
  watcher_ = nullptr;
}

void DatasetScanRunner::start(const QString& key, const Session& session, PerRow perRow, RawFilter rawFilter) {
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
  watcher->setFuture(QtConcurrent::run(workerPool(), [index, copies, n, perRow, rawFilter](QPromise<Result>& promise) {
    promise.setProgressRange(0, n);
    Result result;
    auto visit = [&](size_t r, const Conversation& c) {
      if (promise.isCanceled()) return false;
      perRow(int(r), c, result.values);
      if ((r & 255) == 255) promise.setProgressValue(int(r) + 1);
      return true;
    };
    // Rows the raw filter lets through are read back and parsed one by one (few, for a search).
    auto visitRaw = [&](size_t r, std::string_view raw) {
      if (rawFilter(raw)) return visit(r, index->conversation(r));
      if ((r & 255) == 255) promise.setProgressValue(int(r) + 1);
      return !promise.isCanceled();
    };
    try {
      if (index && !index->changedOnDisk().empty()) throw Error(index->changedOnDisk());
      if (index && rawFilter && forEachRawRow(*index, visitRaw)) {
        if (!index->changedOnDisk().empty()) throw Error(index->changedOnDisk());
      } else if (index)
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
