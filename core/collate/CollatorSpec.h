// A collator configuration: every knob that decides padding, truncation, labels, attention,
// position ids and packing. Parsed from a preset name with overrides, a JSON file, or key=value.
#pragma once
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace maskscope {

enum class PaddingSide { Right, Left };
enum class PadTo { Longest, MaxLength, MultipleOf };
enum class Truncation { None, KeepStart, KeepEnd };
enum class LabelMode { All, PadMasked, MaskPadId, CompletionOnly, AssistantOnly, LastTurn };
enum class AttentionMode { Correct, AllOnes };
enum class Packing { None, Naive, ResetPositions, BlockDiagonal, PaddingFree };
enum class PositionMode { Auto, Arange };

struct CollatorSpec {
  std::string name = "default"; // preset name, or "custom"
  PaddingSide paddingSide = PaddingSide::Right;
  PadTo padTo = PadTo::Longest;
  int multipleOf = 8;
  int maxLength = 1024;
  Truncation truncation = Truncation::None;
  std::string padToken; // a token string or a decimal id; empty: the tokenizer's pad, else its EOS
  LabelMode labels = LabelMode::AssistantOnly;
  bool gradeClosingToken = true;
  bool gradeThink = true; // think=graded|masked: the <think>...</think> span keeps what labels gives it, or -100
  AttentionMode attention = AttentionMode::Correct;
  Packing packing = Packing::None;
  bool packingSeparator = false; // an EOS between packed examples
  bool addBos = false;           // tokenizer BOS on top of the template's
  PositionMode positionIds = PositionMode::Auto;

  nlohmann::json toJson() const;
  std::string describe() const; // one line: what this collator does
};

// What a preset's framework reproduction reads when the two are compared: the same conversations,
// or the preset's own token ids written as pre-tokenized rows (transformers' collators take no
// conversations), with labels copied from the ids for DataCollatorForSeq2Seq.
enum class PresetFrameworkRows { Conversations, TokenIds, TokenIdsWithLabels };
const char* toString(PresetFrameworkRows v);

// The exact reproduction in core/frameworks that a preset approximates, and how the two batches
// differ on the same rows. test_preset_frameworks holds both claims: no difference stated means
// equal input ids, labels, attention mask and position ids; a stated one must show in the arrays.
struct PresetFramework {
  std::string spec; // a --collator JSON framework spec; empty: the preset approximates no framework
  PresetFrameworkRows rows = PresetFrameworkRows::Conversations;
  std::string differs; // empty: the same batch
};

struct CollatorPreset {
  std::string name;
  std::string summary;  // one line (under 100 characters): what the preset does
  std::string mirrors;  // which library setting it reproduces, in full
  std::string settings; // key=value,... applied on top of the defaults
  bool buggy = false;
  PresetFramework framework;
};

const std::vector<CollatorPreset>& collatorPresets();
// The presets as `collate --list-presets` and `collate --help` print them: one line each, name and
// summary, buggy ones marked, and under it the framework spec it approximates and how it differs.
// JSON: [{"name", "summary", "buggy", "settings", "mirrors", "spec", "framework"}].
std::string collatorPresetsText();
nlohmann::json collatorPresetsJson();

// SPEC: "preset", "preset,key=value,...", "key=value,...", or a path to a JSON file.
// Throws Error naming the key or file on anything unknown.
CollatorSpec parseCollatorSpec(const std::string& spec);
// "A,B": two collator specs in one argument (`snapshot --compare`). Each half may hold commas of
// its own (preset,key=value), so the split is the one comma at which both halves parse. Throws
// Error when no comma gives two valid specs (naming why) or when more than one does (ambiguous).
std::pair<std::string, std::string> splitCollatorPair(const std::string& text);
// Applies one key=value (or a JSON value) to spec; throws Error on unknown keys or values.
void applyCollatorSetting(CollatorSpec& spec, const std::string& key, const std::string& value);

const char* toString(PaddingSide v);
const char* toString(Truncation v);
const char* toString(LabelMode v);
const char* toString(AttentionMode v);
const char* toString(Packing v);
std::string padToString(const CollatorSpec& s);

} // namespace maskscope
