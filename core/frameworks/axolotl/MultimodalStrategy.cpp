// Axolotl's multimodal processing strategies (MultimodalStrategy.h), read from
// src/axolotl/processing_strategies.py at v0.18.0 (2f5cb9da): get_processing_strategy,
// Qwen2VLProcessingStrategy, _GemmaTurnStrategy / Gemma3ProcessingStrategy, the base
// ProcessingStrategy, _compute_role_keep_mask and ProcessingStrategy.__call__.
#include "core/frameworks/axolotl/MultimodalStrategy.h"
#include "core/util/Error.h"

#include <algorithm>
#include <map>

namespace maskscope::axolotl {

namespace {

// chat_template values get_processing_strategy maps to a strategy maskscope does not reproduce.
const std::map<std::string, std::string>& refusedTemplates() {
  static const std::map<std::string, std::string> m = {
      {"qwen3_5", "Qwen3_5ProcessingStrategy"},
      {"gemma3n", "Gemma3nProcessingStrategy"},
      {"gemma4", "Gemma4ProcessingStrategy"},
      {"gemma4_unified", "Gemma4UnifiedProcessingStrategy"},
      {"llama3_2_vision", "Llama3_2VisionProcessingStrategy"},
      {"llama4", "Llama4ProcessingStrategy"},
      {"pixtral", "PixtralProcessingStrategy"},
      {"mistral_v7_tekken", "MistralV7TekkenProcessingStrategy"},
  };
  return m;
}

// Processor classes its isinstance checks (and the model-support registry) route elsewhere.
const std::map<std::string, std::string>& refusedProcessors() {
  static const std::map<std::string, std::string> m = {
      {"VoxtralProcessor", "VoxtralProcessingStrategy"},
      {"SmolVLMProcessor", "SmolVLM2ProcessingStrategy"},
      {"Mistral3Processor", "Mistral3ProcessingStrategy"},
      {"Glm4vProcessor", "Glm4vProcessingStrategy"},
      {"Glm46VProcessor", "Glm4vProcessingStrategy"},
      {"InternVLProcessor", "InternVLProcessingStrategy"},
      {"PaddleOCRVLProcessor", "PaddleOCR-VL's strategy (model_support registry)"},
  };
  return m;
}

SourceLocation at(const std::string& source, const char* key) { return {source, -1, -1, -1, key}; }

std::vector<int64_t> encodeMarker(const Tokenizer& tok, const std::string& text) {
  const Encoding e = tok.encode(text); // encode(..., add_special_tokens=False)
  return std::vector<int64_t>(e.ids.begin(), e.ids.end());
}

int64_t tokenId(const Tokenizer& tok, const std::string& token, const std::string& source) {
  const auto id = tok.tokenToId(token);
  if (!id)
    throw Error("the tokenizer has no " + token + " token: the processor's image expansion needs it",
                at(source, "processor_type"));
  return *id;
}

// Qwen2VLProcessingStrategy / _GemmaTurnStrategy._build_role_boundaries: (external role, template role).
std::vector<RoleBoundary> builtinBoundaries(const Tokenizer& tok, const std::string& start, const std::string& end,
                                            const std::vector<std::pair<std::string, std::string>>& roles) {
  const std::vector<int64_t> endIds = encodeMarker(tok, end);
  if (endIds.empty()) return {};
  std::vector<RoleBoundary> out;
  for (const auto& [role, templateRole] : roles) {
    std::vector<int64_t> s = encodeMarker(tok, start + templateRole + "\n");
    if (!s.empty()) out.push_back({role, std::move(s), endIds, false, true});
  }
  return out;
}

// _resolve_role_boundary_override.
std::vector<RoleBoundary> overrideBoundaries(const OrderedJson& specs, const Tokenizer& tok, const std::string& src) {
  std::vector<RoleBoundary> out;
  if (!specs.is_array()) throw Error("role_boundaries must be a list", at(src, "role_boundaries"));
  for (size_t i = 0; i < specs.size(); ++i) {
    const OrderedJson& d = specs[i];
    const std::string idx = "cfg.role_boundaries[" + std::to_string(i) + "]";
    const auto text = [&](const char* k) {
      return d.is_object() && d.contains(k) && d[k].is_string() ? d[k].get<std::string>() : std::string();
    };
    if (!d.is_object() || text("role").empty() || !d.contains("start") || !d["start"].is_string())
      throw Error(idx + " must have both 'role' and 'start' (got " + d.dump() + ").", at(src, "role_boundaries"));
    RoleBoundary b{text("role"), encodeMarker(tok, text("start")), {}, false, true};
    if (b.start.empty())
      throw Error(idx + ": start marker '" + text("start") + "' tokenizes to an empty sequence; cannot match.",
                  at(src, "role_boundaries"));
    if (d.contains("end") && !d["end"].is_null()) {
      if (text("end") == "eos_token") {
        const auto eos = tok.specialTokens().eos;
        if (!eos)
          throw Error(idx + " requested end='eos_token' but the tokenizer has no eos_token_id.",
                      at(src, "role_boundaries"));
        b.end = {*eos};
      } else {
        b.end = encodeMarker(tok, text("end"));
        if (b.end.empty())
          throw Error(idx + ": end marker '" + text("end") + "' tokenizes to an empty sequence; cannot match.",
                      at(src, "role_boundaries"));
      }
    }
    b.includeStart = d.value("include_start", false);
    b.includeEnd = d.value("include_end", true);
    out.push_back(std::move(b));
  }
  return out;
}

bool matchesAt(const std::vector<int64_t>& ids, size_t pos, const std::vector<int64_t>& seq) {
  if (seq.empty() || pos + seq.size() > ids.size()) return false;
  return std::equal(seq.begin(), seq.end(), ids.begin() + long(pos));
}

} // namespace

MultimodalStrategy chooseMultimodalStrategy(const MultimodalSettings& s, const std::string& family,
                                            const Tokenizer& tok, const std::string& source) {
  const std::string& type = s.chatTemplateType;
  if (auto it = refusedTemplates().find(type); it != refusedTemplates().end())
    throw Error("chat_template: " + type + " makes Axolotl collate with " + it->second +
                    ", which maskscope does not reproduce (it reproduces Qwen2VLProcessingStrategy for qwen2_vl, "
                    "Gemma3ProcessingStrategy for gemma3, and the base ProcessingStrategy for llava and "
                    "tokenizer_default with a Qwen2-VL, Gemma 3 or LLaVA processor)",
                at(source, "chat_template"));
  MultimodalStrategy st;
  if (type == "qwen2_vl") {
    st.className = "Qwen2VLProcessingStrategy";
    st.boundaries = builtinBoundaries(tok, "<|im_start|>", "<|im_end|>",
                                      {{"system", "system"}, {"user", "user"}, {"assistant", "assistant"}});
    st.maskedTokens = {"<|image_pad|>"};
  } else if (type == "gemma3") {
    st.className = "Gemma3ProcessingStrategy";
    st.boundaries =
        builtinBoundaries(tok, "<start_of_turn>", "<end_of_turn>", {{"assistant", "model"}, {"user", "user"}});
    // image_token becomes the tokenizer's boi_token; process_labels adds <image_soft_token>
    st.maskedTokens = {"<start_of_image>", "<image_soft_token>"};
  } else {
    const auto& procs = refusedProcessors();
    if (auto it = procs.find(s.processorType); it != procs.end())
      throw Error("processor_type: " + s.processorType + " makes Axolotl collate with " + it->second +
                      ", which maskscope does not reproduce",
                  at(source, "processor_type"));
    st.className = "ProcessingStrategy";
    // processor.image_token of the processor whose placeholder the template wrote
    if (family == "qwen2-vl")
      st.maskedTokens = {"<|image_pad|>"};
    else if (family == "gemma3")
      st.maskedTokens = {"<image_soft_token>"};
    else if (family == "llava")
      st.maskedTokens = {"<image>"};
    else
      throw Error("chat_template: " + (type.empty() ? std::string("(unset)") : type) +
                      " renders no image placeholder maskscope knows (<|image_pad|>, <start_of_image>, <image>), so "
                      "the processor and its image token are unknown; Axolotl's base ProcessingStrategy would mask "
                      "processor.image_token",
                  at(source, "chat_template"));
  }
  for (const std::string& t : st.maskedTokens) st.maskedIds.insert(tokenId(tok, t, source));
  if (s.roleBoundaries.is_array() && !s.roleBoundaries.empty()) // a non-empty override replaces the built-ins
    st.boundaries = overrideBoundaries(s.roleBoundaries, tok, source);
  return st;
}

std::vector<uint8_t> roleKeepMask(const std::vector<int64_t>& label, const std::vector<RoleBoundary>& boundaries,
                                  const std::set<std::string>& rolesToTrain, const std::string& trainOnEos) {
  const size_t n = label.size();
  std::vector<uint8_t> mask(n, 0);
  std::optional<std::pair<size_t, size_t>> lastEnd;
  const auto fill = [&](size_t a, size_t b) {
    for (size_t k = a; k < b && k < n; ++k) mask[k] = 1;
  };
  size_t j = 0;
  while (j < n) {
    const RoleBoundary* best = nullptr; // longest start wins; the first of equal length
    for (const RoleBoundary& b : boundaries)
      if (matchesAt(label, j, b.start) && (!best || b.start.size() > best->start.size())) best = &b;
    if (!best) {
      ++j;
      continue;
    }
    const size_t contentStart = j + best->start.size();
    size_t endAfter = n;
    bool found = false;
    if (!best->end.empty())
      for (size_t k = contentStart; k < n; ++k)
        if (matchesAt(label, k, best->end)) {
          endAfter = k + best->end.size();
          found = true;
          break;
        }
    const size_t contentEnd = found ? endAfter - best->end.size() : endAfter;
    if (rolesToTrain.count(best->role)) {
      if (best->includeStart) fill(j, contentStart);
      fill(contentStart, contentEnd);
      if (found && best->includeEnd && trainOnEos != "none" && trainOnEos != "last") fill(contentEnd, endAfter);
      if (found && best->includeEnd && trainOnEos == "last") lastEnd = std::pair{contentEnd, endAfter};
    } else if (found && best->includeEnd && trainOnEos == "all") {
      fill(contentEnd, endAfter);
    }
    // include_end=False: the end marker is matched again as the next start
    j = found && !best->includeEnd ? endAfter - best->end.size() : endAfter;
  }
  if (trainOnEos == "last" && lastEnd) fill(lastEnd->first, lastEnd->second);
  return mask;
}

std::vector<int64_t> multimodalLabels(const std::vector<int64_t>& ids, const MultimodalStrategy& st,
                                      const MultimodalSettings& s, std::optional<int64_t> padId) {
  std::vector<uint8_t> keep(ids.size(), 1); // train_on_inputs, or no boundaries: every token
  if (!s.trainOnInputs && !st.boundaries.empty())
    keep = roleKeepMask(ids, st.boundaries, std::set<std::string>(s.rolesToTrain.begin(), s.rolesToTrain.end()),
                        s.trainOnEos);
  std::vector<int64_t> labels = ids;
  for (size_t i = 0; i < ids.size(); ++i)
    if (!keep[i] || (padId && ids[i] == *padId) || st.maskedIds.count(ids[i])) labels[i] = -100;
  return labels;
}

namespace {

bool isLegacySchema(const OrderedJson& m) {
  return m.is_array() && !m.empty() && m[0].is_object() && m[0].contains("from") && m[0].contains("value");
}

OrderedJson legacyMessages(const OrderedJson& conversations) {
  if (!conversations.is_array()) throw Error("\"conversations\" is not a list");
  OrderedJson out = OrderedJson::array();
  for (const auto& c : conversations) {
    if (!c.is_object() || !c.contains("from") || !c.contains("value"))
      throw Error("a \"conversations\" turn lacks \"from\" or \"value\"");
    std::string role = c["from"].is_string() ? c["from"].get<std::string>() : std::string();
    if (role == "human") role = "user";
    if (role == "gpt") role = "assistant";
    out.push_back({{"role", role}, {"content", c["value"]}});
  }
  return out;
}

// convert_messages_to_multimedia_messages: role and content only; a string content becomes one text
// part; a message whose content is neither a string nor a list is dropped.
OrderedJson multimediaMessages(const OrderedJson& messages) {
  if (!messages.is_array()) throw Error("\"messages\" is not a list");
  OrderedJson out = OrderedJson::array();
  for (size_t i = 0; i < messages.size(); ++i) {
    const OrderedJson& m = messages[i];
    const std::string where = "messages[" + std::to_string(i) + "]";
    if (!m.is_object() || !m.contains("content")) throw Error(where + " has no \"content\" (KeyError in Axolotl)");
    if (!m.contains("role")) throw Error(where + " has no \"role\" (KeyError in Axolotl)");
    if (m["content"].is_string())
      out.push_back({{"role", m["role"]}, {"content", {{{"type", "text"}, {"text", m["content"]}}}}});
    else if (m["content"].is_array())
      out.push_back({{"role", m["role"]}, {"content", m["content"]}});
  }
  return out;
}

// The first image of the "images" / "image" column into the last message's first bare image part
// (its inner loop only breaks per message), else appended to the first user message.
void placeColumnImage(OrderedJson& messages, const OrderedJson& column, const char* key, const MultimodalSettings& s,
                      std::vector<std::string>& warnings) {
  if (!column.is_array() || column.empty() || !column[0].is_object())
    throw Error(std::string("\"") + key +
                "\" must be a list of images given as {\"width\": W, \"height\": H} (maskscope never loads pixels)");
  if (column.size() > 1)
    warnings.push_back("Found " + std::to_string(column.size()) +
                       " images in a sample. Using the first one.If you are using a dataset with multiple images per "
                       "sample, please convert it to use multi-content Messages.");
  int64_t w = column[0].value("width", int64_t(0)), h = column[0].value("height", int64_t(0));
  if (s.imageSize) w = s.imageSize->first, h = s.imageSize->second; // resized (or padded square) before the processor
  std::optional<size_t> firstUser, msgIdx, partIdx;
  for (size_t m = 0; m < messages.size(); ++m) {
    if (!firstUser && messages[m]["role"] == "user") firstUser = m;
    const OrderedJson& parts = messages[m]["content"];
    for (size_t i = 0; i < parts.size(); ++i) {
      if (!parts[i].is_object() || !parts[i].contains("type"))
        throw Error("messages[" + std::to_string(m) + "].content[" + std::to_string(i) +
                    "] has no \"type\" (KeyError in Axolotl)");
      const bool bare = parts[i]["type"] == "image" && !parts[i].contains("image") && !parts[i].contains("url") &&
                        !parts[i].contains("path") && !parts[i].contains("base64");
      if (bare) {
        msgIdx = m, partIdx = i;
        break;
      }
    }
  }
  if (msgIdx) {
    OrderedJson& part = messages[*msgIdx]["content"][*partIdx];
    part["width"] = w, part["height"] = h;
    part["image"] = {{"width", w}, {"height", h}};
  } else {
    const size_t target = firstUser.value_or(0);
    if (target >= messages.size()) throw Error("a row with an image column has no message to put the image in");
    messages[target]["content"].push_back({{"type", "image"}, {"width", w}, {"height", h}});
  }
}

} // namespace

OrderedJson normalizeMultimodalRow(const OrderedJson& rowIn, const MultimodalSettings& s,
                                   std::vector<std::string>& warnings) {
  if (!rowIn.is_object()) throw Error("the row is not an object");
  OrderedJson row = rowIn;
  std::string field; // _get_messages_field
  for (const std::string& name : s.fieldMessages)
    if (row.contains(name) && !row[name].is_null()) {
      field = name;
      break;
    }
  if (field.empty() && row.contains("messages") && !row["messages"].is_null()) field = "messages";
  if (!field.empty() && field != "messages" && field != "conversations") {
    const OrderedJson msgs = row[field];
    const bool legacy = isLegacySchema(msgs);
    row.erase(field);
    row[legacy ? "conversations" : "messages"] = msgs;
    if (legacy) row.erase("messages");
  }
  if (!row.contains("messages") && !row.contains("conversations"))
    throw Error("Only configured `field_messages`, `messages`, and `conversations` message keys are currently "
                "supported.");
  OrderedJson messages;
  if (row.contains("messages") && !row["messages"].is_null())
    messages = row["messages"];
  else if (row.contains("conversations"))
    messages = legacyMessages(row["conversations"]);
  else
    throw Error("`messages` is present but None; provide non-null `messages` or a `conversations` field.");
  messages = multimediaMessages(messages);
  for (const char* key : {"images", "image"})
    if (row.contains(key)) {
      if (!row[key].is_null()) placeColumnImage(messages, row[key], key, s, warnings);
      break;
    }
  return messages;
}

} // namespace maskscope::axolotl
