// Unsloth's input rows (see UnslothRows.h).
#include "core/frameworks/unsloth/UnslothRows.h"
#include "core/data/DatasetReader.h"
#include "core/data/RowShapes.h"
#include "core/frameworks/ChatTokenization.h"
#include "core/util/Error.h"

namespace maskscope::unsloth {

namespace {

std::vector<int64_t> encode(const Tokenizer& t, const std::string& text, bool specials) {
  EncodeOptions eo;
  eo.addSpecialTokens = specials;
  eo.tokenStrings = false;
  const Encoding e = t.encode(text, eo);
  return std::vector<int64_t>(e.ids.begin(), e.ids.end());
}

// tokenizer(text, truncation=True, max_length=n, add_special_tokens=s): the text's own tokens are cut
// so that, with the special tokens around them, the row holds at most n (the specials stay).
std::vector<int64_t> tokenizeTruncated(const Tokenizer& t, const std::string& text, bool specials, int64_t n) {
  std::vector<int64_t> full = encode(t, text, specials);
  if (int64_t(full.size()) <= n) return full;
  if (!specials) return std::vector<int64_t>(full.begin(), full.begin() + n);
  const std::vector<int64_t> plain = encode(t, text, false);
  // full = prefix + plain + suffix
  size_t prefix = 0;
  while (prefix + plain.size() <= full.size() && !std::equal(plain.begin(), plain.end(), full.begin() + long(prefix)))
    ++prefix;
  if (prefix + plain.size() > full.size()) return std::vector<int64_t>(full.begin(), full.begin() + n);
  const size_t suffix = full.size() - prefix - plain.size();
  const int64_t keep = std::max<int64_t>(0, n - int64_t(prefix + suffix));
  std::vector<int64_t> out(full.begin(), full.begin() + long(prefix));
  out.insert(out.end(), plain.begin(), plain.begin() + std::min<int64_t>(keep, int64_t(plain.size())));
  out.insert(out.end(), full.end() - long(suffix), full.end());
  return out;
}

UnslothRow preTokenized(const InputRow& row, const FrameworkContext& ctx) {
  UnslothRow u;
  u.row = readPreTokenizedRow(row, ctx.vocabSize());
  if (const auto* labels = u.row.find("labels")) u.oldLabels = *labels;
  return u;
}

struct RowText {
  std::string text;
  TokenizedText rendered; // a messages row: its tokens with their roles (for lint and the app)
};

// The text of a text row, or of a messages row through the chat template.
RowText rowText(const InputRow& row, const FrameworkContext& ctx, const std::string& field) {
  auto it = row.value.find(field);
  if (it != row.value.end()) {
    if (!it->is_string()) throwRowError(row, field, "expected a string");
    return {it->get<std::string>(), {}};
  }
  if (!ctx.chatTemplate)
    throwRowError(row, field, "missing (a row holds input_ids, \"" + field + "\", or messages with a chat template)");
  Conversation c;
  try {
    c = conversationFromJson(row.value);
    if (c.plainText) throwRowError(row, field, "a prompt/completion row of strings has no \"" + field + "\"");
    RenderOptions ro = ctx.render;
    ro.addGenerationPrompt = false;
    ro.computeMessageSpans = false;
    if (!c.tools.is_null()) ro.tools = c.tools;
    RowText out{ctx.chatTemplate->render(c.messages, ro).text, {}};
    ChatTemplateCall call;
    call.tools = c.tools;
    out.rendered = applyChatTemplateTokens(*ctx.tokenizer, *ctx.chatTemplate, c.messages, ctx.render, call);
    return out;
  } catch (const Error& e) {
    throwRowError(row, field, e.message());
  }
}

} // namespace

std::vector<UnslothRow> unslothInputRows(const std::vector<InputRow>& rows, FrameworkContext& ctx, int64_t maxLength) {
  std::vector<UnslothRow> out;
  if (rows.empty()) return out;
  const std::string field = ctx.spec.string("dataset_text_field");
  if (rows.front().value.contains("input_ids")) { // column_names of the first row decide, as upstream
    for (const InputRow& row : rows) {
      UnslothRow u = preTokenized(row, ctx);
      u.row.sourceRows = {row.index};
      u.row.sourceLines = {row.line};
      out.push_back(std::move(u));
    }
    return out;
  }
  const Tokenizer& tok = ctx.requireTokenizer("Unsloth's text rows");
  std::vector<RowText> texts;
  for (const InputRow& row : rows) texts.push_back(rowText(row, ctx, field));
  // double-BOS check on the first row: add_special_tokens = False when the text or template has BOS
  const std::string bos = tok.specialTokens().bosText;
  const std::string chatTemplate = ctx.chatTemplate ? ctx.chatTemplate->source() : std::string();
  const bool specials =
      bos.empty() || !(texts.front().text.starts_with(bos) || chatTemplate.find(bos) != std::string::npos);
  if (!specials)
    ctx.facts.warnings.push_back("Unsloth: We found double BOS tokens - we shall remove one automatically.");
  for (size_t i = 0; i < rows.size(); ++i) {
    UnslothRow u;
    std::vector<int64_t> ids = tokenizeTruncated(tok, texts[i].text, specials, maxLength);
    // roles per position where the row is the template's render tokenized as is (no specials added)
    const auto& r = texts[i].rendered;
    if (!r.meta.empty() && ids.size() <= r.inputIds.size() && std::equal(ids.begin(), ids.end(), r.inputIds.begin()))
      u.row.meta.assign(r.meta.begin(), r.meta.begin() + long(ids.size()));
    u.row.set("input_ids", ids);
    u.row.set("attention_mask", std::vector<int64_t>(ids.size(), 1));
    u.row.sourceRows = {rows[i].index};
    u.row.sourceLines = {rows[i].line};
    out.push_back(std::move(u));
  }
  return out;
}

} // namespace maskscope::unsloth
