// The tokenizer's chat template when it has none (a tokenizer_config.json without chat_template)
// and no --template was given: frameworks that bring their own template (Axolotl's bundled ones)
// or read pre-tokenized rows never need it, so the run goes on; rendering through it throws the
// error loading it gave ("tokenizer_config.json has no chat_template; pass --template").
#pragma once
#include "core/template/ChatTemplate.h"
#include "core/util/Error.h"

namespace maskscope {

class UnavailableChatTemplate final : public ChatTemplate {
public:
  explicit UnavailableChatTemplate(Error why) : why_(std::move(why)) {}
  RenderResult render(const std::vector<Message>&, const RenderOptions&) const override { throw why_; }
  bool hasGenerationMarkers() const override { return false; }
  std::string name() const override { return "(no chat template)"; }
  std::string source() const override { return {}; }
  const std::map<std::string, std::string>& defaultVariables() const override { return none_; }
  const Error& why() const { return why_; }

private:
  Error why_;
  std::map<std::string, std::string> none_;
};

} // namespace maskscope
