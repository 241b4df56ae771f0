// The upstream-test replays of tests/data/frameworks/<framework>/cases.json (written by
// tools/frameworks/<framework>_goldens.py): each case names the upstream test it replays, the
// tokenizer (from the cache, or none), the spec, the rows file, the stage and what to expect. The
// case runs through `maskscope collate` (runCollate, as the command line calls it) and its stdout is
// compared with the expectation: the batch's keys (exact values), or prepared rows (given columns,
// row counts, per-row checks), or an error (exit 2 with the message).
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace maskscope::testing {

struct CaseRun {
  int status = 0;
  std::string out, err;
};

// The cases of cases.json in dir, in file order.
std::vector<nlohmann::ordered_json> loadCases(const std::string& dir);
// Runs one case's command (the tokenizer from MASKSCOPE_TOKENIZER_CACHE when the case names one).
CaseRun runCase(const nlohmann::ordered_json& c, const std::string& dir);
// Empty when the run matches the case's "expect"; else what differs, for the failure message.
std::string checkCase(const nlohmann::ordered_json& c, const CaseRun& run);

} // namespace maskscope::testing
