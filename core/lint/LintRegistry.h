// The one table of lint rules. Each entry is a rule's catalogue text (RuleInfo: name, severity,
// title, explanation, needs) and the function that checks it, side by side in its family's file
// under core/lint/rules/. The linter runs the functions; `lint --explain`, the app's findings panel
// and docs/lint-rules.md read the text; the tests check that every rule has a fires/quiet pair.
// Adding a rule: one function and one entry in a family file, one fires/quiet test pair.
#pragma once
#include "core/lint/rules/RuleInput.h"

#include <vector>

namespace maskscope {

// A rule checks at one of these points (the others stay null). A rule with none is reported by
// the lint run itself (row-skipped, duplicate-row and mixed-row-shapes by the dataset reading,
// rules-not-run, full-sequence-labels).
struct LintRule {
  RuleInfo info;
  bool (*beforeRows)(const BatchInput&) = nullptr;          // once per batch; false: the batch is unusable
  void (*row)(const RowInput&) = nullptr;                   // every batch row, in order
  void (*afterRows)(const BatchInput&) = nullptr;           // once per batch, after its rows
  void (*once)(const TemplateInput&) = nullptr;             // once per lint run (template + tokenizer)
  void (*conversation)(const ConversationInput&) = nullptr; // every encoded dataset conversation
  void (*preference)(const PreferenceInput&) = nullptr;     // every encoded preference pair
  void (*content)(const RowContentInput&) = nullptr;        // every dataset row as read (content rules)
};

// The families, in report order (each defined in core/lint/rules/<Family>Rules.cpp).
const std::vector<LintRule>& shapeRules();
const std::vector<LintRule>& contentRules();
const std::vector<LintRule>& paddingRules();
const std::vector<LintRule>& labelRules();
const std::vector<LintRule>& packingRules();
const std::vector<LintRule>& attentionRules(); // per attention implementation (core/mask/EffectiveAttention.h)
const std::vector<LintRule>& positionRules();
const std::vector<LintRule>& roleRules();
const std::vector<LintRule>& templateRules();
const std::vector<LintRule>& toolRules();  // tool calls and tool outputs
const std::vector<LintRule>& imageRules(); // image placeholder tokens (core/media)
const std::vector<LintRule>& preferenceRules();
const std::vector<LintRule>& frameworkRules(); // core/frameworks batches (Batch::framework)
const std::vector<LintRule>& axolotlRules();   // Axolotl batches (Batch::framework)

// Every rule of every family, in that order.
const std::vector<LintRule>& lintRules();

} // namespace maskscope
