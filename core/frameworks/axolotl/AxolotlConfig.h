// Axolotl's chat_template dataset strategy settings (v0.18.0, tag v0.18.0 = 2f5cb9da), read from a
// spec's options: one flat object holding the keys of the `datasets:` entry and the top-level keys
// that shape the batch. Defaults are StrategyLoader's (src/axolotl/prompt_strategies/
// chat_template.py): roles_to_train ["assistant"], train_on_eos "turn". A key set to null keeps
// Python's None, as a dict handed to the loader does (Axolotl's own tests construct the strategy
// that way): roles_to_train, train_on_eos, train_on_eot and the message_field_training* keys all
// unset/None is the legacy path, which trains only what follows the last generation prompt.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace maskscope::axolotl {

using OrderedJson = nlohmann::ordered_json;

// train_on_eos / train_on_eot: None (unset) or one of all, turn, last, none.
enum class TrainOn { Unset, All, Turn, Last, None };
const char* trainOnName(TrainOn t);

struct AxolotlConfig {
  std::string chatTemplate =
      "tokenizer_default"; // a bundled name, tokenizer_default, tokenizer_default_fallback_X, jinja
  std::optional<std::string> chatTemplateJinja; // the text, or a path to a .jinja file
  OrderedJson chatTemplateKwargs = OrderedJson::object();
  bool trainOnInputs = false;
  std::vector<std::string> rolesToTrain{"assistant"}; // as given (mapped through `roles` by the strategy)
  TrainOn trainOnEos = TrainOn::Turn;
  TrainOn trainOnEot = TrainOn::Unset;               // Unset: follows train_on_eos
  std::optional<std::vector<std::string>> eotTokens; // nullopt: [eos_token]
  std::string fieldMessages = "messages";
  std::string fieldThinking = "reasoning_content";
  std::string templateThinkingKey = "reasoning_content";
  // target key -> dataset key, in the order given ({"role": "from", "content": "value"}); after
  // pydantic's legacy handling it always holds role and content.
  std::vector<std::pair<std::string, std::string>> messagePropertyMappings;
  std::optional<std::string> messageFieldTraining;
  std::optional<std::string> messageFieldTrainingDetail;
  std::optional<std::map<std::string, std::vector<std::string>>> roles; // target -> sources
  bool dropSystemMessage = false;
  bool splitThinking = false;
  int64_t sequenceLen = 512;
  std::string excessLengthStrategy = "drop"; // drop, truncate, raise
  std::optional<int64_t> minSampleLen;       // None -> 2
  std::optional<bool> padToSequenceLen;      // None: pad_to_multiple_of (default 64) rounding
  std::optional<int64_t> padToMultipleOf;
  bool samplePacking = false;
  // sample packing's sampler and collator (core/trainers/base.py, utils/samplers/multipack.py)
  int64_t microBatchSize = 1;
  bool multipackRealBatches = false;
  int64_t samplePackingBinSize = 200;
  int64_t samplePackingGroupSize = 100000;
  bool samplePackingSequentially = false;
  bool curriculumSampling = false;
  std::map<std::string, std::string> specialTokens; // bos_token, eos_token, pad_token, unk_token

  // The legacy path: nothing says what to train (StrategyLoader defaults replaced by nulls/empties).
  bool legacyPath() const;
};

// The spec's option object -> config. Throws Error (source, key) on a value Axolotl would refuse.
AxolotlConfig axolotlConfigFromOptions(const OrderedJson& options, const std::string& source);

} // namespace maskscope::axolotl
