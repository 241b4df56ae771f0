// The one table of lint rules (LintRegistry.h): every family's rules, in report order. Write each
// rule's explanation in its family file for someone fine-tuning their first model.
#include "core/lint/LintRegistry.h"

namespace maskscope {

const std::vector<LintRule>& lintRules() {
  using Family = const std::vector<LintRule>& (*)();
  static const std::vector<LintRule> rules = [] {
    std::vector<LintRule> all;
    for (Family family :
         {&shapeRules, &contentRules, &paddingRules, &labelRules, &packingRules, &attentionRules, &positionRules,
          &roleRules, &templateRules, &toolRules, &imageRules, &preferenceRules, &frameworkRules, &axolotlRules})
      for (const LintRule& r : family()) all.push_back(r);
    return all;
  }();
  return rules;
}

} // namespace maskscope
