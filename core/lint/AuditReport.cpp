// The audit page: one self-contained HTML file (inline CSS and SVG, no script, no external URL).
// Every number comes from the lint summary or the collector's counts; every dataset text is escaped.
#include "core/lint/AuditReport.h"
#include "core/lint/AuditHtml.h"
#include "core/lint/LintRegistry.h"

#include <algorithm>
#include <cstdio>
#include <iterator>

namespace maskscope {

namespace {

constexpr long kAuditListedPerRule = 5000; // findings of one rule listed as lines (the rest counted, not listed)

const char* kStyle =
    "body{font-family:'DejaVu Sans',system-ui,sans-serif;margin:24px;color:#1a1a1a;background:#fff;max-width:1200px}"
    "h1{font-size:22px;margin:0 0 8px}h2{font-size:18px;border-bottom:1px solid "
    "#ddd;padding-bottom:4px;margin-top:28px}"
    "h3{font-size:15px;margin:18px 0 4px}table{border-collapse:collapse;margin:6px 0}"
    "td,th{border:1px solid #ccc;padding:3px "
    "10px;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}"
    ".verdict{display:inline-block;padding:6px 16px;border-radius:4px;font-weight:bold;font-size:20px;color:#fff}"
    ".accept{background:#1a7f37}.review{background:#9a6700}.reject{background:#c62828}"
    ".sev-error{color:#c62828;font-weight:bold}.sev-warning{color:#9a6700;font-weight:bold}.sev-info{color:#0b5cad}"
    ".expl{max-width:900px}.fix{border-left:4px solid #1a7f37;padding-left:8px;max-width:900px}"
    ".where{font-family:monospace;margin:10px 0 2px}.msg{color:#444;margin:0 0 4px}"
    ".strip{display:flex;flex-wrap:wrap;gap:3px;margin:4px 0 10px}"
    ".chip{border:1px dashed #999;padding:2px 4px;font-family:'DejaVu Sans Mono',monospace;font-size:12px;"
    "white-space:pre}.chip small{display:block;color:#555;font-size:10px}"
    ".graded{border:2px solid #1a7f37}.flagged{outline:3px solid #c62828;outline-offset:1px}"
    ".pad{background:repeating-linear-gradient(45deg,#e4e4e4,#e4e4e4 4px,#fff 4px,#fff 8px);color:#777}"
    ".pad.graded{border-color:#c62828}.fold{font-style:italic}"
    ".system{background:#ece4f7}.user{background:#dcebf8}.assistant{background:#dcf3e2}.think{background:#fbefd4}"
    ".template{background:#eeeeee}.tool{background:#f8e2ee}.separator{background:#fff3b0}"
    ".hist .bar{fill:#4a7fb5}.hist .ht{font-size:13px;font-weight:bold}.hist .hc,.hist .hl{font-size:11px}"
    ".all-findings summary{cursor:pointer;margin:4px 0}.omitted{color:#c62828}"
    ".hist .axis{stroke:#333}.charts{display:flex;flex-wrap:wrap;gap:24px}footer{margin-top:32px;color:#333}"
    "code{background:#f4f4f4;padding:1px 3px}";

std::string pct(int64_t a, int64_t b) {
  if (b <= 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * double(a) / double(b));
  return buf;
}

std::string num(int64_t n) { return std::to_string(n); }

std::string row2(const std::string& name, const std::string& value) {
  return "<tr><th>" + name + "</th><td class=\"n\">" + value + "</td></tr>\n";
}

std::string textRow(const std::string& name, const std::string& value) {
  return "<tr><th>" + name + "</th><td>" + value + "</td></tr>\n";
}

std::string anchor(std::string_view rule) { return "rule-" + htmlEscape(rule); }

std::string verdictWhy(const std::string& v, const LintSummary& s, const std::string& failOn) {
  if (v == "accept") return "no error and no warning";
  if (v == "review") return num(s.warnings) + " warning(s) to review, no error";
  if (s.rows == 0) return "no row could be linted";
  return num(s.errors) + " error(s)" +
         (failOn == "warning" ? ", " + num(s.warnings) + " warning(s) (--fail-on warning)" : "");
}

void writeTop(std::ostream& os, const LintReport& report, const AuditSettings& st) {
  const LintSummary& s = report.summary;
  const std::string v = auditVerdict(s, st.failOn);
  os << "<h1>Dataset audit: " << htmlEscape(st.source) << "</h1>\n<p><span class=\"verdict " << v
     << "\" id=\"verdict\">" << v << "</span> " << htmlEscape(verdictWhy(v, s, st.failOn))
     << "</p>\n<table id=\"counts\">\n"
     << row2("rows linted", num(s.rows)) << row2("rows read", num(s.rowsRead))
     << row2("rows skipped (unreadable)", num(s.rowsSkipped)) << row2("errors", num(s.errors))
     << row2("warnings", num(s.warnings)) << row2("infos", num(s.infos))
     << row2("findings in the rows (data)", num(s.dataErrors + s.dataWarnings + s.dataInfos))
     << row2("findings in the settings",
             num(s.errors + s.warnings + s.infos - s.dataErrors - s.dataWarnings - s.dataInfos))
     << row2("positions (real / padding)", num(s.realPositions) + " / " + num(s.paddingPositions))
     << row2("trained positions",
             num(s.graded) + " (" + pct(s.graded - s.gradedPadding, s.realPositions) + " of the real tokens)")
     << "</table>\n";
}

void writeRoles(std::ostream& os, const LintSummary& s, const AuditKindCounts& k) {
  static const char* names[] = {"unknown", "system",    "user",  "assistant", "tool", "template",
                                "padding", "separator", "think", "tool_call", "image"};
  static_assert(std::size(names) == kPositionKinds);
  os << "<h2>Trained tokens by role</h2>\n<table id=\"roles\"><tr><th>role</th><th>tokens</th><th>trained</th>"
        "<th>trained share</th></tr>\n";
  int64_t total = 0, graded = 0;
  for (size_t i = 0; i < k.total.size(); ++i) {
    total += k.total[i];
    graded += k.graded[i];
    if (k.total[i] == 0) continue;
    os << "<tr data-role=\"" << names[i] << "\"><td>" << names[i] << "</td><td class=\"n\">" << k.total[i]
       << "</td><td class=\"n\">" << k.graded[i] << "</td><td class=\"n\">" << pct(k.graded[i], k.total[i])
       << "</td></tr>\n";
  }
  os << "<tr><th>all</th><td class=\"n\">" << total << "</td><td class=\"n\" id=\"trained-total\">" << graded
     << "</td><td class=\"n\">" << pct(graded, total) << "</td></tr></table>\n<p>Of the trained positions: reply "
     << s.gradedReply << ", prompt " << s.gradedPrompt << ", padding " << s.gradedPadding << ", role unknown "
     << s.gradedUnknown << " (the loss roles lint's summary reports).</p>\n";
}

// The rows a rule's first offending rows list names, linking to the rule's section.
std::string firstLines(const AuditCollector& a, const std::string& rule) {
  auto it = a.rows().find(rule);
  if (it == a.rows().end() || it->second.empty()) return "";
  std::string s = "; first: ";
  bool first = true;
  for (const AuditRow& r : it->second) {
    s += (first ? "" : ", ") + std::string("line ") + (r.line ? num(*r.line) : "?");
    first = false;
  }
  return s + " (<a href=\"#" + anchor(rule) + "\">drawn below</a>)";
}

void writeRowSections(std::ostream& os, const LintReport& report, const AuditCollector& a) {
  const LintSummary& s = report.summary;
  auto count = [&](const char* rule) {
    auto it = s.findingsByRule.find(rule);
    return it == s.findingsByRule.end() ? 0L : it->second;
  };
  os << "<h2>Rows to look at</h2>\n<table id=\"row-sections\">\n"
     << "<tr id=\"nothing-trained\"><th>rows with nothing trained</th><td class=\"n\" id=\"nothing-trained-count\">"
     << s.rowsNothingGraded << "</td><td><code>no-graded-tokens</code>: " << count("no-graded-tokens") << " finding(s)"
     << firstLines(a, "no-graded-tokens") << "</td></tr>\n"
     << "<tr id=\"closing-not-trained\"><th>closing token not trained</th><td class=\"n\" "
        "id=\"closing-not-trained-count\">"
     << count("stop-token-not-graded") << "</td><td><code>stop-token-not-graded</code> findings (one per reply)"
     << firstLines(a, "stop-token-not-graded") << "</td></tr>\n"
     << "<tr id=\"replies-cut\"><th>replies cut by truncation</th><td class=\"n\" id=\"replies-cut-count\">"
     << count("reply-truncated") << "</td><td><code>reply-truncated</code> findings; " << s.rowsTruncated
     << " row(s) longer than max_length " << s.maxLength << " truncated" << firstLines(a, "reply-truncated")
     << "</td></tr>\n</table>\n";
}

void writeHistograms(std::ostream& os, const LintSummary& s) {
  std::vector<std::string> lengthLabels;
  static const char* q[] = {"0", "¼", "½", "¾", "1", "1¼", "1½", "1¾"};
  for (size_t i = 0; i < s.lengthHistogram.size(); ++i)
    lengthLabels.push_back(i + 1 < s.lengthHistogram.size() ? std::string(q[i]) + "–" + q[i + 1] : "≥ 1¾");
  std::vector<std::string> fracLabels;
  for (int i = 0; i < 10; ++i) fracLabels.push_back(num(i * 10) + "–" + num(i * 10 + 10) + "%");
  os << "<h2>Histograms</h2>\n<div class=\"charts\">\n<div id=\"length-histogram\">"
     << histogramSvg("rows by length, in quarters of max_length " + num(s.maxLength), lengthLabels,
                     std::vector<long>(s.lengthHistogram.begin(), s.lengthHistogram.end()))
     << "<p>length min " << std::max<int64_t>(0, s.lengthMin) << ", mean " << s.lengthSum / std::max<long>(1, s.rows)
     << ", max " << s.lengthMax << "; " << s.rowsOverMaxLength << " row(s) over max_length</p></div>\n"
     << "<div id=\"fraction-histogram\">"
     << histogramSvg("rows by trained fraction of their real tokens", fracLabels,
                     std::vector<long>(s.gradedFractionHistogram.begin(), s.gradedFractionHistogram.end()))
     << "</div>\n</div>\n";
}

void writeRuleRows(std::ostream& os, const LintReport& report, const AuditCollector& a, const std::string& rule) {
  auto it = a.rows().find(rule);
  if (it != a.rows().end() && !it->second.empty()) {
    for (const AuditRow& r : it->second) {
      os << "<p class=\"where\">"
         << (r.line ? (r.item ? "item " + num(*r.item) + ", " : std::string()) + "line " + num(*r.line)
                    : std::string("line ?"))
         << (r.row >= 0 ? " (row " + num(r.row) + ")" : std::string())
         << (r.flagged >= 0 ? ", flagged position " + num(r.flagged) : std::string()) << "</p>\n<p class=\"msg\">"
         << htmlEscape(r.message) << "</p>\n";
      if (!r.ids.empty()) os << tokenStrip(r);
    }
    return;
  }
  int shown = 0; // findings about the whole input (template checks, dataset-wide infos): their messages
  for (const Finding& f : report.findings) {
    if (f.rule != rule || shown >= kAuditRowsPerRule) continue;
    os << "<p class=\"msg\">" << htmlEscape(f.message) << "</p>\n";
    ++shown;
  }
}

// The explanation without its closing "Fix: ..." (the page shows the fix on its own line).
std::string_view withoutFix(std::string_view explanation) {
  const size_t at = explanation.rfind("Fix: ");
  return at == std::string_view::npos ? explanation : explanation.substr(0, at);
}

// Where a finding is: "item 4, line 40", "line 12", "row 3", or "" (the settings).
std::string findingWhere(const Finding& f) {
  std::string where = f.item ? "item " + num(*f.item) + ", " : std::string();
  if (f.line) return where + "line " + num(*f.line);
  return f.row ? where + "row " + num(*f.row) : where;
}

// Every finding of the rule the run kept, one line each, folded (<details>) under a line that says
// how many there are and how many are not on the page (past --max-findings, or past
// kAuditListedPerRule), and how to get those: --findings-out writes every one.
void writeRuleFindingList(std::ostream& os, const LintReport& report, const std::string& rule, long total) {
  std::vector<const Finding*> kept;
  for (const Finding& f : report.findings)
    if (f.rule == rule) kept.push_back(&f);
  const long listed = std::min<long>(long(kept.size()), kAuditListedPerRule);
  const long omitted = std::max<long>(0, total - listed);
  os << "<details class=\"all-findings\" id=\"all-" << anchor(rule) << "\"><summary>every finding of <code>"
     << htmlEscape(rule) << "</code>: <span class=\"listed\">" << listed << "</span> of " << total << " listed";
  if (omitted > 0)
    os << ", <b class=\"omitted\">" << omitted << " not listed</b> (the run keeps the first findings of "
       << "<code>--max-findings</code>; <code>--findings-out FILE.tsv</code> writes every one)";
  os << "</summary>\n<table class=\"findings\"><tr><th>where</th><th>position</th><th>message</th></tr>\n";
  for (long i = 0; i < listed; ++i) {
    const Finding& f = *kept[size_t(i)];
    os << "<tr><td>" << htmlEscape(findingWhere(f)) << "</td><td class=\"n\">"
       << (f.position ? num(*f.position) : std::string()) << "</td><td>" << htmlEscape(f.message) << "</td></tr>\n";
  }
  os << "</table></details>\n";
}

// The rules that fired, errors first, then warnings, then infos; in catalogue order within each.
std::vector<const RuleInfo*> rulesBySeverity(const LintSummary& s) {
  std::vector<const RuleInfo*> out;
  for (const RuleInfo& info : allRules()) {
    auto c = s.findingsByRule.find(std::string(info.name));
    if (c != s.findingsByRule.end() && c->second > 0) out.push_back(&info);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const RuleInfo* a, const RuleInfo* b) { return int(a->severity) > int(b->severity); });
  return out;
}

void writeRules(std::ostream& os, const LintReport& report, const AuditCollector& a) {
  const LintSummary& s = report.summary;
  os << "<h2>Findings by rule</h2>\n";
  if (s.findingsByRule.empty()) os << "<p>No rule fired.</p>\n";
  os << "<p>Errors first, then warnings, then infos. Rows are drawn token by token, each example collated alone: "
        "a chip per position with its label "
        "(<b>&#10003;</b> trained, -100 ignored) and attention mask (m); outlined green = trained, hatched = padding, "
        "red outline = the flagged position; background = role (system, user, assistant, template, think). Under "
        "each rule, <i>every finding</i> unfolds the list of all its findings.</p>\n";
  for (const RuleInfo* fired : rulesBySeverity(s)) {
    const RuleInfo& info = *fired;
    auto c = s.findingsByRule.find(std::string(info.name));
    const std::string rule(info.name);
    const std::string fix(ruleFix(info));
    os << "<section class=\"rule\" id=\"" << anchor(rule) << "\"><h3><code>" << htmlEscape(rule)
       << "</code> <span class=\"sev-" << severityName(info.severity) << "\">" << severityName(info.severity)
       << "</span> &middot; <span class=\"count\">" << c->second << "</span> finding(s) &middot; "
       << scopeName(info.scope) << "</h3>\n<p><b>" << htmlEscape(info.title) << "</b></p>\n<p class=\"expl\">"
       << htmlEscape(withoutFix(info.explanation)) << "</p>\n";
    if (!fix.empty()) os << "<p class=\"fix\"><b>Fix:</b> " << htmlEscape(fix) << "</p>\n";
    writeRuleRows(os, report, a, rule);
    writeRuleFindingList(os, report, rule, c->second);
    os << "</section>\n";
  }
}

void writeFooter(std::ostream& os, const LintSummary& s, const AuditSettings& st) {
  std::string vars;
  for (const auto& [k, v] : st.vars) vars += (vars.empty() ? "" : ", ") + k + "=" + v;
  os << "<footer><h2>Settings</h2>\n<table id=\"settings\">\n"
     << textRow("dataset", htmlEscape(st.source)) << textRow("tokenizer", htmlEscape(st.tokenizer))
     << textRow("template", htmlEscape(st.templateSpec.empty() ? "(the tokenizer's own)" : st.templateSpec))
     << textRow("collator", htmlEscape(st.collator))
     << textRow("template variables", htmlEscape(vars.empty() ? "(none)" : vars))
     << textRow("max_length", s.maxLength > 0 ? num(s.maxLength) : "(none)")
     << textRow("micro-batch", num(st.microBatch)) << textRow("generation batch", st.generation ? "yes" : "no")
     << textRow("rows", htmlEscape(st.rows.empty() ? "all" : st.rows)) << textRow("fail on", htmlEscape(st.failOn))
     << "</table>\n<p>Reproduce: <code id=\"command\">" << htmlEscape(st.commandLine)
     << "</code></p>\n<p id=\"version\">maskscope " << MASKSCOPE_VERSION << "</p></footer>\n";
}

} // namespace

namespace {

std::string shellQuoted(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,+@") ==
                        std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

} // namespace

std::string auditReproduceCommand(const AuditSettings& st, const std::string& reportPath) {
  std::string c = "maskscope lint " + shellQuoted(st.source) + " --tokenizer " + shellQuoted(st.tokenizer);
  if (!st.templateSpec.empty()) c += " --template " + shellQuoted(st.templateSpec);
  c += " --collator " + shellQuoted(st.collator);
  for (const auto& [k, v] : st.vars) c += " --var " + shellQuoted(k + "=" + v);
  if (st.minPixels > 0) c += " --min-pixels " + std::to_string(st.minPixels);
  if (st.maxPixels > 0) c += " --max-pixels " + std::to_string(st.maxPixels);
  if (st.generation) c += " --generation";
  c += " --micro-batch " + std::to_string(st.microBatch);
  if (!st.rows.empty()) c += " --rows " + shellQuoted(st.rows);
  if (st.failOn != "error") c += " --fail-on " + st.failOn;
  return c + " --report " + shellQuoted(reportPath);
}

std::string auditVerdict(const LintSummary& s, const std::string& failOn) {
  if (s.rows == 0 || s.errors > 0 || (failOn == "warning" && s.warnings > 0)) return "reject";
  return s.warnings > 0 ? "review" : "accept";
}

void writeAuditReport(std::ostream& os, const LintReport& report, const AuditCollector& audit,
                      const AuditSettings& settings) {
  os << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<meta "
        "http-equiv=\"Content-Security-Policy\" "
        "content=\"default-src 'none'; style-src 'unsafe-inline'\">\n<title>maskscope audit: "
     << htmlEscape(settings.source) << "</title>\n<style>" << kStyle << "</style></head>\n<body>\n";
  writeTop(os, report, settings);
  writeRoles(os, report.summary, audit.kinds());
  writeRowSections(os, report, audit);
  writeHistograms(os, report.summary);
  writeRules(os, report, audit);
  writeFooter(os, report.summary, settings);
  os << "</body></html>\n";
}

} // namespace maskscope
