// Collator specs: presets named after what users run, and the key=value / JSON forms.
#include "core/collate/CollatorSpec.h"
#include "core/collate/CollatorPair.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"
#include "core/util/JsonParse.h"

#include <algorithm>
#include <charconv>

namespace maskscope {

namespace {

// The presets that reproduce a library call (the correct set-ups and the approximations).
std::vector<CollatorPreset> libraryPresets() {
  // Each preset names the library call it reproduces; the settings are what that call does on a
  // chat dataset rendered through the template (see tests/collate for the hand-worked arrays).
  return {
      {"default",
       "correct SFT: right padding to the longest row, pads -100 and unattended, replies graded",

       "the correct SFT set-up: right padding to the longest row, pads -100 and unattended, "
       "assistant replies and their closing token graded",
       "",
       false,
       {}},
      {"hf-lm",
       "DataCollatorForLanguageModeling: labels = input_ids, -100 wherever input_ids == pad id",

       "transformers DataCollatorForLanguageModeling(tokenizer, mlm=False): tokenizer.pad to the "
       "longest row (attention 0 on pads), labels = input_ids.clone() with "
       "labels[labels == pad_token_id] = -100",
       "labels=mask_pad_id",
       false,
       {R"({"framework": "transformers", "collator": "DataCollatorForLanguageModeling", "mlm": false})",
        PresetFrameworkRows::TokenIds, ""}},
      {"hf-seq2seq-style",
       "DataCollatorForSeq2Seq on copied labels: every real token graded, pads -100",

       "transformers DataCollatorForSeq2Seq on rows whose labels are a copy of input_ids: "
       "labels padded with label_pad_token_id=-100, every real token graded",
       "labels=pad_masked",
       false,
       {R"({"framework": "transformers", "collator": "DataCollatorForSeq2Seq"})",
        PresetFrameworkRows::TokenIdsWithLabels, ""}},
      {"hf-flattening",
       "DataCollatorWithFlattening: one row, positions restart per example, no attention_mask",

       "transformers DataCollatorWithFlattening: the batch concatenated into one row, "
       "position_ids restart per example, labels = input_ids with the first of each example "
       "-100 (separator_id); it writes no attention_mask (maskscope shows ones)",
       "packing=padding_free,labels=pad_masked",
       false,
       {R"({"framework": "transformers", "collator": "DataCollatorWithFlattening"})", PresetFrameworkRows::TokenIds,
        ""}},
      {"trl-completion-only",
       "TRL completion_only_loss: only the completion after the prompt graded",

       "TRL SFTTrainer completion_only_loss=True (DataCollatorForLanguageModeling with "
       "completion_mask) on prompt/completion rows: right padding, pads -100, everything "
       "after the prompt (with its generation prompt) graded; on messages rows maskscope "
       "takes the final assistant message as the completion. SFTConfig's defaults: "
       "max_length=1024, truncation_mode='keep_start' (each sequence cut to its first 1024 tokens)",
       "labels=completion_only,max_length=1024,truncation=keep_start",
       false,
       {R"({"framework": "trl", "completion_only_loss": true})", PresetFrameworkRows::Conversations,
        "on messages rows TRL builds no completion_mask (it comes from prompt/completion rows), so every "
        "token is graded; the preset takes the final assistant message as the completion"}},
      {"trl-assistant-only",
       "TRL assistant_only_loss: only assistant replies ({% generation %} spans) graded",

       "TRL SFTTrainer assistant_only_loss=True: labels -100 where assistant_masks == 0, "
       "the mask built from the template's {% generation %} spans. With a template that has none "
       "TRL finds no reply tokens and stops; maskscope recovers each reply's content and closing "
       "token from the message roles instead, in every turn alike, says so (collate: \"replies: "
       "recovered from the message roles\") and lint reports template-no-generation-markers. "
       "SFTConfig's defaults: max_length=1024, truncation_mode='keep_start'",
       "labels=assistant_only,max_length=1024,truncation=keep_start",
       false,
       {R"({"framework": "trl", "assistant_only_loss": true})", PresetFrameworkRows::Conversations, ""}},
      {"trl-padding-free",
       "TRL padding_free: one row, positions restart per example, replies graded",

       "TRL SFTTrainer padding_free=True with assistant_only_loss=True: one row, "
       "position_ids restart per example, labels[position_ids == 0] = -100, no attention_mask; "
       "each example first cut to SFTConfig's max_length=1024 (truncation_mode='keep_start')",
       "packing=padding_free,labels=assistant_only,max_length=1024,truncation=keep_start",
       false,
       {R"({"framework": "trl", "padding_free": true, "assistant_only_loss": true})",
        PresetFrameworkRows::Conversations, ""}},
      {"axolotl-packed",
       "axolotl sample_packing: packed rows, segment-id attention_mask, positions reset",

       "axolotl sample_packing with pad_to_sequence_len (V2BatchSamplerDataCollatorForSeq2Seq): "
       "examples packed per row, attention_mask holds segment ids 1, 2, 3, ... (0 pad), "
       "position ids reset per example, prompts -100 (train_on_inputs: false)",
       "packing=block_diagonal,pad_to=max_length,max_length=512,labels=assistant_only",
       false,
       {R"({"framework": "axolotl", "type": "chat_template", "sample_packing": true, "pad_to_sequence_len": true, "sequence_len": 512})",
        PresetFrameworkRows::Conversations,
        "Axolotl grades the end-of-turn token per eot_tokens / train_on_eot (default: the tokenizer's EOS), "
        "the preset always grades each reply's closing token; Axolotl bins rows by multipack, the preset "
        "fills bins in row order; Axolotl's first step is one bin (micro_batch_size 1)"}},
  };
}

// The presets that reproduce a masking bug (packing without a block mask included).
std::vector<CollatorPreset> buggyPresets() {
  return {
      {"naive-packed",
       "packed rows with positions reset but a 0/1 mask: examples attend to each other",

       "examples concatenated into rows with an EOS after each (old TRL ConstantLengthDataset "
       "style), positions restarted, but a plain 0/1 attention mask, so eager/SDPA attend "
       "across examples",
       "packing=reset_positions,packing_separator=true,pad_to=max_length,max_length=512,labels=assistant_only",
       true,
       {}},
      {"buggy-max-length-all-ones",
       "padding to max_length, attention all ones, labels = input_ids: pads graded",

       "the classic bug report: padding='max_length', truncation=True, attention_mask all "
       "ones, labels = input_ids (pads graded and attended)",
       "pad_to=max_length,max_length=256,truncation=keep_start,attention=all_ones,labels=all",
       true,
       {}},
      {"buggy-pad-is-eos",
       "pad_token = eos_token: masking pads masks every EOS, the model never learns to stop",

       "tokenizer.pad_token = tokenizer.eos_token with DataCollatorForLanguageModeling: "
       "masking pad ids also masks every EOS, so the model never learns to stop",
       "pad_token=eos,labels=mask_pad_id",
       true,
       {}},
      {"buggy-last-turn-only",
       "only the final assistant turn of a multi-turn chat graded",
       "a collator that grades only the final assistant turn of multi-turn chats",
       "labels=last_turn",
       true,
       {}},
      {"buggy-no-position-reset",
       "packing without position reset or block mask: examples run on and attend across",

       "packing without position ids: the model counts 0..T-1 across the row, so "
       "the second example starts where the first ended (and attends to it)",
       "packing=naive,pad_to=max_length,max_length=512,labels=assistant_only",
       true,
       {}},
      {"buggy-left-pad-positions",
       "left padding with position ids 0..T-1 that count the pads",

       "left padding with position ids 0..T-1 that count the pads (no "
       "position_ids passed in training)",
       "padding_side=left,position_ids=arange",
       true,
       {}},
  };
}

} // namespace

const std::vector<CollatorPreset>& collatorPresets() {
  static const std::vector<CollatorPreset> presets = [] {
    std::vector<CollatorPreset> all = libraryPresets();
    for (CollatorPreset& p : buggyPresets()) all.push_back(std::move(p));
    return all;
  }();
  return presets;
}

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool parseBool(const std::string& key, const std::string& v) {
  std::string l = lower(v);
  if (l == "true" || l == "1" || l == "yes" || l == "on") return true;
  if (l == "false" || l == "0" || l == "no" || l == "off") return false;
  throw Error("collator key " + key + ": expected true or false, got \"" + v + "\"");
}

int parseInt(const std::string& key, const std::string& v, int lo, int hi) {
  int out = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || p != v.data() + v.size() || out < lo || out > hi)
    throw Error("collator key " + key + ": expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                "], got \"" + v + "\"");
  return out;
}

[[noreturn]] void badValue(const std::string& key, const std::string& v, const char* allowed) {
  throw Error("collator key " + key + ": unknown value \"" + v + "\" (allowed: " + allowed + ")");
}

} // namespace

void applyCollatorSetting(CollatorSpec& s, const std::string& rawKey, const std::string& v) {
  std::string key = lower(rawKey);
  if (key == "padding_side") {
    if (v == "right")
      s.paddingSide = PaddingSide::Right;
    else if (v == "left")
      s.paddingSide = PaddingSide::Left;
    else
      badValue(key, v, "right, left");
  } else if (key == "pad_to" || key == "padding") {
    if (v == "longest" || v == "true")
      s.padTo = PadTo::Longest;
    else if (v == "max_length")
      s.padTo = PadTo::MaxLength;
    else if (v.starts_with("multiple_of:")) {
      s.padTo = PadTo::MultipleOf;
      s.multipleOf = parseInt(key, v.substr(12), 1, 1 << 16);
    } else
      badValue(key, v, "longest, max_length, multiple_of:N");
  } else if (key == "pad_to_multiple_of") {
    s.padTo = PadTo::MultipleOf;
    s.multipleOf = parseInt(key, v, 1, 1 << 16);
  } else if (key == "max_length") {
    s.maxLength = parseInt(key, v, 1, 1 << 20);
  } else if (key == "truncation") {
    if (v == "none" || v == "false")
      s.truncation = Truncation::None;
    else if (v == "keep_start" || v == "true" || v == "right")
      s.truncation = Truncation::KeepStart;
    else if (v == "keep_end" || v == "left")
      s.truncation = Truncation::KeepEnd;
    else
      badValue(key, v, "none, keep_start, keep_end");
  } else if (key == "pad_token") {
    s.padToken = v;
  } else if (key == "labels") {
    if (v == "all")
      s.labels = LabelMode::All;
    else if (v == "pad_masked")
      s.labels = LabelMode::PadMasked;
    else if (v == "mask_pad_id")
      s.labels = LabelMode::MaskPadId;
    else if (v == "completion_only")
      s.labels = LabelMode::CompletionOnly;
    else if (v == "assistant_only")
      s.labels = LabelMode::AssistantOnly;
    else if (v == "last_turn")
      s.labels = LabelMode::LastTurn;
    else
      badValue(key, v, "all, pad_masked, mask_pad_id, completion_only, assistant_only, last_turn");
  } else if (key == "grade_closing_token") {
    s.gradeClosingToken = parseBool(key, v);
  } else if (key == "think") {
    if (v == "graded")
      s.gradeThink = true;
    else if (v == "masked")
      s.gradeThink = false;
    else
      badValue(key, v, "graded, masked");
  } else if (key == "attention") {
    if (v == "correct")
      s.attention = AttentionMode::Correct;
    else if (v == "all_ones")
      s.attention = AttentionMode::AllOnes;
    else
      badValue(key, v, "correct, all_ones");
  } else if (key == "packing") {
    if (v == "none" || v == "false")
      s.packing = Packing::None;
    else if (v == "naive")
      s.packing = Packing::Naive;
    else if (v == "reset_positions")
      s.packing = Packing::ResetPositions;
    else if (v == "block_diagonal")
      s.packing = Packing::BlockDiagonal;
    else if (v == "padding_free")
      s.packing = Packing::PaddingFree;
    else
      badValue(key, v, "none, naive, reset_positions, block_diagonal, padding_free");
  } else if (key == "packing_separator") {
    s.packingSeparator = v == "eos" ? true : parseBool(key, v);
  } else if (key == "add_bos") {
    s.addBos = parseBool(key, v);
  } else if (key == "position_ids") {
    if (v == "auto")
      s.positionIds = PositionMode::Auto;
    else if (v == "arange")
      s.positionIds = PositionMode::Arange;
    else
      badValue(key, v, "auto, arange");
  } else {
    throw Error("unknown collator key \"" + rawKey +
                "\" (keys: padding_side, pad_to, max_length, truncation, "
                "pad_token, labels, grade_closing_token, think, attention, packing, packing_separator, add_bos, "
                "position_ids)");
  }
  if (s.name == "default" && key != "name") s.name = "custom";
}

static void applyList(CollatorSpec& s, const std::string& list) {
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? list.size() + 1 : comma + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string::npos) throw Error("collator setting \"" + item + "\" is not key=value");
    applyCollatorSetting(s, item.substr(0, eq), item.substr(eq + 1));
  }
}

static CollatorSpec presetSpec(const CollatorPreset& p) {
  CollatorSpec s;
  applyList(s, p.settings);
  s.name = p.name;
  return s;
}

// depth counts collator files reached through "preset": a file naming itself (or a cycle of files)
// must end in an Error, not in unbounded recursion.
static CollatorSpec parseCollatorSpecAt(const std::string& spec, int depth) {
  if (spec.empty()) return presetSpec(collatorPresets().front());
  if (spec.ends_with(".json") || fileExists(spec)) {
    std::string text = readFileCapped(spec, int64_t(1) << 20);
    auto j = parseJsonOrThrow(text, {spec});
    if (!j.is_object()) throw Error("collator file is not a JSON object", {spec});
    CollatorSpec s;
    if (j.contains("preset")) {
      if (!j["preset"].is_string()) throw Error("\"preset\" is not a string", {spec, -1, -1, -1, "preset"});
      if (depth >= 8)
        throw Error("collator files nest \"preset\" more than 8 deep (a cycle?)", {spec, -1, -1, -1, "preset"});
      s = parseCollatorSpecAt(j["preset"].get<std::string>(), depth + 1);
    }
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "preset" || it.key() == "name") continue;
      std::string v = it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
      try {
        applyCollatorSetting(s, it.key(), v);
      } catch (const Error& e) {
        throw Error(e.message(), {spec, -1, -1, -1, it.key()});
      }
    }
    s.name = j.contains("name") && j["name"].is_string() ? j["name"].get<std::string>() : spec;
    return s;
  }
  std::string head = spec.substr(0, spec.find(','));
  std::string rest = head.size() < spec.size() ? spec.substr(head.size() + 1) : std::string();
  for (const auto& p : collatorPresets()) {
    if (p.name == head) {
      CollatorSpec s = presetSpec(p);
      applyList(s, rest);
      s.name = rest.empty() ? p.name : p.name + "," + rest;
      return s;
    }
  }
  if (head.find('=') == std::string::npos) {
    std::string names;
    for (const auto& p : collatorPresets()) names += (names.empty() ? "" : ", ") + p.name;
    throw Error("unknown collator preset \"" + head + "\" (presets: " + names + ")");
  }
  CollatorSpec s;
  applyList(s, spec);
  s.name = spec;
  return s;
}

CollatorSpec parseCollatorSpec(const std::string& spec) { return parseCollatorSpecAt(spec, 0); }

std::pair<std::string, std::string> splitCollatorPair(const std::string& text) {
  return splitCollatorPair(text, [](const std::string& half) { parseCollatorSpec(half); });
}

std::pair<std::string, std::string> splitCollatorPair(const std::string& text,
                                                      const std::function<void(const std::string&)>& checkHalf) {
  std::vector<std::pair<std::string, std::string>> valid;
  std::string firstReason;
  for (size_t comma = text.find(','); comma != std::string::npos; comma = text.find(',', comma + 1)) {
    std::pair<std::string, std::string> halves{text.substr(0, comma), text.substr(comma + 1)};
    if (halves.first.empty() || halves.second.empty()) continue;
    try {
      checkHalf(halves.first);
      checkHalf(halves.second);
      valid.push_back(std::move(halves));
    } catch (const Error& e) {
      if (firstReason.empty()) firstReason = e.what();
    }
  }
  if (valid.size() == 1) return valid.front();
  if (valid.empty())
    throw Error("\"" + text + "\" is not two collator specs A,B" +
                (firstReason.empty() ? std::string(" (no comma between two specs)") : ": " + firstReason));
  throw Error("\"" + text + "\" splits into two collator specs in " + std::to_string(valid.size()) + " ways (\"" +
              valid[0].first + "\" + \"" + valid[0].second + "\" or \"" + valid[1].first + "\" + \"" + valid[1].second +
              "\"); put the settings of each side in a collator JSON file");
}

std::string collatorPresetsText() {
  std::string out = "Collator presets (--collator NAME or NAME,key=value,...; \"bug\" = reproduces a bug):\n";
  for (const CollatorPreset& p : collatorPresets()) {
    std::string line = "  " + p.name;
    line.resize(std::max<size_t>(line.size() + 1, 29), ' ');
    out += line + (p.buggy ? "bug  " : "     ") + p.summary + "\n";
    if (p.framework.spec.empty()) continue;
    // The exact reproduction it approximates, and on which rows the two are the same batch.
    const std::string on = p.framework.rows == PresetFrameworkRows::Conversations
                               ? "the same rows"
                               : "the preset's token ids as pre-tokenized rows";
    out += std::string(34, ' ') + (p.framework.differs.empty() ? "= " : "~ ") + p.framework.spec +
           (p.framework.differs.empty() ? " on " + on + "\n" : ": " + p.framework.differs + "\n");
  }
  out += "A template without {% generation %} (the stock Llama-3, Qwen3, Gemma-3 ones): every preset recovers\n"
         "each reply's content and closing token from the message roles, in every turn alike (TRL would find no\n"
         "reply tokens; `maskscope patch-template` writes a template with markers).\n";
  return out;
}

nlohmann::json collatorPresetsJson() {
  nlohmann::json list = nlohmann::json::array();
  for (const CollatorPreset& p : collatorPresets())
    list.push_back(
        {{"name", p.name},
         {"summary", p.summary},
         {"buggy", p.buggy},
         {"settings", p.settings},
         {"mirrors", p.mirrors},
         {"spec", presetSpec(p).toJson()},
         {"framework", p.framework.spec.empty() ? nlohmann::json()
                                                : nlohmann::json{{"spec", nlohmann::json::parse(p.framework.spec)},
                                                                 {"rows", toString(p.framework.rows)},
                                                                 {"differs", p.framework.differs}}}});
  return list;
}

const char* toString(PresetFrameworkRows v) {
  switch (v) {
  case PresetFrameworkRows::Conversations:
    return "conversations";
  case PresetFrameworkRows::TokenIds:
    return "input_ids";
  case PresetFrameworkRows::TokenIdsWithLabels:
    return "input_ids+labels";
  }
  return "?";
}

const char* toString(PaddingSide v) { return v == PaddingSide::Left ? "left" : "right"; }
const char* toString(Truncation v) {
  return v == Truncation::None ? "none" : v == Truncation::KeepStart ? "keep_start" : "keep_end";
}
const char* toString(LabelMode v) {
  switch (v) {
  case LabelMode::All:
    return "all";
  case LabelMode::PadMasked:
    return "pad_masked";
  case LabelMode::MaskPadId:
    return "mask_pad_id";
  case LabelMode::CompletionOnly:
    return "completion_only";
  case LabelMode::AssistantOnly:
    return "assistant_only";
  case LabelMode::LastTurn:
    return "last_turn";
  }
  return "?";
}
const char* toString(AttentionMode v) { return v == AttentionMode::Correct ? "correct" : "all_ones"; }
const char* toString(Packing v) {
  switch (v) {
  case Packing::None:
    return "none";
  case Packing::Naive:
    return "naive";
  case Packing::ResetPositions:
    return "reset_positions";
  case Packing::BlockDiagonal:
    return "block_diagonal";
  case Packing::PaddingFree:
    return "padding_free";
  }
  return "?";
}
std::string padToString(const CollatorSpec& s) {
  if (s.padTo == PadTo::Longest) return "longest";
  if (s.padTo == PadTo::MaxLength) return "max_length";
  return "multiple_of:" + std::to_string(s.multipleOf);
}

nlohmann::json CollatorSpec::toJson() const {
  return {{"name", name},
          {"padding_side", toString(paddingSide)},
          {"pad_to", padToString(*this)},
          {"max_length", maxLength},
          {"truncation", toString(truncation)},
          {"pad_token", padToken},
          {"labels", toString(labels)},
          {"grade_closing_token", gradeClosingToken},
          {"think", gradeThink ? "graded" : "masked"},
          {"attention", toString(attention)},
          {"packing", toString(packing)},
          {"packing_separator", packingSeparator},
          {"add_bos", addBos},
          {"position_ids", positionIds == PositionMode::Auto ? "auto" : "arange"}};
}

std::string CollatorSpec::describe() const {
  std::string d = std::string(toString(paddingSide)) + " padding to " + padToString(*this);
  if (padTo == PadTo::MaxLength || truncation != Truncation::None)
    d += " (max_length " + std::to_string(maxLength) + ")";
  d += ", labels " + std::string(toString(labels));
  if (!gradeClosingToken) d += " without the closing token";
  if (!gradeThink) d += ", think spans -100";
  d += ", attention " + std::string(toString(attention));
  if (packing != Packing::None) d += ", packing " + std::string(toString(packing));
  if (addBos) d += ", extra BOS";
  if (!padToken.empty()) d += ", pad token " + padToken;
  return d;
}

} // namespace maskscope
