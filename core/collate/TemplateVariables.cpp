// Template variables and special-token ids; see TemplateVariables.h for the order of precedence.
#include "core/collate/TemplateVariables.h"

namespace maskscope {

RenderOptions templateVariables(const RenderOptions& given, const ChatTemplate* t, const Tokenizer* tok) {
  RenderOptions ro = given;
  if (t)
    for (const auto& [k, v] : t->defaultVariables()) ro.variables.try_emplace(k, v);
  if (tok) {
    const SpecialTokenIds sp = tok->specialTokens();
    const std::pair<const char*, const std::string*> texts[] = {
        {"bos_token", &sp.bosText}, {"eos_token", &sp.eosText}, {"pad_token", &sp.padText}, {"unk_token", &sp.unkText}};
    for (const auto& [key, text] : texts)
      if (!text->empty()) ro.variables.try_emplace(key, *text);
  }
  return ro;
}

SpecialTokenIds specialTokenIds(const Tokenizer& tok, const RenderOptions& render) {
  SpecialTokenIds sp = tok.specialTokens();
  auto adopt = [&](const char* key, std::optional<int32_t>& id, std::string& text) {
    auto it = render.variables.find(key);
    if (it == render.variables.end() || it->second.empty()) return;
    if (auto found = tok.tokenToId(it->second)) {
      id = *found;
      text = it->second;
    }
  };
  adopt("bos_token", sp.bos, sp.bosText);
  adopt("eos_token", sp.eos, sp.eosText);
  adopt("pad_token", sp.pad, sp.padText);
  adopt("unk_token", sp.unk, sp.unkText);
  return sp;
}

} // namespace maskscope
