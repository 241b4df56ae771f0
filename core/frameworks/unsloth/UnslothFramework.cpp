// Unsloth's registry entry: train_on_responses_only at two unsloth-zoo releases (2026.8 drops rows
// left all -100 and knows last_response_only; 2025.12 keeps them), with its own option names.
#include "core/frameworks/FrameworkList.h"
#include "core/frameworks/unsloth/Unsloth.h"

namespace maskscope {

namespace {

std::vector<OptionInfo> responsesOnlyOptions(bool withLastResponseOnly) {
  using K = OptionKind;
  std::vector<OptionInfo> o = {
      frameworkOption("instruction_part", K::IdsOrString, nullptr,
                      "the marker that starts a user turn: a string (tokenized with --tokenizer) or token ids"),
      frameworkOption("response_part", K::IdsOrString, nullptr,
                      "the marker that starts an assistant turn: a string (tokenized with --tokenizer) or token ids"),
      frameworkOption("force_match", K::Bool, true,
                      "match the markers' own tokenization (false: a common core of 18 spellings "
                      "with optional neighbouring tokens)"),
  };
  if (withLastResponseOnly)
    o.push_back(frameworkOption("last_response_only", K::Bool, false, "train only the last assistant turn"));
  o.push_back(
      frameworkOption("max_length", K::OptionalInt, 1024, "SFTConfig max_length: text rows are truncated to it"));
  o.push_back(frameworkOption("max_seq_length", K::OptionalInt, nullptr, "used when max_length is null or 0"));
  o.push_back(frameworkOption("dataset_text_field", K::String, "text", "the column holding each row's text"));
  o.push_back(frameworkOption("pad_token_id", K::OptionalInt, nullptr, "the pad id (wins over --tokenizer's)"));
  for (auto& x : o)
    if (x.name == "pad_token_id") x.max = INT32_MAX;
  return o;
}

// One catalogue row: the release, where its behaviour was read, and its four behaviour flags.
VersionInfo version(const char* name, const char* readFrom, const unsloth::ZooBehaviour& zoo) {
  VersionInfo v;
  v.version = name;
  v.readFrom = readFrom;
  v.behaviour = {{"empty_marker_when_core_missing", zoo.emptyMarkerWhenCoreMissing},
                 {"drops_fully_masked_rows", zoo.dropsFullyMaskedRows},
                 {"last_response_only", zoo.lastResponseOnly},
                 {"auto_detects_markers", zoo.autoDetectsMarkers}};
  const bool withLastResponseOnly = zoo.lastResponseOnly;
  v.collators = {{"train_on_responses_only",
                  "labels -100 outside each response (from the response marker to the next instruction "
                  "marker), then transformers' DataCollatorForSeq2Seq",
                  responsesOnlyOptions(withLastResponseOnly)}};
  return v;
}

} // namespace

FrameworkDefinition unslothFramework() {
  FrameworkDefinition d;
  d.info.name = "unsloth";
  d.info.title = "Unsloth";
  d.info.versions = {version("2026.8", unsloth::kReadFrom2026, {true, true, true, true}),
                     version("2025.12", unsloth::kReadFrom2025, {false, false, false, false})};
  d.info.behaviours = {
      {"empty_marker_when_core_missing",
       "_find_common_token_ids returns no marker when the common core is not in the marker's own tokenization "
       "(false: optional tokens from the loop's last index; an error when the marker tokenizes to nothing)"},
      {"drops_fully_masked_rows", "_filter_fully_masked removes rows left all -100 (an error when none is left)"},
      {"last_response_only", "the last_response_only option is read"},
      {"auto_detects_markers", "with neither marker given, upstream reads them from the chat template "
                               "(maskscope refuses: not reproduced)"}};
  setCollatorFactories(d.info, {{"train_on_responses_only", [](const FrameworkSpec& spec) {
                                   unsloth::ZooBehaviour zoo;
                                   zoo.emptyMarkerWhenCoreMissing = spec.behaves("empty_marker_when_core_missing");
                                   zoo.dropsFullyMaskedRows = spec.behaves("drops_fully_masked_rows");
                                   zoo.lastResponseOnly = spec.behaves("last_response_only");
                                   zoo.autoDetectsMarkers = spec.behaves("auto_detects_markers");
                                   return unsloth::makeResponsesOnly(zoo);
                                 }}});
  return d;
}

} // namespace maskscope
