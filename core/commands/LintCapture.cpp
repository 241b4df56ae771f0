// `maskscope lint CAPTURE_DIR`: each batch of a capture folder linted exactly as `lint BATCH_FILE
// --tokenizer T --template P` lints it, with T and P from the manifest unless given (the batch files
// carry the trainer's special-token ids); the output names the trainer, collator and versions, then
// gives each batch's report.
#include "core/commands/CaptureInputs.h"
#include "core/commands/LintCommand.h"
#include "core/util/Error.h"
#include "core/util/JsonString.h"

#include <filesystem>
#include <map>
#include <sstream>

namespace maskscope {

namespace {

void refuseForCapture(const LintArgs& a) {
  auto no = [&](bool given, const std::string& what) {
    if (given)
      throw Error(what + " does not apply to a capture folder (" + a.input +
                  "): its batches are linted whole, one report each");
  };
  no(!a.shard.empty(), "--shard");
  no(a.rowBegin > 0 || a.rowEnd >= 0, "--rows");
  no(!a.reportPath.empty(), "--report (the audit report of a dataset)");
  no(!a.findingsOut.empty(), "--findings-out (lint each batch file of the folder to write one table per batch)");
}

// Sums the per-batch summaries into the capture's: counts add up, findings_by_rule merges.
void addSummary(nlohmann::json& total, const nlohmann::json& s) {
  for (const char* key : {"rows", "errors", "warnings", "infos"}) total[key] = total.value(key, 0L) + s.value(key, 0L);
  if (s.contains("findings_by_rule") && s["findings_by_rule"].is_object())
    for (const auto& [rule, n] : s["findings_by_rule"].items())
      total["findings_by_rule"][rule] = total["findings_by_rule"].value(rule, 0L) + n.get<long>();
}

} // namespace

int runLintCapture(const LintArgs& a, CommandIO& io) {
  refuseForCapture(a);
  const CaptureManifest m = readCaptureManifest(a.input);
  std::string tokenizerGiven = a.tokenizerSpec;
  if (tokenizerGiven.empty() && !a.modelSpec.empty()) tokenizerGiven = a.modelSpec;
  const CaptureChoice c = captureChoice(m, tokenizerGiven, a.templateSpec, a.padId);
  nlohmann::json batches = nlohmann::json::array(), findings = nlohmann::json::array();
  nlohmann::json total = {{"input", "capture"}, {"source", a.input}, {"batches", m.batchFiles.size()}};
  total["findings_by_rule"] = nlohmann::json::object();
  if (!io.json) io.out << captureText(m, c);
  int status = 0;
  for (const std::string& file : m.batchFiles) {
    LintArgs one = a;
    one.input = file;
    one.tokenizerSpec = c.tokenizerSpec;
    one.templateSpec = c.templateSpec;
    one.modelSpec.clear(); // its tokenizer, when it gave one, is c.tokenizerSpec already
    const std::string name = std::filesystem::path(file).filename().string();
    std::ostringstream out;
    CommandIO sub{out, io.err, io.json, io.colour};
    status = std::max(status, runLint(one, sub));
    if (!io.json) {
      io.out << "\n== " << name << " ==\n" << out.str();
      continue;
    }
    nlohmann::json report = nlohmann::json::parse(out.str()); // our own output, one line
    for (nlohmann::json f : report["findings"]) {
      f["batch"] = name;
      findings.push_back(std::move(f));
    }
    addSummary(total, report["summary"]);
    report["file"] = name;
    batches.push_back(std::move(report));
  }
  if (io.json) {
    nlohmann::json j = {{"capture", captureJson(m, c)}, {"findings", findings}, {"summary", total}};
    j["batches"] = batches;
    io.out << escapeLineSeparators(j.dump()) << "\n";
  }
  return status;
}

} // namespace maskscope
