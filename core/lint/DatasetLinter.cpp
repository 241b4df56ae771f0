// lintDataset(): the reading thread streams rows into micro-batches; worker threads encode,
// collate and lint them; results are reduced in dataset order through a small reorder buffer, so
// memory stays bounded by (workers + queue) micro-batches whatever the dataset size.
#include "core/lint/BatchRules.h"
#include "core/lint/Lint.h"
#include "core/lint/RoleRecovery.h"
#include "core/lint/TemplateChecks.h"
#include "core/util/Error.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

namespace maskscope {

namespace {

struct Chunk {
  long seq = 0;
  std::vector<Conversation> rows;
  std::vector<Finding> readerFindings; // rows skipped while reading this chunk
};

struct ChunkResult {
  LintReport report; // uncapped findings of the chunk and its summary
  long fullSequenceRows = 0;
};

ChunkResult lintChunk(const DatasetPipeline& pipeline, const DatasetLintOptions& opt, Chunk& chunk) {
  ChunkResult res;
  LintReport& rep = res.report;
  FindingCollector out(rep, -1);
  for (Finding& f : chunk.readerFindings) out.add(std::move(f));
  std::vector<TokenizedConversation> encoded;
  encoded.reserve(chunk.rows.size());
  const CollatorSpec& spec = pipeline.collator().spec();
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
    runConversationChecks(tc, c.rowIndex, out);
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
  const int64_t gradedBefore = rep.summary.graded;
  runBatchRules(batch, o, out, rep.summary, &res.fullSequenceRows);
  const int64_t g = rep.summary.graded - gradedBefore;
  rep.summary.gradAccum.add(g);
  if (g == 0)
    out.add("batch-nothing-graded", chunk.rows.front().rowIndex, std::nullopt,
            "the micro-batch of rows " + std::to_string(chunk.rows.front().rowIndex) + ".." +
                std::to_string(chunk.rows.back().rowIndex) + " has no graded position: its mean loss is 0/0 (NaN)");
  return res;
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
  // Template-level checks once (shard 0 only, so merged shards count them once).
  if (opt.shardIndex == 0) {
    RoleMarkers markers = learnRoleMarkers(pipeline.encoder(), pipeline.renderOptions());
    runTemplateChecks(pipeline.encoder(), pipeline.renderOptions(), markers, &pipeline.collator().spec(), out);
  }

  const int workers = std::max(1, opt.threads > 0 ? opt.threads : int(std::thread::hardware_concurrency()));
  const size_t queueCap = size_t(workers) * 4;
  std::mutex mu;
  std::condition_variable cvWork, cvSpace, cvDone;
  std::deque<Chunk> queue;
  std::map<long, ChunkResult> done;
  bool finished = false;
  std::exception_ptr failure;

  auto worker = [&] {
    for (;;) {
      Chunk c;
      {
        std::unique_lock lk(mu);
        cvWork.wait(lk, [&] { return !queue.empty() || finished; });
        if (queue.empty()) return;
        c = std::move(queue.front());
        queue.pop_front();
      }
      cvSpace.notify_one();
      ChunkResult r;
      try {
        r = lintChunk(pipeline, opt, c);
      } catch (...) {
        std::lock_guard lk(mu);
        if (!failure) failure = std::current_exception();
      }
      {
        std::lock_guard lk(mu);
        done.emplace(c.seq, std::move(r));
      }
      cvDone.notify_all();
    }
  };
  std::vector<std::thread> pool;
  for (int i = 0; i < workers; ++i) pool.emplace_back(worker);

  long nextToReduce = 0, fullRows = 0;
  auto reduceReady = [&](bool all, long produced) {
    std::unique_lock lk(mu);
    for (;;) {
      auto it = done.find(nextToReduce);
      if (it == done.end()) {
        if (all && nextToReduce < produced) {
          cvDone.wait(lk);
          continue;
        }
        // Bound the reorder buffer: wait while too many results are ahead of the next one.
        if (!all && done.size() >= queueCap * 2) {
          cvDone.wait(lk);
          continue;
        }
        return;
      }
      ChunkResult r = std::move(it->second);
      done.erase(it);
      lk.unlock();
      for (Finding& f : r.report.findings) out.add(std::move(f));
      LintSummary s = std::move(r.report.summary);
      // Findings were counted again by out.add(); drop the chunk's own counts before merging.
      s.errors = s.warnings = s.infos = 0;
      s.findingsShown = s.findingsOmitted = 0;
      s.findingsByRule.clear();
      report.summary.merge(s);
      fullRows += r.fullSequenceRows;
      ++nextToReduce;
      lk.lock();
    }
  };

  long seq = 0;
  Chunk chunk;
  size_t errorsSeen = 0;
  auto lastProgress = std::chrono::steady_clock::now();
  auto push = [&] {
    chunk.seq = seq++;
    {
      std::unique_lock lk(mu);
      cvSpace.wait(lk, [&] { return queue.size() < queueCap; });
      queue.push_back(std::move(chunk));
    }
    cvWork.notify_one();
    chunk = Chunk{};
    reduceReady(false, seq);
  };
  Conversation c;
  try {
    for (;;) {
      const bool got = reader.next(c);
      // Rows skipped while reading: shard 0 reports them, in order.
      while (errorsSeen < reader.errors().size()) {
        const RowError& e = reader.errors()[errorsSeen++];
        if (opt.shardIndex != 0) continue;
        Finding f{"row-skipped", Severity::Warning, std::nullopt, std::nullopt, e.toString(), std::nullopt};
        if (e.line >= 0) f.line = e.line;
        chunk.readerFindings.push_back(std::move(f));
      }
      if (!got) break;
      if (c.rowIndex % opt.shardCount != opt.shardIndex) continue;
      ++report.summary.rowsRead;
      chunk.rows.push_back(std::move(c));
      c = Conversation{};
      if (int(chunk.rows.size()) >= opt.microBatchSize) push();
      if (opt.progress) {
        auto now = std::chrono::steady_clock::now();
        if (now - lastProgress > std::chrono::milliseconds(200)) {
          lastProgress = now;
          opt.progress(reader.progress(), report.summary.rowsRead);
        }
      }
    }
    if (!chunk.rows.empty() || !chunk.readerFindings.empty()) push();
  } catch (...) {
    {
      std::lock_guard lk(mu);
      finished = true;
    }
    cvWork.notify_all();
    for (auto& t : pool) t.join();
    throw;
  }
  {
    std::lock_guard lk(mu);
    finished = true;
  }
  cvWork.notify_all();
  reduceReady(true, seq);
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  if (opt.shardIndex == 0) report.summary.rowsSkipped = reader.rowsSkipped();
  addFullSequenceInfo(out, fullRows);
  if (opt.progress) opt.progress(1.0, report.summary.rowsRead);
  return report;
}

} // namespace maskscope
