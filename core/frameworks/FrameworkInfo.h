// The registry's catalogue of a framework: its versions, each version's collators, and each
// collator's options with the framework's own names, kinds and defaults. The spec parser validates
// against it, the help and docs list it, and the app builds its option form from it.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace maskscope {

class FrameworkImpl;
struct FrameworkSpec;

using OrderedJson = nlohmann::ordered_json;

enum class OptionKind {
  Bool,        // true / false
  Int,         // an integer in [min, max]
  OptionalInt, // an integer in [min, max], or null (Python None)
  String,      // any string
  OptionalString,
  Choice,      // one of choices
  IdsOrString, // a string (tokenized with --tokenizer) or a list of token ids (matched exactly)
  IdList,      // a list of token ids
  Json,        // any JSON value the implementation checks itself
  Ignored,     // accepted and ignored: it does not change the batch (TrainingArguments' learning_rate)
};
const char* optionKindName(OptionKind kind);

// Caps shared by every framework: a length or multiple beyond them is refused (exit 2) before
// anything of that size is allocated.
inline constexpr int64_t kMaxFrameworkLength = int64_t(1) << 20;     // max_length, sequence_len, cutoff_len
inline constexpr int64_t kMaxPadMultiple = int64_t(1) << 16;         // pad_to_multiple_of
inline constexpr int64_t kMaxFrameworkBatchCells = int64_t(1) << 24; // values in one batch tensor

struct OptionInfo {
  std::string name;
  OptionKind kind = OptionKind::Json;
  OrderedJson defaultValue; // null: Python's None
  std::string help;         // one line, in the framework's words
  std::vector<std::string> choices;
  int64_t min = 0, max = kMaxFrameworkLength;
};

// One option of a catalogue; min and max bound Int and OptionalInt values.
inline OptionInfo frameworkOption(std::string name, OptionKind kind, OrderedJson defaultValue, std::string help,
                                  int64_t min = 0, int64_t max = kMaxFrameworkLength) {
  OptionInfo o;
  o.name = std::move(name);
  o.kind = kind;
  o.defaultValue = std::move(defaultValue);
  o.help = std::move(help);
  o.min = min;
  o.max = max;
  return o;
}

// TrainingArguments.per_device_train_batch_size: the collator never reads it, but it decides which
// rows the trainer hands it together, so lint and the app judge batches of this many rows
// (core/frameworks/TrainerBatches.h). TRL and LLaMA-Factory specs take it; 8 is transformers' default.
inline OptionInfo perDeviceTrainBatchSizeOption() {
  return frameworkOption("per_device_train_batch_size", OptionKind::Int, 8,
                         "rows per trainer batch: the collator does not read it, lint and the app judge batches of "
                         "this many rows (TrainingArguments' default 8)",
                         1, 65536);
}

// A Choice option whose default is the first of its choices.
inline OptionInfo choiceOption(std::string name, std::vector<std::string> choices, std::string help) {
  OptionInfo o = frameworkOption(std::move(name), OptionKind::Choice, choices.front(), std::move(help));
  o.choices = std::move(choices);
  return o;
}

// Builds the implementation of one collator for a validated spec.
using CollatorFactory = std::function<std::unique_ptr<FrameworkImpl>(const FrameworkSpec& spec)>;

struct CollatorInfo {
  std::string name;    // the class or function name: DataCollatorForLanguageModeling
  std::string summary; // one line: what it builds
  std::vector<OptionInfo> options;
  CollatorFactory make; // set for every collator (test_framework_catalogue checks), never a fallback
};

// A switch in a framework's code that differs between its versions ("labels_pre_shifted"). The code
// asks FrameworkSpec::behaves(name), never the version string, and every version row states every
// switch of its framework, so a new version row cannot silently take an older version's behaviour.
struct BehaviourInfo {
  std::string name;    // "labels_pre_shifted"
  std::string meaning; // one line: what true means, in the framework's terms
};

struct VersionInfo {
  std::string version;                   // "1.10"
  std::string readFrom;                  // the upstream source the behaviour was read from (tag, commit)
  std::vector<CollatorInfo> collators;   // the first is the default
  std::map<std::string, bool> behaviour; // one entry per BehaviourInfo of the framework
};

struct FrameworkInfo {
  std::string name;                      // "trl", as the spec's "framework" names it
  std::string title;                     // "TRL"
  std::vector<VersionInfo> versions;     // the first is the default
  std::vector<BehaviourInfo> behaviours; // the switches every version row states
  // Spec keys besides framework/version/collator that select behaviour (Axolotl's "type"), with
  // their allowed values; empty: none.
  std::string typeKey;
  std::vector<std::string> typeValues;
};

// Sets each collator's factory by name, in every version; a collator left without one fails
// test_framework_catalogue instead of falling into another collator's code.
void setCollatorFactories(FrameworkInfo& info, const std::map<std::string, CollatorFactory>& factories);

} // namespace maskscope
