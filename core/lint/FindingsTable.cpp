// The findings table (see FindingsTable.h). TSV fields carry no tab or line break (each becomes a
// space); CSV quotes every field that needs it (RFC 4180); JSONL is one object per finding.
#include "core/lint/FindingsTable.h"
#include "core/util/Error.h"
#include "core/util/JsonString.h"

#include <nlohmann/json.hpp>

namespace maskscope {

namespace {

constexpr const char* kColumns[] = {"line", "rule", "severity", "scope", "message", "fix"};

std::string tsvField(std::string s) {
  for (char& c : s)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return s;
}

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

} // namespace

FindingsFormat findingsFormatOf(const std::string& path) {
  if (path.ends_with(".tsv")) return FindingsFormat::Tsv;
  if (path.ends_with(".csv")) return FindingsFormat::Csv;
  if (path.ends_with(".jsonl")) return FindingsFormat::Jsonl;
  throw Error("--findings-out: the file must end in .tsv, .csv or .jsonl", {path});
}

FindingsTableWriter::FindingsTableWriter(std::ostream& out, FindingsFormat format) : out_(out), format_(format) {
  if (format_ == FindingsFormat::Jsonl) return;
  const char sep = format_ == FindingsFormat::Tsv ? '\t' : ',';
  for (size_t i = 0; i < std::size(kColumns); ++i) out_ << (i ? std::string(1, sep) : "") << kColumns[i];
  out_ << "\n";
}

void FindingsTableWriter::write(const Finding& f) {
  const RuleInfo* info = findRule(f.rule);
  const std::string fix = info ? std::string(ruleFix(*info)) : std::string();
  const std::string line = f.line ? std::to_string(*f.line) : std::string();
  if (format_ == FindingsFormat::Jsonl) {
    nlohmann::json j;
    j["line"] = f.line ? nlohmann::json(*f.line) : nlohmann::json(nullptr);
    j["rule"] = f.rule;
    j["severity"] = severityName(f.severity);
    j["scope"] = scopeName(f.scope);
    j["message"] = f.message;
    j["fix"] = fix;
    if (f.item) j["item"] = *f.item;
    out_ << escapeLineSeparators(j.dump()) << "\n";
  } else {
    const bool tsv = format_ == FindingsFormat::Tsv;
    const std::string fields[] = {line, f.rule, severityName(f.severity), scopeName(f.scope), f.message, fix};
    for (size_t i = 0; i < std::size(fields); ++i)
      out_ << (i ? (tsv ? "\t" : ",") : "") << (tsv ? tsvField(fields[i]) : csvField(fields[i]));
    out_ << "\n";
  }
  ++written_;
}

} // namespace maskscope
