// Per-position facts for Axolotl rows (see AxolotlMeta.h): the template engine's message spans
// mapped onto the tokens' byte offsets.
#include "core/frameworks/axolotl/AxolotlMeta.h"

namespace maskscope::axolotl {

PositionKind kindOfRole(const std::string& role) {
  if (role == "system") return PositionKind::System;
  if (role == "user") return PositionKind::User;
  if (role == "assistant") return PositionKind::Assistant;
  if (role == "tool" || role == "ipython" || role == "function") return PositionKind::Tool;
  return PositionKind::Unknown;
}

std::vector<PositionMeta> axolotlPositionMeta(const Tokenizer& tokenizer, const JinjaChatTemplate& chatTemplate,
                                              const std::vector<nlohmann::ordered_json>& turns,
                                              const nlohmann::ordered_json& tools, const RenderOptions& renderIn,
                                              const std::vector<int64_t>& inputIds) {
  std::vector<PositionMeta> meta(inputIds.size());
  RenderOptions render = renderIn;
  render.addGenerationPrompt = false;
  render.computeMessageSpans = true;
  nlohmann::ordered_json messages = nlohmann::ordered_json::array();
  for (const auto& t : turns) messages.push_back(t);
  RenderResult r;
  try {
    r = chatTemplate.renderJson(messages, render, tools, render.extra);
  } catch (...) {
    return meta; // the labels came from Axolotl's own renders; without spans the positions stay Unknown
  }
  EncodeOptions eo;
  eo.addSpecialTokens = false;
  eo.tokenStrings = false;
  const Encoding enc = tokenizer.encode(r.text, eo);
  const size_t n = std::min(enc.ids.size(), inputIds.size());
  for (size_t i = 0; i < n; ++i) {
    if (enc.ids[i] != inputIds[i]) break; // past where the row and this render agree: Unknown
    PositionMeta& m = meta[i];
    m.special = tokenizer.isSpecial(enc.ids[i]);
    m.kind = PositionKind::Template;
    m.scaffolding = true;
    for (const MessageSpan& s : r.messages) {
      if (!s.block.contains(enc.offsets[i].begin)) continue;
      m.messageIndex = s.messageIndex;
      m.turn = s.turn;
      m.kind = kindOfRole(s.role);
      m.scaffolding = !s.content.overlaps(enc.offsets[i]);
      m.reply = m.kind == PositionKind::Assistant && !m.scaffolding;
      break;
    }
  }
  // The token that closes each reply: the first special token after its content, in its block.
  for (size_t i = 0; i + 1 < n; ++i) {
    if (!meta[i].reply || meta[i].closesReply || meta[i + 1].reply) continue;
    for (size_t j = i + 1; j < n && meta[j].messageIndex == meta[i].messageIndex; ++j)
      if (meta[j].special) {
        meta[j].reply = meta[j].closesReply = true;
        break;
      }
  }
  return meta;
}

} // namespace maskscope::axolotl
