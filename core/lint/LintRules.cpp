// The rule catalogue read from the registry (core/lint/LintRegistry.h): the explanations in the
// family files under core/lint/rules/ are the single source of `lint --explain`, the app's findings
// panel and docs/lint-rules.md; write them for someone fine-tuning their first model.
#include "core/lint/LintRegistry.h"
#include "core/lint/LintTypes.h"

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

const std::vector<LintRule>& lintRules() {
  using Family = const std::vector<LintRule>& (*)();
  static const std::vector<LintRule> rules = [] {
    std::vector<LintRule> all;
    for (Family family : {&shapeRules, &paddingRules, &labelRules, &packingRules, &positionRules, &roleRules,
                          &templateRules, &preferenceRules, &frameworkRules, &axolotlRules})
      for (const LintRule& r : family()) all.push_back(r);
    return all;
  }();
  return rules;
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
