// lintDataset(): lint a whole dataset streamed through a tokenizer, template and collator, micro-batch
// by micro-batch on worker threads (constant memory), optionally one shard of its micro-batches.
#pragma once
#include "core/collate/DatasetPipeline.h"
#include "core/lint/AuditReport.h"
#include "core/lint/LintReport.h"

#include <functional>
#include <string>

namespace maskscope {

struct DatasetLintOptions {
  PipelineSpec pipeline;  // tokenizer, template, collator
  int microBatchSize = 8; // rows collated and linted together (and the grad-accum unit)
  int threads = 0;        // worker threads; 0 = hardware concurrency
  bool generation = false;
  std::string attnImplementation; // --attn-implementation; empty: what each batch implies
  long maxFindings = 1000;        // -1: all
  // --shard K/N: this run lints the micro-batches with index % shardCount == shardIndex (whole
  // micro-batches, formed as the unsharded run forms them, so shard reports merge exactly).
  int shardIndex = 0, shardCount = 1;
  int prefixCheckRows = 16;                                 // rows that also get the render-prefix checks (costly)
  long rowBegin = 0, rowEnd = -1;                           // --rows A:B: dataset rows linted (-1: to the end)
  std::function<void(double fraction, long rows)> progress; // called from the reading thread
  // Sees every finding (none capped) in report order, as it is added (lint --findings-out).
  std::function<void(const Finding&)> findingSink;
  // lint --report: fills the audit report's bounded state (core/lint/AuditReport.h); null = none.
  AuditCollector* audit = nullptr;
};

// Streams the dataset (constant memory), lints every micro-batch on worker threads and reduces the
// results in dataset order. Throws Error when the dataset or pipeline cannot be loaded at all.
LintReport lintDataset(const std::string& dataSpec, const DatasetLintOptions& options);
// The same through a pipeline already loaded (options.pipeline is not read): the app's, or one per
// collator sharing a tokenizer (DatasetPipeline's sharing constructor).
LintReport lintDataset(const std::string& dataSpec, const DatasetLintOptions& options, const DatasetPipeline& pipeline);

} // namespace maskscope
