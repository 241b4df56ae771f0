// The lint report's JSON, both ways, in one place: the writer of the report `lint --json` prints
// (docs/cli.md, the `lint` JSON table) and of the shard report `lint --shard K/N --json` adds to it,
// and the reader that parses a shard report back for `lint --merge` (core/lint/ReportMerge.h).
#pragma once
#include "core/lint/LintReport.h"

#include <nlohmann/json.hpp>

#include <string>

namespace maskscope {

// Version tag of the "shard" object; a merge refuses reports with another one.
inline constexpr const char* kShardFormat = "maskscope-lint-shard/2";

nlohmann::json findingToJson(const Finding& f);
nlohmann::json summaryToJson(const LintSummary& s);
nlohmann::json reportToJson(const LintReport& report); // {"findings": [...], "summary": {...}}

// The report's JSON plus the top-level "shard" object a merge needs: index, count, the settings
// that must agree across shards, and the trace of where each finding and micro-batch sits in the
// whole dataset. settings: flat JSON object (strings, numbers, booleans).
nlohmann::json shardReportJson(const LintReport& report, int index, int count, const nlohmann::json& settings);

struct ShardFile {
  std::string path;    // named in every refusal
  nlohmann::json json; // the file's parsed content
};

// A shard report read back: everything shardReportJson() wrote, so that writing it again gives
// the same bytes (tests/lint/tst_lint_merge.cpp checks it).
struct ShardReport {
  std::string path;
  int index = 0, count = 0;
  nlohmann::json settings;
  LintReport report; // findings with their micro-batch trace, the summary with its raw minima
};

// Parses a shard report. Throws Error naming the file when it is not one (or comes from another
// maskscope: an unknown summary field or shard format).
ShardReport shardReportFromJson(const ShardFile& file);

// Reads and parses one shard file (capped size); throws Error naming it when it is not JSON.
ShardFile readShardFile(const std::string& path);

} // namespace maskscope
