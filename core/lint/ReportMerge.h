// Shard reports of `maskscope lint --shard K/N --json` and their merge (`lint --merge`) into
// exactly the report an unsharded run gives: same findings in the same order, same summary.
#pragma once
#include "core/lint/LintReport.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace maskscope {

// Version tag of the "shard" object; a merge refuses reports with another one.
inline constexpr const char* kShardFormat = "maskscope-lint-shard/1";

// The report's JSON plus the top-level "shard" object a merge needs: index, count, the settings
// that must agree across shards, and the trace of where each finding and micro-batch sits in the
// whole dataset. settings: flat JSON object (strings, numbers, booleans).
nlohmann::json shardReportJson(const LintReport& report, int index, int count, const nlohmann::json& settings);

struct ShardFile {
  std::string path;    // named in every refusal
  nlohmann::json json; // the file's parsed content
};

struct MergedReport {
  LintReport report;
  nlohmann::json settings; // the shards' common settings (settings.source: the dataset)
};

// Merges the shard reports of one run. Throws Error naming the file when one is not a shard
// report (or from another maskscope), when settings differ, or when a shard is missing or repeated.
// Order of the merged findings (the unsharded order): template checks, then the micro-batches in
// dataset order (each in the linter's order: rows, then batch rules), then dataset-wide infos.
MergedReport mergeShardReports(const std::vector<ShardFile>& shards);

// Reads and parses one shard file (capped size); throws Error naming it when it is not JSON.
ShardFile readShardFile(const std::string& path);

} // namespace maskscope
