// lintDataset(): the reading thread streams rows into micro-batches; worker threads encode,
// collate and lint them; results are reduced in dataset order through a small reorder buffer, so
// memory stays bounded by (workers + queue) micro-batches whatever the dataset size.
#include "core/lint/DatasetLinter.h"
#include "core/lint/BatchRules.h"
#include "core/lint/RoleRecovery.h"
#include "core/lint/TemplateChecks.h"
#include "core/util/Error.h"
#include "core/util/WorkerThread.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

namespace maskscope {

namespace {

struct Chunk {
  long seq = 0;        // order among this run's chunks (the reorder buffer's key)
  long microBatch = 0; // index among the whole dataset's micro-batches (the same in every shard)
  std::vector<Conversation> rows;
  std::vector<Finding> readerFindings; // rows skipped while reading this chunk
};

struct ChunkResult {
  LintReport report; // uncapped findings of the chunk and its summary
  long fullSequenceRows = 0;
  long microBatch = 0;
};

ChunkResult lintChunk(const DatasetPipeline& pipeline, const DatasetLintOptions& opt, Chunk& chunk) {
  ChunkResult res;
  res.microBatch = chunk.microBatch;
  LintReport& rep = res.report;
  FindingCollector out(rep, -1);
  for (Finding& f : chunk.readerFindings) out.add(std::move(f));
  std::vector<TokenizedConversation> encoded;
  encoded.reserve(chunk.rows.size());
  const CollatorSpec& spec = pipeline.collator().spec();
  rep.summary.maxLength = spec.maxLength; // addLength() bins against it (length histogram, over_max_length)
  for (const Conversation& c : chunk.rows) {
    TokenizedConversation tc;
    try {
      tc = pipeline.encode(c);
    } catch (const std::exception& e) {
      Finding f{"row-skipped",
                Severity::Warning,
                c.rowIndex,
                std::nullopt,
                "row " + std::to_string(c.rowIndex) + ": the template refused it: " + e.what(),
                std::nullopt};
      if (c.sourceLine >= 0) f.line = c.sourceLine;
      out.add(std::move(f));
      continue;
    }
    const long before = rep.summary.findingsByRule["boundary-merge"];
    runConversationChecks(tc, c.rowIndex, out, &c);
    if (c.rowIndex < opt.prefixCheckRows && rep.summary.findingsByRule["boundary-merge"] == before) {
      runPrefixChecks(pipeline.encoder(), pipeline.renderOptions(), c, tc, out);
    }
    const int64_t len = int64_t(tc.tokens.size()) + (spec.addBos ? 1 : 0);
    rep.summary.addLength(len);
    if (spec.truncation != Truncation::None && len > spec.maxLength) ++rep.summary.rowsTruncated;
    encoded.push_back(std::move(tc));
  }
  if (encoded.empty()) return res;
  const Batch batch = pipeline.collate(encoded);
  BatchRuleOptions o;
  o.generation = opt.generation;
  o.vocabSize = pipeline.tokenizer().vocabSize();
  o.intent = labelIntentOf(spec);
  o.rolesKnown = true;
  o.datasetPositions = true;
  o.firstDatasetRow = chunk.rows.front().rowIndex;
  o.lastDatasetRow = chunk.rows.back().rowIndex;
  const int64_t gradedBefore = rep.summary.graded;
  runBatchRules(batch, o, out, rep.summary, &res.fullSequenceRows);
  rep.summary.gradAccum.add(rep.summary.graded - gradedBefore);
  return res;
}

// Worker threads lint chunks; their results are handed back in sequence order through a
// reorder buffer whose size is bounded, so memory stays bounded whatever the dataset size.
class ChunkPool {
public:
  ChunkPool(const DatasetPipeline& pipeline, const DatasetLintOptions& opt, int workers)
      : pipeline_(pipeline), opt_(opt), queueCap_(size_t(workers) * 4) {
    // Explicit stacks (kWorkerStackBytes, StackSizes.h): a row's template render recurses up to the
    // template caps on these threads. If a thread cannot start, the started ones are stopped.
    try {
      for (int i = 0; i < workers; ++i) pool_.emplace_back([this] { work(); });
    } catch (...) {
      stop();
      throw;
    }
  }
  ~ChunkPool() { stop(); }

  // Queues the chunk (blocking while the queue is full), then reduces what is ready.
  void push(Chunk chunk, const std::function<void(ChunkResult&)>& reduce) {
    chunk.seq = pushed_++;
    {
      std::unique_lock lk(mu_);
      cvSpace_.wait(lk, [&] { return queue_.size() < queueCap_; });
      queue_.push_back(std::move(chunk));
    }
    cvWork_.notify_one();
    reduceReady(false, reduce);
  }
  // After the last push: reduces every result, joins the workers, rethrows a worker's failure.
  void finish(const std::function<void(ChunkResult&)>& reduce) {
    {
      std::lock_guard lk(mu_);
      finished_ = true;
    }
    cvWork_.notify_all();
    reduceReady(true, reduce);
    stop();
    if (failure_) std::rethrow_exception(failure_);
  }

private:
  void stop() {
    {
      std::lock_guard lk(mu_);
      finished_ = true;
    }
    cvWork_.notify_all();
    for (auto& t : pool_)
      if (t.joinable()) t.join();
  }

  void work() {
    for (;;) {
      Chunk c;
      {
        std::unique_lock lk(mu_);
        cvWork_.wait(lk, [&] { return !queue_.empty() || finished_; });
        if (queue_.empty()) return;
        c = std::move(queue_.front());
        queue_.pop_front();
      }
      cvSpace_.notify_one();
      ChunkResult r;
      try {
        r = lintChunk(pipeline_, opt_, c);
      } catch (...) {
        std::lock_guard lk(mu_);
        if (!failure_) failure_ = std::current_exception();
      }
      {
        std::lock_guard lk(mu_);
        done_.emplace(c.seq, std::move(r));
      }
      cvDone_.notify_all();
    }
  }

  void reduceReady(bool all, const std::function<void(ChunkResult&)>& reduce) {
    std::unique_lock lk(mu_);
    for (;;) {
      auto it = done_.find(nextToReduce_);
      if (it == done_.end()) {
        // All: wait for every pushed chunk. Otherwise bound the reorder buffer: wait while too
        // many results are ahead of the next one.
        if ((all && nextToReduce_ < pushed_) || (!all && done_.size() >= queueCap_ * 2)) {
          cvDone_.wait(lk);
          continue;
        }
        return;
      }
      ChunkResult r = std::move(it->second);
      done_.erase(it);
      lk.unlock();
      reduce(r);
      ++nextToReduce_;
      lk.lock();
    }
  }

  const DatasetPipeline& pipeline_;
  const DatasetLintOptions& opt_;
  const size_t queueCap_;
  std::mutex mu_;
  std::condition_variable cvWork_, cvSpace_, cvDone_;
  std::deque<Chunk> queue_;
  std::map<long, ChunkResult> done_;
  bool finished_ = false;
  std::exception_ptr failure_;
  std::vector<WorkerThread> pool_;
  long pushed_ = 0, nextToReduce_ = 0;
};

// Rows the reader skipped since the last call, reported with the micro-batch being read (by the
// shard that owns it, so merged shards report each once, in the unsharded order).
void takeReaderErrors(const DatasetReader& reader, bool mine, size_t& seen, Chunk& chunk) {
  while (seen < reader.errors().size()) {
    const RowError& e = reader.errors()[seen++];
    if (!mine) continue;
    Finding f{"row-skipped", Severity::Warning, std::nullopt, std::nullopt, e.toString(), std::nullopt};
    if (e.line >= 0) f.line = e.line;
    chunk.readerFindings.push_back(std::move(f));
  }
}

// Reads the dataset into micro-batch chunks (microBatchSize readable rows each, as an unsharded
// run forms them) and pushes the chunks of this shard (micro-batch index % shardCount ==
// shardIndex) to the pool. Sharding whole micro-batches keeps every micro-batch, its padding and
// its grad-accum weight identical to the unsharded run, so shard reports merge exactly.
void readChunks(DatasetReader& reader, const DatasetLintOptions& opt, LintSummary& summary, ChunkPool& pool,
                const std::function<void(ChunkResult&)>& reduce) {
  Chunk chunk;
  long microBatch = 0;
  auto mine = [&] { return microBatch % opt.shardCount == opt.shardIndex; };
  const bool ranged = opt.rowBegin > 0 || opt.rowEnd >= 0; // else the reader's own count is used at the end
  size_t errorsSeen = 0;
  auto lastProgress = std::chrono::steady_clock::now();
  Conversation c;
  for (;;) {
    const bool got = reader.next(c);
    // --rows A:B: rows the reader skipped count when they lie inside the range: after good row A
    // (or anywhere before it when A is 0) and before good row B.
    const long next = got ? c.rowIndex : reader.rowsRead(); // the index the skipped rows precede
    const bool skippedInRange = (next > opt.rowBegin || opt.rowBegin == 0) && (opt.rowEnd < 0 || next < opt.rowEnd);
    const size_t before = errorsSeen;
    takeReaderErrors(reader, mine() && skippedInRange, errorsSeen, chunk);
    if (mine() && skippedInRange && ranged) summary.rowsSkipped += long(errorsSeen - before);
    if (!got || (opt.rowEnd >= 0 && c.rowIndex >= opt.rowEnd)) break;
    if (c.rowIndex < opt.rowBegin) continue;
    chunk.microBatch = microBatch;
    if (mine()) ++summary.rowsRead;
    chunk.rows.push_back(std::move(c));
    c = Conversation{};
    if (int(chunk.rows.size()) >= opt.microBatchSize) {
      if (mine())
        pool.push(std::exchange(chunk, Chunk{}), reduce);
      else
        chunk = Chunk{};
      ++microBatch;
    }
    const auto now = std::chrono::steady_clock::now();
    if (opt.progress && now - lastProgress > std::chrono::milliseconds(200)) {
      lastProgress = now;
      opt.progress(reader.progress(), summary.rowsRead);
    }
  }
  chunk.microBatch = microBatch;
  if (mine() && (!chunk.rows.empty() || !chunk.readerFindings.empty())) pool.push(std::move(chunk), reduce);
}

} // namespace

LintReport lintDataset(const std::string& dataSpec, const DatasetLintOptions& opt) {
  if (opt.microBatchSize < 1) throw Error("--micro-batch must be at least 1");
  if (opt.shardCount < 1 || opt.shardIndex < 0 || opt.shardIndex >= opt.shardCount)
    throw Error("--shard K/N needs 0 <= K < N");
  DatasetPipeline pipeline(opt.pipeline);
  DatasetReader reader(dataSpec);

  LintReport report;
  report.summary.input = "dataset";
  report.summary.maxLength = pipeline.collator().spec().maxLength;
  report.summary.gradAccum.microBatchSize = opt.microBatchSize;
  FindingCollector out(report, opt.maxFindings);
  // Every shard renders the probe conversations, so a template that hits a sandbox limit stops the
  // run here (exit 2) instead of costing the limit on every row. Template-level checks once (shard
  // 0 only, so merged shards count them once).
  RoleMarkers markers = learnRoleMarkers(pipeline.encoder(), pipeline.renderOptions());
  if (opt.shardIndex == 0) {
    runTemplateChecks(pipeline.encoder(), pipeline.renderOptions(), markers, &pipeline.collator().spec(), out);
  }
  report.findingMicroBatch.assign(report.findings.size(), kBeforeMicroBatches);
  long fullRows = 0;
  auto reduce = [&](ChunkResult& r) {
    for (Finding& f : r.report.findings) out.add(std::move(f));
    report.findingMicroBatch.resize(report.findings.size(), r.microBatch);
    if (r.report.summary.gradAccum.microBatches > 0 && report.microBatchIndex.size() < kMaxMicroBatchesKept)
      report.microBatchIndex.push_back(r.microBatch);
    LintSummary s = std::move(r.report.summary);
    // Findings were counted again by out.add(); drop the chunk's own counts before merging.
    s.errors = s.warnings = s.infos = 0;
    s.findingsShown = s.findingsOmitted = 0;
    s.findingsByRule.clear();
    report.summary.merge(s);
    fullRows += r.fullSequenceRows;
  };
  const int workers = std::max(1, opt.threads > 0 ? opt.threads : int(std::thread::hardware_concurrency()));
  {
    ChunkPool pool(pipeline, opt, workers); // its destructor stops the workers if reading throws
    readChunks(reader, opt, report.summary, pool, reduce);
    pool.finish(reduce);
  }
  // Without a row range every skipped row counts (also those past kMaxKeptErrors); with one, only the
  // range's, counted while reading.
  const bool wholeDataset = opt.rowBegin == 0 && opt.rowEnd < 0;
  if (opt.shardIndex == 0 && wholeDataset) report.summary.rowsSkipped = reader.rowsSkipped();
  addFullSequenceInfo(out, fullRows);
  report.findingMicroBatch.resize(report.findings.size(), kAfterMicroBatches);
  report.fullSequenceRows = fullRows;
  if (opt.progress) opt.progress(1.0, report.summary.rowsRead);
  return report;
}

} // namespace maskscope
