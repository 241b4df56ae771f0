// Role-aware rules: what is graded among prompt and replies. They need to know which positions
// are system / user / template text and which are replies (collated metadata, or roles recovered
// from a dump); without roles only stop-token-not-graded runs, on EOS ids.
#include "core/lint/LintRegistry.h"

#include <map>
#include <vector>

namespace maskscope {

namespace {

bool isPromptKind(PositionKind k) {
  return k == PositionKind::System || k == PositionKind::User || k == PositionKind::Tool ||
         k == PositionKind::Template || k == PositionKind::Assistant || k == PositionKind::Unknown;
}

// One assistant reply inside an example, by message index.
struct Reply {
  int64_t first = -1, last = -1, positions = 0, graded = 0, closing = -1, content = 0;
  bool truncated = false;
};

std::map<int32_t, Reply> repliesOf(const RowInput& in, const ExampleRange& ex) {
  std::map<int32_t, Reply> replies; // in message order
  for (int64_t t = ex.begin; t < ex.end; ++t) {
    const PositionMeta& pm = (*in.meta)[size_t(t)];
    if (!pm.reply || pm.messageIndex < 0) continue;
    Reply& rp = replies[pm.messageIndex];
    if (rp.first < 0) rp.first = t;
    rp.last = t;
    ++rp.positions;
    rp.graded += in.graded(t);
    if (pm.closesReply)
      rp.closing = t;
    else if (!pm.scaffolding)
      ++rp.content;
    rp.truncated = rp.truncated || pm.replyTruncated;
  }
  return replies;
}

void promptGraded(const RowInput& in) {
  if (!in.meta) return;
  int64_t total = 0, graded = 0, first = -1, maskedById = 0;
  std::map<PositionKind, int64_t> byKind;
  for (int64_t t = 0; t < in.T; ++t) {
    const PositionMeta& pm = (*in.meta)[size_t(t)];
    if (in.L.pad[size_t(t)] || pm.reply || !isPromptKind(pm.kind)) continue;
    ++total;
    // Masked because it is the pad id (labels=mask_pad_id with pad == an end token): not a choice
    // about the prompt, so it does not make a full-sequence row look partial.
    if (!in.graded(t) && in.padId && in.b.inputIds.at(in.r, t) == *in.padId) ++maskedById;
    if (!in.graded(t)) continue;
    ++graded;
    ++byKind[pm.kind];
    if (first < 0) first = t;
  }
  if (graded == 0) return;
  const bool fullSequence = graded + int64_t(in.L.examples.size()) + maskedById >= total;
  const LabelIntent intent = in.o.intent;
  if (intent == LabelIntent::FullSequence || (intent == LabelIntent::Unknown && fullSequence)) {
    if (in.fullSequenceRows) ++*in.fullSequenceRows; // one full-sequence-labels info for all such rows
    return;
  }
  std::string kinds;
  for (auto [k, n] : byKind) kinds += std::string(kinds.empty() ? "" : ", ") + positionKindName(k) + " " + num(n);
  in.emit("prompt-graded", first,
          in.label(first) + ": " + num(graded) + " of " + num(total) + " prompt positions are graded (" + kinds +
              "), first at position " + num(first));
}

// The token that closes a reply whose span does not hold it (a template or collator that marks
// only the content): the first special token after the reply inside the same message.
int64_t closingAfter(const RowInput& in, const ExampleRange& ex, int32_t message, const Reply& rp) {
  for (int64_t t = rp.last + 1; t < ex.end; ++t) {
    const PositionMeta& pm = (*in.meta)[size_t(t)];
    if (pm.messageIndex != message) return -1;
    if (pm.special) return t;
  }
  return -1;
}

// With roles: every reply that is graded (or empty among graded ones) and whose closing token is
// -100 is its own finding, naming the reply, its message and the closing position.
void stopTokenOfReplies(const RowInput& in) {
  for (const ExampleRange& ex : in.L.examples) {
    const std::map<int32_t, Reply> replies = repliesOf(in, ex);
    bool anyGraded = false;
    for (const auto& [idx, rp] : replies) anyGraded = anyGraded || rp.graded > 0;
    int64_t n = 0;
    for (const auto& [idx, rp] : replies) {
      ++n;
      if (rp.truncated) continue; // its closing token is gone: reply-truncated reports it
      const bool inSpan = rp.closing >= 0;
      const int64_t closing = inSpan ? rp.closing : closingAfter(in, ex, idx, rp);
      if (closing < 0 || in.graded(closing) || (rp.graded == 0 && (rp.content != 0 || !anyGraded))) continue;
      const int64_t id = in.b.inputIds.at(in.r, closing);
      in.emit("stop-token-not-graded", closing,
              in.label(closing) + ": reply " + num(n) + " of " + num(int64_t(replies.size())) + " (message " +
                  num(idx) + ") is graded but its closing token (id " + num(id) + ") at position " + num(closing) +
                  " has label -100" + (inSpan ? "" : " (it lies outside the reply span)") +
                  (in.padId && *in.padId == id ? "; it is also the pad id" : ""));
    }
  }
}

// Without roles: the EOS that follows a graded position should be graded too; each one that is not
// is its own finding.
void stopTokenOfEos(const RowInput& in) {
  if (!in.b.eosTokenId) return;
  const int64_t eos = *in.b.eosTokenId;
  int64_t closings = 0;
  std::vector<int64_t> missing;
  for (int64_t t = std::max<int64_t>(1, in.L.firstReal); t < in.L.endReal; ++t) {
    if (in.L.pad[size_t(t)] || in.b.inputIds.at(in.r, t) != eos || !in.graded(t - 1)) continue;
    ++closings;
    if (!in.graded(t)) missing.push_back(t);
  }
  for (size_t k = 0; k < missing.size(); ++k)
    in.emit("stop-token-not-graded", missing[k],
            in.label(missing[k]) + ": the EOS (id " + num(eos) + ") at position " + num(missing[k]) +
                ", right after graded text, has label -100 (" + num(int64_t(missing.size())) + " of " + num(closings) +
                " such EOS tokens in the row)" + (in.padId && *in.padId == eos ? "; the pad id is the EOS id" : ""));
}

void stopTokenNotGraded(const RowInput& in) { in.meta ? stopTokenOfReplies(in) : stopTokenOfEos(in); }

void lastTurnOnly(const RowInput& in) {
  if (!in.meta) return;
  for (const ExampleRange& ex : in.L.examples) {
    const std::map<int32_t, Reply> replies = repliesOf(in, ex);
    if (replies.size() < 2 || std::prev(replies.end())->second.graded == 0) continue;
    int64_t ignored = 0, first = -1;
    for (auto it = replies.begin(); it != std::prev(replies.end()); ++it) {
      if (it->second.graded != 0) continue;
      ++ignored;
      if (first < 0) first = it->second.first;
    }
    if (ignored > 0)
      in.emit("last-turn-only", first,
              in.label(first) + ": " + num(ignored) + " of " + num(int64_t(replies.size()) - 1) +
                  " earlier assistant replies are entirely -100 while the last reply is graded (first at position " +
                  num(first) + ")",
              in.o.intent == LabelIntent::LastReplyOnly ? std::optional<Severity>(Severity::Warning) : std::nullopt);
  }
}

void replyTruncated(const RowInput& in) {
  if (!in.meta) return;
  for (const ExampleRange& ex : in.L.examples)
    for (const auto& [idx, rp] : repliesOf(in, ex)) {
      if (!rp.truncated || rp.graded == 0) continue;
      in.emit("reply-truncated", rp.first,
              in.label(rp.first) + ": the reply of message " + num(idx) + " is graded (" + num(rp.graded) +
                  " positions) but cut at position " + num(rp.first + rp.positions - 1) + " before its closing token");
      break;
    }
}

} // namespace

const std::vector<LintRule>& roleRules() {
  using S = Severity;
  static const std::vector<LintRule> rules = {
      {.info =
           {"prompt-graded", S::Error, "system/user/template tokens carry labels while only replies should be graded",
            "In supervised fine-tuning on chats you normally grade the model only on what the assistant says: system "
            "prompts, user turns and the template's headers get label -100. When some of those positions keep their "
            "token ids as labels, the model is also trained to write the user's side of the conversation and the "
            "template scaffolding, and the loss you watch mixes both. A partly graded prompt (say, the assistant "
            "header "
            "'<|im_start|>assistant\\n' graded) is usually an off-by-one in a hand-written masking loop. Fix: use "
            "TRL's "
            "SFTTrainer with assistant_only_loss=True (needs a template with {% generation %}) or completion_only_loss "
            "on prompt/completion data, or DataCollatorForCompletionOnlyLM with the exact response template ids.",
            "roles"},
       .row = promptGraded},
      // Counted by prompt-graded's check; the lint run reports one finding for all such rows.
      {.info =
           {"full-sequence-labels", S::Info, "every non-padding token is graded (full-sequence training)",
            "Labels cover the prompt as well as the replies, as with DataCollatorForLanguageModeling or labels = "
            "input_ids with pads masked. That is continued pre-training, not reply-only SFT: the model is also trained "
            "to write user turns and template text. It is a legitimate choice, so this is information only. Fix: "
            "none needed for continued pre-training; to train on replies only, use assistant_only_loss=True or "
            "completion_only_loss in TRL.",
            "roles"}},
      {.info =
           {"stop-token-not-graded", S::Error, "the end-of-turn token that closes a reply is -100",
            "A chat model learns to stop by being graded on the token that ends its reply (<|im_end|>, <|eot_id|>, "
            "</s>, ...). If that position's label is -100 the model never practises ending a turn, and at inference it "
            "rambles on into an invented next turn. The classic cause is tokenizer.pad_token = tokenizer.eos_token "
            "with DataCollatorForLanguageModeling: it sets labels to -100 wherever input_ids == pad_token_id, which "
            "also masks every real EOS. Fix: give the tokenizer a distinct pad token (add '<pad>' or use an unused "
            "reserved token), or mask padding by attention_mask instead of by id; keep the closing token inside the "
            "graded span (TRL's assistant_only_loss with a {% generation %} template includes it).",
            "roles (a collated dataset, or a dump with --template and --tokenizer); without roles, the EOS id"},
       .row = stopTokenNotGraded},
      {.info =
           {"last-turn-only", S::Error, "earlier assistant turns are ignored while the last is graded",
            "In a multi-turn chat every assistant reply is a training example. Collators that locate 'the response' "
            "by searching for the last response template (or by the prompt/completion split) grade only the final "
            "reply and set every earlier reply to -100, throwing away most of the data in long chats and teaching the "
            "model only how conversations end. Fix: grade every assistant turn (TRL assistant_only_loss=True with a "
            "{% generation %} template, or DataCollatorForCompletionOnlyLM with both instruction_template and "
            "response_template so every response span is found). When the split is deliberate (completion-only "
            "training) this is a warning.",
            "roles"},
       .row = lastTurnOnly},
      {.info =
           {"reply-truncated", S::Warning, "a graded reply is cut before its closing token",
            "Truncation (max_length with truncation=True) cut an assistant reply in the middle. Its tokens are still "
            "graded but the closing end-of-turn token is gone, so the model is taught replies that stop mid-sentence "
            "without ever ending, and long answers are systematically under-trained on their endings. Fix: raise "
            "max_length, filter or split over-long conversations, or truncate whole turns from the start of the "
            "conversation instead of cutting the end.",
            "roles", Scope::Data},
       .row = replyTruncated},
  };
  return rules;
}

} // namespace maskscope
