// Axolotl chat_template settings from a spec's options (see AxolotlConfig.h), with the checks
// Axolotl's pydantic schema (src/axolotl/utils/schemas/datasets.py, config.py) and the strategy's
// constructor make, so a config Axolotl refuses is refused here too.
#include "core/frameworks/axolotl/AxolotlConfig.h"
#include "core/util/Error.h"

#include <algorithm>

namespace maskscope::axolotl {

namespace {

SourceLocation at(const std::string& source, const std::string& key) { return {source, -1, -1, -1, key}; }

const OrderedJson* find(const OrderedJson& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string str(const OrderedJson& o, const char* key, const std::string& source) {
  const OrderedJson* v = find(o, key);
  if (!v) return {};
  if (!v->is_string()) throw Error(std::string("\"") + key + "\" must be a string", at(source, key));
  return v->get<std::string>();
}

std::optional<std::string> optStr(const OrderedJson& o, const char* key, const std::string& source) {
  if (!find(o, key)) return std::nullopt;
  return str(o, key, source);
}

bool flag(const OrderedJson& o, const char* key, bool fallback, const std::string& source) {
  const OrderedJson* v = find(o, key);
  if (!v) return fallback;
  if (!v->is_boolean()) throw Error(std::string("\"") + key + "\" must be true or false", at(source, key));
  return v->get<bool>();
}

std::vector<std::string> stringList(const OrderedJson& v, const char* key, const std::string& source) {
  if (!v.is_array()) throw Error(std::string("\"") + key + "\" must be a list of strings", at(source, key));
  std::vector<std::string> out;
  for (const auto& e : v) {
    if (!e.is_string()) throw Error(std::string("\"") + key + "\" must be a list of strings", at(source, key));
    out.push_back(e.get<std::string>());
  }
  return out;
}

TrainOn trainOn(const OrderedJson& o, const char* key, TrainOn fallback, const std::string& source) {
  auto it = o.find(key);
  if (it == o.end()) return fallback;
  if (it->is_null()) return TrainOn::Unset;
  const std::string s = it->is_string() ? it->get<std::string>() : std::string();
  if (s == "all") return TrainOn::All;
  if (s == "turn") return TrainOn::Turn;
  if (s == "last") return TrainOn::Last;
  if (s == "none") return TrainOn::None;
  throw Error(std::string("\"") + key + "\" must be one of all, turn, last, none (or null)", at(source, key));
}

std::optional<int64_t> optInt(const OrderedJson& o, const char* key, int64_t lo, int64_t hi,
                              const std::string& source) {
  const OrderedJson* v = find(o, key);
  if (!v) return std::nullopt;
  if (!v->is_number_integer() || v->get<int64_t>() < lo || v->get<int64_t>() > hi)
    throw Error(std::string("\"") + key + "\" must be an integer from " + std::to_string(lo) + " to " +
                    std::to_string(hi) + " (larger is refused, never allocated)",
                at(source, key));
  return v->get<int64_t>();
}

// pydantic's handle_legacy_message_fields_logic: message_field_role / message_field_content fold
// into message_property_mappings, which always ends up holding role and content.
void readMappings(AxolotlConfig& c, const OrderedJson& o, const std::string& source) {
  if (const OrderedJson* m = find(o, "message_property_mappings")) {
    if (!m->is_object())
      throw Error("\"message_property_mappings\" must map template keys to dataset keys",
                  at(source, "message_property_mappings"));
    for (auto it = m->begin(); it != m->end(); ++it) {
      if (!it->is_string())
        throw Error("\"message_property_mappings\" values must be strings", at(source, "message_property_mappings"));
      c.messagePropertyMappings.emplace_back(it.key(), it->get<std::string>());
    }
  }
  auto setLegacy = [&](const char* legacyKey, const std::string& target) {
    auto existing = std::find_if(c.messagePropertyMappings.begin(), c.messagePropertyMappings.end(),
                                 [&](const auto& p) { return p.first == target; });
    if (find(o, legacyKey)) { // null (the registry's default) is unset
      const std::string v = str(o, legacyKey, source);
      if (existing != c.messagePropertyMappings.end() && existing->second != v && !v.empty())
        throw Error(std::string("conflicting message ") + target + " fields: " + legacyKey + "='" + v +
                        "' conflicts with message_property_mappings." + target + "='" + existing->second + "'",
                    at(source, legacyKey));
      const std::string value = v.empty() ? target : v;
      if (existing != c.messagePropertyMappings.end())
        existing->second = value;
      else
        c.messagePropertyMappings.emplace_back(target, value);
    } else if (existing == c.messagePropertyMappings.end()) {
      c.messagePropertyMappings.emplace_back(target, target);
    }
  };
  setLegacy("message_field_role", "role");
  setLegacy("message_field_content", "content");
}

void readRoles(AxolotlConfig& c, const OrderedJson& o, const std::string& source) {
  const OrderedJson* r = find(o, "roles");
  if (!r) return;
  if (!r->is_object()) throw Error("\"roles\" must map a role to the list of dataset roles", at(source, "roles"));
  std::map<std::string, std::vector<std::string>> roles;
  for (auto it = r->begin(); it != r->end(); ++it) roles[it.key()] = stringList(*it, "roles", source);
  c.roles = std::move(roles);
}

void readSpecialTokens(AxolotlConfig& c, const OrderedJson& o, const std::string& source) {
  const OrderedJson* s = find(o, "special_tokens");
  if (!s) return;
  if (!s->is_object()) throw Error("\"special_tokens\" must be an object", at(source, "special_tokens"));
  for (auto it = s->begin(); it != s->end(); ++it) {
    const std::string k = it.key();
    if (k != "bos_token" && k != "eos_token" && k != "pad_token" && k != "unk_token")
      throw Error("special_tokens." + k + " is not reproduced (maskscope reads bos_token, eos_token, pad_token, " +
                      "unk_token)",
                  at(source, "special_tokens"));
    if (it->is_null()) continue;
    if (!it->is_string()) throw Error("special_tokens." + k + " must be a string", at(source, "special_tokens"));
    c.specialTokens[k] = it->get<std::string>();
  }
}

} // namespace

const char* trainOnName(TrainOn t) {
  switch (t) {
  case TrainOn::All:
    return "all";
  case TrainOn::Turn:
    return "turn";
  case TrainOn::Last:
    return "last";
  case TrainOn::None:
    return "none";
  case TrainOn::Unset:
    break;
  }
  return "null";
}

bool AxolotlConfig::legacyPath() const {
  return rolesToTrain.empty() && trainOnEos == TrainOn::Unset && trainOnEot == TrainOn::Unset &&
         (!messageFieldTraining || messageFieldTraining->empty()) &&
         (!messageFieldTrainingDetail || messageFieldTrainingDetail->empty());
}

AxolotlConfig axolotlConfigFromOptions(const OrderedJson& o, const std::string& source) {
  if (!o.is_object()) throw Error("an Axolotl spec must be a JSON object", SourceLocation{source});
  AxolotlConfig c;
  if (const OrderedJson* t = find(o, "chat_template")) {
    if (!t->is_string()) throw Error("\"chat_template\" must be a string", at(source, "chat_template"));
    c.chatTemplate = t->get<std::string>();
  }
  c.chatTemplateJinja = optStr(o, "chat_template_jinja", source);
  // chat_template_jinja with the default choice: the jinja text is the template (Axolotl's top-level
  // chat_template_jinja sets chat_template: jinja and becomes the tokenizer's template, which
  // tokenizer_default then reads)
  if (c.chatTemplateJinja && c.chatTemplate == "tokenizer_default") c.chatTemplate = "jinja";
  if (c.chatTemplate == "jinja" && !c.chatTemplateJinja)
    throw Error("chat_template_jinja is required when chat_template is set to jinja", at(source, "chat_template"));
  if (const OrderedJson* k = find(o, "chat_template_kwargs")) {
    if (!k->is_object()) throw Error("\"chat_template_kwargs\" must be an object", at(source, "chat_template_kwargs"));
    c.chatTemplateKwargs = *k;
  }
  c.trainOnInputs = flag(o, "train_on_inputs", false, source);
  if (o.contains("roles_to_train"))
    c.rolesToTrain = o["roles_to_train"].is_null() ? std::vector<std::string>{}
                                                   : stringList(o["roles_to_train"], "roles_to_train", source);
  c.trainOnEos = trainOn(o, "train_on_eos", TrainOn::Turn, source);
  c.trainOnEot = trainOn(o, "train_on_eot", TrainOn::Unset, source);
  if (const OrderedJson* e = find(o, "eot_tokens")) c.eotTokens = stringList(*e, "eot_tokens", source);
  if (auto v = optStr(o, "field_messages", source)) c.fieldMessages = *v;
  if (auto v = optStr(o, "field_thinking", source)) c.fieldThinking = *v;
  if (auto v = optStr(o, "template_thinking_key", source)) c.templateThinkingKey = *v;
  readMappings(c, o, source);
  c.messageFieldTraining = optStr(o, "message_field_training", source);
  c.messageFieldTrainingDetail = optStr(o, "message_field_training_detail", source);
  readRoles(c, o, source);
  c.dropSystemMessage = flag(o, "drop_system_message", false, source);
  c.splitThinking = flag(o, "split_thinking", false, source);
  if (auto n = optInt(o, "sequence_len", 1, int64_t(1) << 20, source)) c.sequenceLen = *n;
  if (auto v = optStr(o, "excess_length_strategy", source)) {
    if (*v != "drop" && *v != "truncate" && *v != "raise")
      throw Error("\"excess_length_strategy\" must be drop, truncate or raise", at(source, "excess_length_strategy"));
    c.excessLengthStrategy = *v;
  }
  c.minSampleLen = optInt(o, "min_sample_len", 0, int64_t(1) << 20, source);
  if (const OrderedJson* p = find(o, "pad_to_sequence_len")) {
    if (!p->is_boolean())
      throw Error("\"pad_to_sequence_len\" must be true, false or null", at(source, "pad_to_sequence_len"));
    c.padToSequenceLen = p->get<bool>();
  }
  c.padToMultipleOf = optInt(o, "pad_to_multiple_of", 1, int64_t(1) << 16, source);
  c.samplePacking = flag(o, "sample_packing", false, source);
  if (auto n = optInt(o, "micro_batch_size", 1, 4096, source)) c.microBatchSize = *n;
  c.multipackRealBatches = flag(o, "multipack_real_batches", false, source);
  if (auto n = optInt(o, "sample_packing_bin_size", 1, int64_t(1) << 20, source)) c.samplePackingBinSize = *n;
  if (auto n = optInt(o, "sample_packing_group_size", 1, int64_t(1) << 30, source)) c.samplePackingGroupSize = *n;
  c.samplePackingSequentially = flag(o, "sample_packing_sequentially", false, source);
  c.curriculumSampling = flag(o, "curriculum_sampling", false, source);
  // validation.py hint_sample_packing_padding: sample_packing sets pad_to_sequence_len when unset
  if (c.samplePacking && !c.padToSequenceLen) c.padToSequenceLen = true;
  if (c.samplePacking && c.microBatchSize * c.sequenceLen > (int64_t(1) << 22))
    throw Error("micro_batch_size x sequence_len is over 2^22 tokens per packed row: refused, never allocated",
                at(source, "micro_batch_size"));
  readSpecialTokens(c, o, source);
  return c;
}

} // namespace maskscope::axolotl
