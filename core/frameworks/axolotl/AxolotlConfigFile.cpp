// Axolotl YAML config -> spec (see AxolotlConfigFile.h). The chat template rule is Axolotl's:
// the dataset's chat_template wins unless it is tokenizer_default (or absent), in which case the
// top-level one applies (load_tokenizer writes it into the tokenizer, which tokenizer_default reads).
#include "core/frameworks/axolotl/AxolotlConfigFile.h"
#include "core/util/Error.h"
#include "core/yaml/YamlReader.h"

#include <algorithm>
#include <array>

namespace maskscope::axolotl {

namespace {

using Json = nlohmann::ordered_json;

// Where the rows come from: --data says that to maskscope.
constexpr std::array kLocationKeys = {
    "path",   "split",      "data_files",        "ds_type",     "name", "revision", "trust_remote_code",
    "shards", "shards_idx", "preprocess_shards", "input_format"};
// Top-level keys that shape the chat_template batch, copied into the spec.
constexpr std::array kTopLevelKeys = {"sequence_len",
                                      "sample_packing",
                                      "train_on_inputs",
                                      "eot_tokens",
                                      "special_tokens",
                                      "chat_template_kwargs",
                                      "excess_length_strategy",
                                      "min_sample_len",
                                      "pad_to_sequence_len",
                                      "pad_to_multiple_of",
                                      "micro_batch_size",
                                      "multipack_real_batches",
                                      "sample_packing_bin_size",
                                      "sample_packing_group_size",
                                      "sample_packing_sequentially",
                                      "curriculum_sampling"};
// Top-level keys that change the rows or the batch in ways not reproduced: refused when set.
constexpr std::array kRefusedKeys = {"batch_flattening",
                                     "rl",
                                     "reward_model",
                                     "process_reward_model",
                                     "pretraining_dataset",
                                     "tokenizer_use_mistral_common",
                                     "tokens",
                                     "dataset_exact_deduplication",
                                     "use_pose"};

// processor_type: MultiModalChatDataCollator reads these (core/builders/causal.py build_collator):
// the first dataset's masking keys and field_messages, and the top-level ones; nothing else.
constexpr std::array kMultimodalDatasetKeys = {"roles_to_train", "train_on_eos", "field_messages"};
constexpr std::array kMultimodalTopLevelKeys = {"processor_type",  "chat_template",   "chat_template_jinja",
                                                "train_on_inputs", "role_boundaries", "image_size",
                                                "special_tokens"};

bool isSet(const Json& v) { return !v.is_null() && !(v.is_boolean() && !v.get<bool>()); }

SourceLocation at(const std::string& path, const std::string& key) { return {path, -1, -1, -1, key}; }

bool isDefaultChoice(const Json& entry) {
  auto it = entry.find("chat_template");
  return it == entry.end() || it->is_null() || *it == "tokenizer_default";
}

} // namespace

bool looksLikeAxolotlConfig(const Json& yaml) {
  if (!yaml.is_object()) return false;
  if (yaml.contains("framework")) return false; // a spec written as YAML
  auto d = yaml.find("datasets");
  if (d != yaml.end() && d->is_array()) return true;
  return yaml.contains("base_model") && !yaml.contains("stage") && !yaml.contains("template");
}

Json axolotlSpecFromConfig(const Json& yaml, const std::string& path) {
  if (!yaml.is_object()) throw Error("an Axolotl config must be a YAML mapping", SourceLocation{path});
  for (const char* key : kRefusedKeys)
    if (yaml.contains(key) && isSet(yaml[key]))
      throw Error(std::string("the Axolotl config sets ") + key +
                      ", which changes the rows or the batch in a way maskscope does not reproduce",
                  at(path, key));
  auto d = yaml.find("datasets");
  if (d == yaml.end() || !d->is_array() || d->empty() || !(*d)[0].is_object())
    throw Error("the Axolotl config has no `datasets:` entry to reproduce", at(path, "datasets"));
  const Json& entry = (*d)[0];
  Json spec = Json::object();
  spec["framework"] = "axolotl";
  if (yaml.contains("processor_type") && isSet(yaml["processor_type"])) {
    spec["type"] = entry.contains("type") ? entry["type"] : Json("chat_template");
    spec["collator"] = "MultiModalChatDataCollator";
    if (yaml.contains("sample_packing") && isSet(yaml["sample_packing"]))
      throw Error("sample_packing with processor_type: Axolotl's multimodal path does not pack (\"not yet supported "
                  "with multimodal\"); maskscope does not reproduce what the batch-sampler collator makes of it",
                  at(path, "sample_packing"));
    for (const char* key : kMultimodalDatasetKeys)
      if (entry.contains(key) && !entry[key].is_null()) spec[key] = entry[key];
    // the strategy and the template come from the top-level chat_template, never the dataset's
    for (const char* key : kMultimodalTopLevelKeys)
      if (yaml.contains(key) && !yaml[key].is_null()) spec[key] = yaml[key];
    return spec;
  }
  auto type = entry.find("type");
  if (type == entry.end() || !type->is_string())
    throw Error("datasets[0] has no type; maskscope reproduces type: chat_template", at(path, "datasets[0].type"));
  spec["type"] = *type;
  for (auto it = entry.begin(); it != entry.end(); ++it) {
    if (it.key() == "type") continue;
    if (std::find(kLocationKeys.begin(), kLocationKeys.end(), it.key()) != kLocationKeys.end()) continue;
    // pydantic's model_dump(exclude_none=True): a key left empty in the YAML is unset, so the
    // loader's default applies (a JSON spec's null, by contrast, is Python's None)
    if (it->is_null()) continue;
    spec[it.key()] = *it;
  }
  // chat_template / chat_template_jinja: the dataset's unless it leaves the tokenizer's template
  if (isDefaultChoice(entry))
    for (const char* key : {"chat_template", "chat_template_jinja"})
      if (yaml.contains(key) && !yaml[key].is_null()) spec[key] = yaml[key];
  for (const char* key : kTopLevelKeys)
    if (yaml.contains(key) && !yaml[key].is_null()) spec[key] = yaml[key];
  return spec;
}

std::optional<Json> readAxolotlConfig(const std::string& path, const std::string& text) {
  if (!yaml::isYamlPath(path)) return std::nullopt;
  const Json parsed = yaml::parseYaml(text, path, yaml::Dialect::PyYaml);
  if (!looksLikeAxolotlConfig(parsed)) return std::nullopt;
  return axolotlSpecFromConfig(parsed, path);
}

} // namespace maskscope::axolotl
