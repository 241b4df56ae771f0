// Axolotl's `type: chat_template` dataset strategy (ChatTemplateStrategy + ChatTemplatePrompter,
// src/axolotl/prompt_strategies/chat_template.py, v0.18.0 = 2f5cb9da): one dataset row ->
// input_ids, labels, attention_mask.
//
// How the labels come about (the default path):
// - the turns are rendered whole through the chat template and tokenized (apply_chat_template,
//   tokenize=True: no special tokens added; real_last_index passed to the template);
// - a turn is trained when its `training` field says so, else when it has training details, else
//   when train_on_inputs or its role is in roles_to_train;
// - a trained turn's tokens are found by rendering the conversation up to it twice, once with its
//   content replaced by "[[dummy_message]]": the first and last token where the two differ bound the
//   content (find_turn), so only the content is trained, never the role header;
// - the first EOT token (eot_tokens, default [eos_token]) and the first EOS token at or after the
//   content's end, within 3 tokens, are trained per train_on_eot / train_on_eos: `all` every turn's,
//   `turn` the trained turns', `last` only the conversation's last one, `none` never;
// - training_detail (character spans with train flags) trains only the tokens wholly inside a
//   trained span.
// The legacy path (no roles_to_train, train_on_eos, train_on_eot, message_field_training*): the
// prompt is every turn but the last, rendered with the generation prompt; everything after it is
// trained, so earlier assistant turns are never trained.
#pragma once
#include "core/frameworks/axolotl/AxolotlConfig.h"
#include "core/frameworks/axolotl/AxolotlTurns.h"
#include "core/template/JinjaChatTemplate.h"
#include "core/tokenizer/Tokenizer.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace maskscope::axolotl {

struct TokenizedRow {
  std::vector<int64_t> inputIds, labels, attentionMask;
  bool legacy = false; // the legacy path built the labels (only the last turn trained)
  // Column order of the dict Axolotl returns: legacy {input_ids, attention_mask, labels}, else
  // {input_ids, labels, attention_mask}.
  std::vector<std::string> columnOrder;
  std::vector<OrderedJson> turns;    // what was rendered
  OrderedJson tools;                 // the row's tools as rendered (null on the legacy path)
  std::vector<std::string> warnings; // Axolotl's LOG.warning lines for this row
  int assistantTurns = 0;            // turns with the assistant role
  int trainedTurns = 0;              // turns should_train said yes to (default path)
};

// The tokenizer's special tokens as Axolotl's tokenizer loader leaves them: special_tokens from the
// config (a token that is not in the vocabulary would be added by Axolotl: refused), then a pad
// token falling back to the EOS token.
struct SpecialTokens {
  std::string bos, eos, pad, unk;
  std::optional<int32_t> bosId, eosId, padId, unkId;
};
SpecialTokens axolotlSpecialTokens(const Tokenizer& tokenizer, const AxolotlConfig& config, const std::string& source);

class ChatTemplateStrategy {
public:
  // templateText: chooseAxolotlTemplate's; variables: the template variables besides the special
  // tokens (--var). Throws Error where Axolotl's constructor raises (EOT token encoded as several
  // tokens, train_on_eos and train_on_eot conflicting on the EOS token).
  ChatTemplateStrategy(const AxolotlConfig& config, std::shared_ptr<const Tokenizer> tokenizer,
                       const std::string& templateText, const std::string& templateOrigin,
                       std::map<std::string, std::string> variables, const std::string& source);

  // Throws Error(reason) where Axolotl would raise on the row.
  TokenizedRow tokenize(const OrderedJson& row) const;

  const SpecialTokens& specialTokens() const { return special_; }
  const std::vector<std::string>& setupWarnings() const { return setupWarnings_; }
  const std::set<int32_t>& eotTokenIds() const { return eotIds_; }
  const JinjaChatTemplate& chatTemplate() const { return *template_; }

private:
  std::vector<int32_t> buildPrompt(const std::vector<OrderedJson>& turns, bool addGenerationPrompt,
                                   const OrderedJson& tools, std::optional<long> realLastIndex) const;
  TokenizedRow tokenizeLegacy(const std::vector<OrderedJson>& turns) const;
  TokenizedRow tokenizeTurns(const std::vector<OrderedJson>& turns, const OrderedJson& tools) const;
  // find_turn: [start, end) of the turn's content in the full render, or {-1, -1}.
  std::pair<long, long> findTurn(const std::vector<OrderedJson>& turns, size_t index, const OrderedJson& tools,
                                 bool contentOnly, bool reasoningOnly, std::vector<std::string>& warnings) const;
  // get_offsets_for_train_detail: per token of text, whether it is trained.
  std::vector<bool> trainedTokens(const std::string& text, const std::vector<TrainDetail>& details,
                                  std::vector<std::string>& warnings) const;
  void setUpEot(const std::string& source);

  AxolotlConfig config_;
  ThreadOptions thread_;
  std::shared_ptr<const Tokenizer> tokenizer_;
  std::shared_ptr<JinjaChatTemplate> template_;
  std::string templateText_;
  std::map<std::string, std::string> variables_;
  SpecialTokens special_;
  std::vector<std::string> rolesToTrain_; // mapped through `roles`
  TrainOn trainOnEot_ = TrainOn::Unset;   // train_on_eot, else train_on_eos
  std::vector<std::string> eotTokens_;
  std::set<int32_t> eotIds_;
  std::vector<std::string> setupWarnings_;
  bool mistralName_ = false; // "mistral" in the tokenizer's name_or_path
};

} // namespace maskscope::axolotl
