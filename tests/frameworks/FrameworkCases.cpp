// Runs and checks the framework golden cases (FrameworkCases.h).
#include "tests/frameworks/FrameworkCases.h"

#include "core/commands/CollateCommand.h"

#include <fstream>
#include <sstream>

namespace maskscope::testing {

using J = nlohmann::ordered_json;

std::vector<J> loadCases(const std::string& dir) {
  std::ifstream f(dir + "/cases.json");
  const J all = J::parse(f);
  return std::vector<J>(all.begin(), all.end());
}

CaseRun runCase(const J& c, const std::string& dir) {
  BatchInputs in;
  in.dataSpec = dir + "/" + c["data"].get<std::string>();
  if (c.contains("tokenizer") && c["tokenizer"].is_string())
    in.tokenizerSpec = std::string(MASKSCOPE_TOKENIZER_CACHE) + "/" + c["tokenizer"].get<std::string>();
  in.collatorSpec = c["spec"].dump(); // an inline JSON object, as --collator '{...}'
  CollateTableOptions table;
  table.stage = c["stage"].get<std::string>();
  std::ostringstream out, err;
  CommandIO io{out, err, true};
  CaseRun run;
  run.status = runCommand(io, [&] { return runCollate(in, io, table); });
  run.out = out.str();
  run.err = err.str();
  return run;
}

namespace {

std::vector<J> jsonLines(const std::string& text) {
  std::vector<J> rows;
  std::istringstream s(text);
  for (std::string line; std::getline(s, line);)
    if (!line.empty()) rows.push_back(J::parse(line));
  return rows;
}

std::string shown(const J& v) {
  std::string s = v.dump();
  return s.size() > 300 ? s.substr(0, 300) + "..." : s;
}

// Prepared rows: a list of per-row column values, or {"rows", "same_length", "seq_lens_sum", "values"}.
std::string checkPrepared(const J& expect, const std::vector<J>& rows) {
  if (expect.is_array()) {
    if (rows.size() != expect.size())
      return "got " + std::to_string(rows.size()) + " rows, expected " + std::to_string(expect.size());
    for (size_t r = 0; r < rows.size(); ++r)
      for (const auto& [k, v] : expect[r].items())
        if (rows[r].value(k, J()) != v)
          return "row " + std::to_string(r) + " " + k + ": got " + shown(rows[r].value(k, J())) + ", expected " +
                 shown(v);
    return {};
  }
  if (expect.contains("rows") && rows.size() != expect["rows"].get<size_t>())
    return "got " + std::to_string(rows.size()) + " rows, expected " + expect["rows"].dump();
  for (size_t r = 0; r < rows.size(); ++r) {
    if (expect.contains("same_length"))
      for (const auto& k : expect["same_length"])
        if (rows[r][k.get<std::string>()].size() != rows[r][expect["same_length"][0].get<std::string>()].size())
          return "row " + std::to_string(r) + ": columns of different lengths";
    if (expect.contains("seq_lens_sum")) {
      int64_t sum = 0;
      for (const auto& n : rows[r]["seq_lens"]) sum += n.get<int64_t>();
      if (sum != expect["seq_lens_sum"].get<int64_t>())
        return "row " + std::to_string(r) + ": seq_lens sum to " + std::to_string(sum);
    }
  }
  for (const J& v : expect.value("values", J::array())) {
    int64_t r = v["row"].get<int64_t>();
    if (r < 0) r += int64_t(rows.size());
    if (r < 0 || r >= int64_t(rows.size())) return "no row " + v["row"].dump();
    J got = rows[size_t(r)].value(v["key"].get<std::string>(), J());
    if (v.contains("at")) {
      int64_t a = v["at"].get<int64_t>();
      if (a < 0) a += int64_t(got.size());
      got = a >= 0 && a < int64_t(got.size()) ? got[size_t(a)] : J();
    }
    if (got != v["equals"])
      return "row " + std::to_string(r) + " " + v["key"].get<std::string>() + ": got " + shown(got) + ", expected " +
             shown(v["equals"]);
  }
  return {};
}

} // namespace

std::string checkCase(const J& c, const CaseRun& run) {
  const J& expect = c["expect"];
  if (expect.is_object() && expect.contains("error")) {
    if (run.status != 2) return "exit status " + std::to_string(run.status) + ", expected 2";
    if (run.err.find(expect["error"].get<std::string>()) == std::string::npos)
      return "stderr lacks the error: " + run.err;
    return {};
  }
  if (run.status != 0) return "exit status " + std::to_string(run.status) + ": " + run.err;
  if (c["stage"] == "prepared") return checkPrepared(expect, jsonLines(run.out));
  const std::vector<J> lines = jsonLines(run.out);
  if (lines.size() != 1) return "stdout is not one JSON object";
  for (const auto& [k, v] : expect.items())
    if (lines[0].value(k, J()) != v) return k + ": got " + shown(lines[0].value(k, J())) + ", expected " + shown(v);
  return {};
}

} // namespace maskscope::testing
