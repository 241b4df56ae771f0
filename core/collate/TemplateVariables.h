// The template variables and special-token ids every command and the app use, decided in this one
// place: collate, lint (datasets and dumps), loss, render, train-ab and the app all call it, so a
// bos_token, eos_token or pad id can never differ between two views of the same settings.
#pragma once
#include "core/template/ChatTemplate.h"
#include "core/tokenizer/Tokenizer.h"

namespace maskscope {

// The variables a template renders with: the given ones (--var, the app's settings) win; then the
// template's own defaults (its tokenizer_config.json: bos_token, eos_token, pad_token, unk_token);
// then the tokenizer's special-token strings (bos_token, eos_token, pad_token, unk_token). Either
// source may be null (a dump linted with a tokenizer but no template, render without --tokenizer).
RenderOptions templateVariables(const RenderOptions& given, const ChatTemplate* chatTemplate,
                                const Tokenizer* tokenizer);

// The special-token ids as transformers sees them: the tokenizer's own, replaced by the token a
// variable names (bos_token, eos_token, pad_token, unk_token) where the vocabulary has that token
// (so ChatML's eos_token <|im_end|> is the EOS the collator appends and masks). Texts follow ids.
SpecialTokenIds specialTokenIds(const Tokenizer& tokenizer, const RenderOptions& variables);

} // namespace maskscope
