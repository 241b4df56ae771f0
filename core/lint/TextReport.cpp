// The terminal report: findings one a line, the first offending rows drawn token by token (graded
// green, ignored plain, padding dim, the flagged position inverted), then the summary.
#include "core/lint/TextReport.h"
#include "core/mask/RowFacts.h"
#include "core/table/GradedText.h"
#include "core/util/JsonString.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

namespace maskscope {

namespace {

const char* kReset = "\x1b[0m";
const char* kRed = "\x1b[31m";
const char* kYellow = "\x1b[33m";
const char* kGreen = "\x1b[32m";
const char* kDim = "\x1b[2m";
const char* kBlue = "\x1b[34m";
const char* kInverse = "\x1b[7m";
const char* kBold = "\x1b[1m";

const char* severityColour(Severity s) {
  return s == Severity::Error ? kRed : s == Severity::Warning ? kYellow : kBlue;
}

// One row drawn token by token: graded green, ignored plain, padding dim, the flagged position
// inverted. Without colour: [graded] tokens in brackets, pads as '·', flagged as >>token<<.
void drawRow(std::ostream& os, const Batch& b, int64_t r, int64_t flagged, const Tokenizer* tok, bool colour) {
  const int64_t T = b.length();
  int64_t lo = 0, hi = T;
  if (T > 96) {
    lo = std::max<int64_t>(0, (flagged >= 0 ? flagged : 0) - 48);
    hi = std::min<int64_t>(T, lo + 96);
  }
  std::string line = "    ";
  if (lo > 0) line += "… ";
  const bool haveMeta = size_t(r) < b.meta.size() && int64_t(b.meta[size_t(r)].size()) == T;
  for (int64_t t = lo; t < hi; ++t) {
    const int64_t id = b.inputIds.at(r, t);
    std::string text =
        tok && id >= 0 && id < tok->vocabSize() ? tok->displayText(int32_t(id)) : "#" + std::to_string(id);
    std::string shown;
    for (char c : text) shown += c == '\n' ? std::string("\\n") : std::string(1, c);
    const bool graded = gradedAt(b, r, t);
    const bool pad = haveMeta ? b.meta[size_t(r)][size_t(t)].kind == PositionKind::Padding
                              : (b.attentionMask.sameShape(b.inputIds) && b.attentionMask.at(r, t) == 0);
    if (colour) {
      std::string style = pad ? kDim : graded ? kGreen : "";
      if (t == flagged) style += kInverse;
      line += style + shown + (style.empty() ? "" : kReset);
    } else {
      std::string s = pad ? "·" : shown;
      if (graded) s = "[" + s + "]";
      if (t == flagged) s = ">>" + s + "<<";
      line += s;
    }
    line += colour ? "" : " ";
  }
  if (hi < T) line += " …";
  os << line << "\n";
}

void printSummary(std::ostream& os, const LintSummary& s, bool colour) {
  auto pct = [](int64_t a, int64_t b) {
    if (b <= 0) return std::string("-");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * double(a) / double(b));
    return std::string(buf);
  };
  // A dump's rows may each hold several packed examples: the counts below are per example, and the
  // line says so rather than call the examples rows.
  const bool dataset = s.input == "dataset";
  const bool packed = s.batchRows > 0 && s.batchRows != s.rows;
  const char* unit = dataset || !packed ? "rows" : "examples";
  os << "\n" << (colour ? kBold : "") << "summary" << (colour ? kReset : "") << ": " << s.rows << " " << unit;
  if (dataset) os << " linted (" << s.rowsRead << " read, " << s.rowsSkipped << " skipped)";
  if (packed) os << " in " << s.batchRows << " batch row" << (s.batchRows == 1 ? "" : "s");
  os << "; " << s.errors << " errors, " << s.warnings << " warnings, " << s.infos << " infos";
  if (s.findingsOmitted > 0) os << " (" << s.findingsOmitted << " findings not listed)";
  os << "\n  graded: " << s.graded << " positions, " << pct(s.graded - s.gradedPadding, s.realPositions)
     << " of the real tokens; of the graded: reply " << pct(s.gradedReply, s.graded) << ", prompt "
     << pct(s.gradedPrompt, s.graded) << ", padding " << pct(s.gradedPadding, s.graded);
  if (s.gradedUnknown > 0) os << ", role unknown " << pct(s.gradedUnknown, s.graded);
  os << "\n  " << unit << " with nothing graded: " << s.rowsNothingGraded
     << "; padding: " << pct(s.paddingPositions, s.positions) << " of positions\n";
  if (s.rows > 0)
    os << "  length: min " << std::max<int64_t>(0, s.lengthMin) << ", mean " << s.lengthSum / std::max<long>(1, s.rows)
       << ", max " << s.lengthMax << (s.maxLength > 0 ? ", max_length " + std::to_string(s.maxLength) : "")
       << (s.rowsOverMaxLength > 0 ? " (" + std::to_string(s.rowsOverMaxLength) + " rows longer)" : "") << "\n";
  const GradAccumStats::Weights w = s.gradAccum.weights();
  if (w.maxTokenRatio) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "  gradient accumulation (micro-batch %d): averaging micro-batch means weights tokens %.2fx..%.2fx "
                  "of the token-weighted mean; %.1f%% of the weight is misplaced\n",
                  s.gradAccum.microBatchSize, *w.minTokenRatio, *w.maxTokenRatio, 100.0 * *w.misallocation);
    os << buf;
  }
  if (!s.rulesNotRun.empty()) {
    os << "  rules not run:";
    for (const auto& r : s.rulesNotRun) os << " " << r;
    os << "\n";
  }
}

std::string counted(long n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); }

// Findings grouped by scope, data first (what a contributor fixes in the rows), each group in
// report order (template checks, then the rows in file order, then dataset-wide infos).
void printFindings(std::ostream& os, const LintReport& report, const TextReportOptions& o) {
  const bool c = o.colour;
  const LintSummary& s = report.summary;
  os << (c ? kBold : "") << "maskscope lint" << (c ? kReset : "") << " " << o.source << " (" << s.input
     << (o.shard.empty() ? "" : ", shard " + o.shard) << ")\n";
  if (report.findings.empty()) os << "  no findings\n";
  const size_t listed = std::min(report.findings.size(), o.maxListed);
  for (const Scope scope : {Scope::Data, Scope::Settings}) {
    const bool data = scope == Scope::Data;
    const long errors = data ? s.dataErrors : s.errors - s.dataErrors;
    const long warnings = data ? s.dataWarnings : s.warnings - s.dataWarnings;
    const long infos = data ? s.dataInfos : s.infos - s.dataInfos;
    if (errors + warnings + infos == 0) continue;
    os << (c ? kBold : "") << (data ? "data (fix the rows)" : "settings (template, tokenizer, collator, trainer)")
       << (c ? kReset : "") << ": " << counted(errors, "error") << ", " << counted(warnings, "warning")
       << (infos ? ", " + counted(infos, "info") : "") << "\n";
    for (size_t i = 0; i < listed; ++i) {
      const Finding& f = report.findings[i];
      if (f.scope != scope) continue;
      const std::string sev = severityName(f.severity);
      os << "  " << (c ? severityColour(f.severity) : "") << sev << (c ? kReset : "")
         << std::string(8 - sev.size(), ' ') << (c ? kBold : "") << f.rule << (c ? kReset : "")
         << std::string(f.rule.size() < 32 ? 32 - f.rule.size() : 1, ' ') << f.message << "\n";
    }
  }
  if (report.findings.size() > listed)
    os << "  … " << report.findings.size() - listed << " more (--max-findings N, --findings-out FILE, or --json)\n";
}

// Token view of the first offending rows (up to showRows), like a trainer's debug print.
void printOffendingRows(std::ostream& os, const LintReport& report, const TextReportOptions& o) {
  const bool c = o.colour;
  std::map<int64_t, std::pair<int64_t, std::vector<std::string>>> rows; // row -> (flagged position, rules)
  std::map<int64_t, std::string> where;                                 // row -> "line L (row N)"
  for (const Finding& f : report.findings) {
    if (!f.row || f.severity == Severity::Info) continue;
    if (!rows.count(*f.row) && int(rows.size()) >= o.showRows) continue;
    auto& e = rows[*f.row];
    if (e.second.empty()) e.first = f.position ? *f.position : -1;
    if (std::find(e.second.begin(), e.second.end(), f.rule) == e.second.end()) e.second.push_back(f.rule);
    if (f.line && !where.count(*f.row))
      where[*f.row] = (f.item ? "item " + std::to_string(*f.item) + ", " : std::string()) + "line " +
                      std::to_string(*f.line) + " (row " + std::to_string(*f.row) + ")";
  }
  if (!rows.empty())
    os << "\n"
       << (c ? std::string(kGreen) + "graded" + kReset + " / ignored / " + kDim + "padding" + kReset + " / " +
                   kInverse + "flagged" + kReset
             : std::string("[graded] / ignored / · padding / >>flagged<<"))
       << "\n";
  for (const auto& [row, e] : rows) {
    std::string names;
    for (const auto& n : e.second) names += (names.empty() ? "" : ", ") + n;
    os << "  " << (where.count(row) ? where[row] : "row " + std::to_string(row)) << " [" << names << "]\n";
    if (!o.rowView) continue;
    try {
      if (const std::optional<RowView> v = o.rowView(row)) {
        drawRow(os, *v->batch, v->row, e.first, v->tokenizer, c);
        // "Verify one batch": what the loss reads in this row (core/mask's gradedText, decoded).
        os << "    graded text: " << quotedGradedText(gradedTextOfRow(*v->batch, v->row, v->tokenizer)) << "\n";
      }
    } catch (const std::exception& ex) {
      os << "    (cannot draw: " << ex.what() << ")\n";
    }
  }
}

} // namespace

std::vector<int64_t> offendingRows(const LintReport& report, int limit) {
  std::vector<int64_t> rows;
  for (const Finding& f : report.findings) {
    if (!f.row || f.severity == Severity::Info || std::find(rows.begin(), rows.end(), *f.row) != rows.end()) continue;
    if (int(rows.size()) >= limit) break;
    rows.push_back(*f.row);
  }
  return rows;
}

void writeTextReport(std::ostream& os, const LintReport& report, const TextReportOptions& options) {
  printFindings(os, report, options);
  printOffendingRows(os, report, options);
  printSummary(os, report.summary, options.colour);
  if (!report.findings.empty()) os << "\nrun `maskscope lint --explain RULE` for what a rule means and how to fix it\n";
}

} // namespace maskscope
