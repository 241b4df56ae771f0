// lintDataset(): the reading thread streams rows into micro-batches (and compares each row with the
// earlier ones: duplicate-row, mixed-row-shapes); worker threads encode, check the rows' content,
// collate and lint them; results are reduced in dataset order through a small reorder buffer, so
// memory stays bounded by (workers + queue) micro-batches whatever the dataset size.
#include "core/lint/DatasetLinter.h"
#include "core/lint/BatchRules.h"
#include "core/lint/DatasetRowChecks.h"
#include "core/lint/RoleRecovery.h"
#include "core/lint/TemplateChecks.h"
#include "core/util/Error.h"
#include "core/util/WorkerThread.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

namespace maskscope {

namespace {

struct Chunk {
  long seq = 0;        // order among this run's chunks (the reorder buffer's key)
  long microBatch = 0; // index among the whole dataset's micro-batches (the same in every shard)
  std::vector<Conversation> rows;
  // Found while reading: rows skipped in this chunk, duplicate-row and mixed-row-shapes of its rows.
  std::vector<Finding> readerFindings;
};

struct ChunkResult {
  LintReport report; // uncapped findings of the chunk and its summary
  long fullSequenceRows = 0;
  long microBatch = 0;
  AuditChunk audit; // lint --report: this micro-batch's counts and drawn rows
};

// What every chunk is linted with.
struct ChunkContext {
  const DatasetPipeline& pipeline;
  const DatasetLintOptions& options;
  DatasetFacts facts;
};

// The row through the template and tokenizer; a template that refuses it skips the row (row-skipped).
std::optional<TokenizedConversation> encodeRow(const DatasetPipeline& pipeline, const Conversation& c,
                                               FindingCollector& out) {
  try {
    return pipeline.encode(c);
  } catch (const std::exception& e) {
    const RowLocation at{c.sourceLine, c.sourceItem};
    Finding f = makeFinding("row-skipped", c.rowIndex, std::nullopt,
                            locationLabel(c.rowIndex, at) + ": the template or tokenizer refused it: " + e.what());
    locate(f, at);
    out.add(std::move(f));
    return std::nullopt;
  }
}

// Replies that keep_start truncation cuts away whole (they start past max_length): reply-truncated
// of the batch rules sees only the replies a row still holds, so these rows are named here.
void repliesCutAway(const CollatorSpec& spec, const Conversation& c, const TokenizedConversation& tc, int64_t length,
                    FindingCollector& out) {
  if (spec.truncation != Truncation::KeepStart || length <= spec.maxLength) return;
  const int64_t shift = length - int64_t(tc.tokens.size()); // tokens the collator puts before (add_bos)
  std::vector<int> whole;
  for (size_t i = 0; i < tc.tokens.size();) {
    if (!tc.tokens[i].inGeneration) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < tc.tokens.size() && tc.tokens[j].inGeneration) ++j;
    if (int64_t(i) + shift < spec.maxLength && int64_t(j) + shift > spec.maxLength) return; // cut inside: a row rule's
    if (int64_t(i) + shift >= spec.maxLength) whole.push_back(tc.tokens[i].messageIndex);
    i = j;
  }
  if (whole.empty()) return;
  std::string list;
  for (int m : whole) list += (list.empty() ? "" : ", ") + std::to_string(m);
  const RowLocation at{c.sourceLine, c.sourceItem};
  Finding f =
      makeFinding("reply-truncated", c.rowIndex, std::nullopt,
                  locationLabel(c.rowIndex, at) + ": the row is " + std::to_string(length) + " tokens and max_length " +
                      std::to_string(spec.maxLength) + " (truncation keep_start) cuts away the whole reply of message" +
                      (whole.size() > 1 ? "s " : " ") + list +
                      ": none of it is trained (TRL drops a row left with nothing graded)");
  locate(f, at);
  out.add(std::move(f));
}

// A micro-batch's findings in file order: each row's findings (and the lines skipped before it)
// together, batch-rule findings at their rows' lines; stable, so a row's own order is kept.
void sortByLine(std::vector<Finding>& findings) {
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    return a.line.value_or(LONG_MAX) < b.line.value_or(LONG_MAX);
  });
}

// Per row: content rules, then (when the template took it) the conversation and prefix checks and
// its length; the encodings that go on to the collator are returned.
std::vector<TokenizedConversation> lintRows(const ChunkContext& cx, const Chunk& chunk, RowLocations& locations,
                                            FindingCollector& out, LintReport& rep) {
  const CollatorSpec& spec = cx.pipeline.collator().spec();
  std::vector<TokenizedConversation> encoded;
  encoded.reserve(chunk.rows.size());
  for (const Conversation& c : chunk.rows) {
    const RowLocation at{c.sourceLine, c.sourceItem};
    locations.add(c.rowIndex, at);
    std::optional<TokenizedConversation> tc = encodeRow(cx.pipeline, c, out);
    runContentChecks(c, tc ? &*tc : nullptr, cx.facts, out);
    if (!tc) continue;
    const long before = rep.summary.findingsByRule["boundary-merge"];
    runConversationChecks(*tc, c.rowIndex, out, &c, at);
    if (c.rowIndex < cx.options.prefixCheckRows && rep.summary.findingsByRule["boundary-merge"] == before)
      runPrefixChecks(cx.pipeline.encoder(), cx.pipeline.renderOptions(), c, *tc, out);
    if (c.rowIndex < cx.options.prefixCheckRows) runTrainServeChecks(cx.pipeline, c, *tc, out);
    const int64_t len = int64_t(tc->tokens.size()) + (spec.addBos ? 1 : 0);
    rep.summary.addLength(len);
    if (spec.truncation != Truncation::None && len > spec.maxLength) ++rep.summary.rowsTruncated;
    repliesCutAway(spec, c, *tc, len, out);
    encoded.push_back(std::move(*tc));
  }
  return encoded;
}

// lint --report: the micro-batch's positions by kind, and the rows findings name for rules still
// short of drawn rows, each collated alone as the text report draws it.
void auditChunk(const ChunkContext& cx, const std::vector<TokenizedConversation>& encoded, const Batch* batch,
                const std::vector<Finding>& findings, AuditChunk& out) {
  const AuditCollector& audit = *cx.options.audit;
  if (batch) AuditCollector::countKinds(*batch, out.kinds);
  if (!audit.wantsRows(findings)) return;
  for (const Finding& f : findings) {
    if (!f.row || out.rows.count(*f.row) || !audit.wants(f.rule)) continue;
    auto it = std::find_if(encoded.begin(), encoded.end(),
                           [&](const TokenizedConversation& tc) { return tc.rowIndex == *f.row; });
    if (it == encoded.end()) continue; // refused by the template: the report shows its message only
    const Batch alone = cx.pipeline.collate({*it});
    out.rows.emplace(*f.row, AuditCollector::drawRow(alone, cx.pipeline.tokenizer()));
  }
}

ChunkResult lintChunk(const ChunkContext& cx, Chunk& chunk) {
  ChunkResult res;
  res.microBatch = chunk.microBatch;
  LintReport& rep = res.report;
  FindingCollector out(rep, -1);
  for (Finding& f : chunk.readerFindings) out.add(std::move(f));
  const CollatorSpec& spec = cx.pipeline.collator().spec();
  rep.summary.maxLength = spec.maxLength; // addLength() bins against it (length histogram, over_max_length)
  RowLocations locations;
  const std::vector<TokenizedConversation> encoded = lintRows(cx, chunk, locations, out, rep);
  std::optional<Batch> collated;
  if (!encoded.empty()) {
    const Batch& batch = collated.emplace(cx.pipeline.collate(encoded));
    BatchRuleOptions o;
    o.generation = cx.options.generation;
    o.attnImplementation = cx.options.attnImplementation;
    o.vocabSize = cx.pipeline.tokenizer().vocabSize();
    o.intent = labelIntentOf(spec);
    o.rolesKnown = true;
    o.datasetPositions = true;
    o.firstDatasetRow = chunk.rows.front().rowIndex;
    o.lastDatasetRow = chunk.rows.back().rowIndex;
    o.locations = &locations;
    const int64_t gradedBefore = rep.summary.graded;
    runBatchRules(batch, o, out, rep.summary, &res.fullSequenceRows);
    rep.summary.gradAccum.add(rep.summary.graded - gradedBefore);
  }
  locations.locateAll(rep.findings);
  sortByLine(rep.findings);
  if (cx.options.audit) auditChunk(cx, encoded, collated ? &*collated : nullptr, rep.findings, res.audit);
  return res;
}

// Worker threads lint chunks; their results are handed back in sequence order through a
// reorder buffer whose size is bounded, so memory stays bounded whatever the dataset size.
class ChunkPool {
public:
  ChunkPool(const ChunkContext& context, int workers) : context_(context), queueCap_(size_t(workers) * 4) {
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
        r = lintChunk(context_, c);
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

  const ChunkContext& context_;
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

// Rows the reader skipped since the last call (every one: taken as they come, so the reader's cap on
// kept errors does not apply), reported with the micro-batch being read by the shard that owns it,
// so merged shards report each once, in the unsharded order. Returns how many were taken.
long takeReaderErrors(DatasetReader& reader, bool mine, Chunk& chunk) {
  std::vector<RowError> errors = reader.takeErrors();
  if (mine)
    for (const RowError& e : errors) {
      const RowLocation at{e.line, e.item};
      Finding f = makeFinding("row-skipped", std::nullopt, std::nullopt,
                              (e.line >= 0 ? locationLabel(-1, at) + ": " : std::string()) + e.reason);
      locate(f, at);
      chunk.readerFindings.push_back(std::move(f));
    }
  return long(errors.size());
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
  DatasetRowChecks rowChecks;                              // sees every readable row in file order (all shards alike)
  auto lastProgress = std::chrono::steady_clock::now();
  Conversation c;
  for (;;) {
    const bool got = reader.next(c);
    // --rows A:B: rows the reader skipped count when they lie inside the range: after good row A
    // (or anywhere before it when A is 0) and before good row B.
    const long next = got ? c.rowIndex : reader.rowsRead(); // the index the skipped rows precede
    const bool skippedInRange = (next > opt.rowBegin || opt.rowBegin == 0) && (opt.rowEnd < 0 || next < opt.rowEnd);
    const long skipped = takeReaderErrors(reader, mine() && skippedInRange, chunk);
    if (mine() && skippedInRange && ranged) summary.rowsSkipped += skipped;
    if (!got || (opt.rowEnd >= 0 && c.rowIndex >= opt.rowEnd)) break;
    rowChecks.check(c, mine() && c.rowIndex >= opt.rowBegin, chunk.readerFindings);
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
  const DatasetPipeline pipeline(opt.pipeline);
  return lintDataset(dataSpec, opt, pipeline);
}

LintReport lintDataset(const std::string& dataSpec, const DatasetLintOptions& opt, const DatasetPipeline& pipeline) {
  if (opt.microBatchSize < 1) throw Error("--micro-batch must be at least 1");
  if (opt.shardCount < 1 || opt.shardIndex < 0 || opt.shardIndex >= opt.shardCount)
    throw Error("--shard K/N needs 0 <= K < N");
  DatasetReader reader(dataSpec);

  LintReport report;
  report.summary.input = "dataset";
  report.summary.maxLength = pipeline.collator().spec().maxLength;
  report.summary.gradAccum.microBatchSize = opt.microBatchSize;
  FindingCollector out(report, opt.maxFindings);
  if (opt.findingSink) out.setSink(opt.findingSink);
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
    if (opt.audit) opt.audit->reduce(r.audit, r.report.findings);
    for (Finding& f : r.report.findings) out.add(std::move(f));
    report.findingMicroBatch.resize(report.findings.size(), r.microBatch);
    if (r.report.summary.gradAccum.microBatches > 0 && report.microBatchIndex.size() < kMaxMicroBatchesKept)
      report.microBatchIndex.push_back(r.microBatch);
    LintSummary s = std::move(r.report.summary);
    // Findings were counted again by out.add(); drop the chunk's own counts before merging.
    s.errors = s.warnings = s.infos = 0;
    s.dataErrors = s.dataWarnings = s.dataInfos = 0;
    s.findingsShown = s.findingsOmitted = 0;
    s.findingsByRule.clear();
    report.summary.merge(s);
    fullRows += r.fullSequenceRows;
  };
  const int workers = std::max(1, opt.threads > 0 ? opt.threads : int(std::thread::hardware_concurrency()));
  {
    const ChunkContext context{pipeline, opt, datasetFactsOf(pipeline.encoder())};
    ChunkPool pool(context, workers); // its destructor stops the workers if reading throws
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
