// The linter's public vocabulary: severities, findings, and the rule catalogue (name, severity,
// one-line title, the student-level explanation that `lint --explain` and the app show).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace maskscope {

enum class Severity : uint8_t { Info = 0, Warning = 1, Error = 2 };
const char* severityName(Severity s); // "info", "warning", "error"

// What a finding asks to change: the rows of the dataset (Data: a contributor fixes the lines
// named), or how it is trained (Settings: template, tokenizer, collator, trainer).
enum class Scope : uint8_t { Settings = 0, Data = 1 };
const char* scopeName(Scope s); // "settings", "data"

// One problem the linter found. row/position: for a batch dump, the batch row and the position in
// it; for a dataset, the dataset row (0-based among good rows) and the token position inside that
// row's own tokenized example. Either is empty when the finding is about the whole input. Every
// finding about a dataset row (or an unreadable line) also says where it is in the file.
struct Finding {
  std::string rule;
  Severity severity = Severity::Warning;
  std::optional<int64_t> row;
  std::optional<int64_t> position;
  std::string message;           // one line, with the numbers ("line 3: 118 of 512 graded positions are padding")
  std::optional<long> line;      // 1-based line in the file (a JSON list: the line of the row's opening brace)
  std::optional<long> item;      // a JSON-list file: the row's 0-based index in the list (Python's data[i])
  Scope scope = Scope::Settings; // the rule's (FindingCollector sets it)
};

struct RuleInfo {
  std::string_view name;         // stable kebab-case name (docs/lint-rules.md)
  Severity severity;             // default severity; a finding may be softened where the text says so
  std::string_view title;        // one line
  std::string_view explanation;  // a paragraph for a student: what the mask gates, what goes wrong, the fix
  std::string_view needs;        // what input the rule needs ("batch", "roles", "template+tokenizer", ...)
  Scope scope = Scope::Settings; // Data: the fix is in the rows (content rules, unreadable rows, ...)
};

const std::vector<RuleInfo>& allRules();
const RuleInfo* findRule(std::string_view name);
// The fix a rule's explanation ends with (the text after its last "Fix: "); "" when it has none.
std::string_view ruleFix(const RuleInfo& rule);
// docs/lint-rules.md, generated from the same text (tests keep the file in sync).
std::string rulesMarkdown();

} // namespace maskscope
