// `lint --merge`: shard reports of `maskscope lint --shard K/N --json` (read by ReportJson.h)
// merged into exactly the report an unsharded run gives: same findings in the same order, same summary.
#pragma once
#include "core/lint/LintReport.h"
#include "core/lint/ReportJson.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace maskscope {

struct MergedReport {
  LintReport report;
  nlohmann::json settings; // the shards' common settings (settings.source: the dataset)
};

// Merges the shard reports of one run. Throws Error naming the file when one is not a shard
// report (or from another maskscope), when settings differ, or when a shard is missing or repeated.
// Order of the merged findings (the unsharded order): template checks, then the micro-batches in
// dataset order (each in the linter's order: rows, then batch rules), then dataset-wide infos.
MergedReport mergeShardReports(const std::vector<ShardFile>& shards);

} // namespace maskscope
