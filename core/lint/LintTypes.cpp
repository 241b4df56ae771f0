// The linter's vocabulary (LintTypes.h): severity names and the rule catalogue read from the registry
// (core/lint/LintRegistry.h). The explanations in the family files under core/lint/rules/ are the
// single source of `lint --explain`, the app's findings panel and docs/lint-rules.md.
#include "core/lint/LintTypes.h"
#include "core/lint/LintRegistry.h"

namespace maskscope {

const char* severityName(Severity s) {
  switch (s) {
  case Severity::Info:
    return "info";
  case Severity::Warning:
    return "warning";
  case Severity::Error:
    return "error";
  }
  return "?";
}

const std::vector<RuleInfo>& allRules() {
  static const std::vector<RuleInfo> infos = [] {
    std::vector<RuleInfo> all;
    for (const LintRule& r : lintRules()) all.push_back(r.info);
    return all;
  }();
  return infos;
}

const RuleInfo* findRule(std::string_view name) {
  for (const RuleInfo& r : allRules())
    if (r.name == name) return &r;
  return nullptr;
}

std::string rulesMarkdown() {
  std::string md = "# Lint rules\n\n"
                   "Generated from the rule registry, core/lint/rules/*Rules.cpp (the text `maskscope lint --explain "
                   "RULE` prints and the "
                   "app shows). Do not edit by hand; tests/lint checks that this file matches.\n\n"
                   "| rule | severity | fires when |\n| --- | --- | --- |\n";
  for (const RuleInfo& r : allRules())
    md += "| `" + std::string(r.name) + "` | " + severityName(r.severity) + " | " + std::string(r.title) + " |\n";
  for (const RuleInfo& r : allRules()) {
    md += "\n## " + std::string(r.name) + "\n\n";
    md += "*" + std::string(severityName(r.severity)) + "* — " + std::string(r.title) +
          ". Needs: " + std::string(r.needs) + ".\n\n";
    md += std::string(r.explanation) + "\n";
  }
  return md;
}

} // namespace maskscope
