// Runs one pass over every conversation of the open dataset off the UI thread (the browser's
// search and its token-length measure): rows stream from the file through the dataset's offset
// index, so memory stays that of one row; with progress, cancel, and the newest run's result only.
#pragma once
#include "core/data/Conversation.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

namespace maskscope {

class DatasetIndex;
class Session;

class DatasetScanRunner : public QObject {
  Q_OBJECT
public:
  // Called on the worker for each row in order; appends what it finds to out (row indices, lengths).
  using PerRow = std::function<void(int row, const Conversation& c, std::vector<int>& out)>;
  // Optional, on the worker: false when the row's bytes as the file holds them show that perRow
  // would find nothing there, so the row is not parsed (a search skips most rows this way).
  using RawFilter = std::function<bool(std::string_view raw)>;
  struct Result {
    std::vector<int> values;
    QString error; // the file changed on disk, or a row no longer reads ("" when the pass completed)
  };

  explicit DatasetScanRunner(QObject* parent = nullptr);
  ~DatasetScanRunner() override;

  // Cancels any run and starts one over the session's conversations; key names what it computes.
  void start(const QString& key, const Session& session, PerRow perRow, RawFilter rawFilter = {});
  void cancel();
  bool pending() const { return watcher_ != nullptr; }
  const QString& key() const { return key_; } // of the run in flight or the last one started

Q_SIGNALS:
  void progress(int done, int total);
  void finished(const QString& key, const maskscope::DatasetScanRunner::Result& result);

private:
  QFutureWatcher<Result>* watcher_ = nullptr;
  QString key_;
};

} // namespace maskscope
