// Training vs serving tokens of each assistant turn. Both sides go through the pipeline's one
// template and tokenizer (DatasetPipeline): training is the collated row (Collator::prepare),
// serving renders the messages before the turn with the generation prompt. The two sequences are
// aligned (common prefix and suffix, LCS in between) so that an inserted token (a double BOS, an
// empty think block) is one difference, not a shift of every later position.
#include "core/collate/TrainServeDiff.h"
#include "core/collate/ToolCallSpans.h"
#include "core/util/Error.h"

#include <algorithm>

namespace maskscope {

const char* trainServeVerdictName(TrainServeVerdict v) {
  switch (v) {
  case TrainServeVerdict::Identical:
    return "identical";
  case TrainServeVerdict::DiffersInReply:
    return "differs_in_reply";
  case TrainServeVerdict::DiffersInContext:
    return "differs_in_context";
  case TrainServeVerdict::DifferentStart:
    return "different_start";
  }
  return "identical";
}

namespace {

void append(const Encoding& e, TurnDiff& d) {
  for (size_t i = 0; i < e.size(); ++i) {
    d.serve.push_back(e.ids[i]);
    d.serveSpecial.push_back(e.special[i]);
  }
}

// What a server feeds the model before it generates message m: a chat request renders the
// messages before m with the generation prompt and tokenizes the text as it is, adding no special
// tokens (the template writes its own BOS: vLLM's chat endpoint, apply_chat_template(tokenize=True)).
// A plain prompt/completion row's prompt is such a text already (a chat template's output), fed as is.
RenderOptions servingOptions(const DatasetPipeline& p, const Conversation& c) {
  RenderOptions ro = p.renderOptions();
  ro.addGenerationPrompt = true;
  ro.computeMessageSpans = false;
  if (ro.tools.is_null() && !c.tools.is_null()) ro.tools = c.tools; // as ConversationEncoder::encode
  if (ro.extra.is_null() && !c.extraVariables.is_null()) ro.extra = c.extraVariables;
  return ro;
}

std::string servingContextText(const DatasetPipeline& p, const Conversation& c, int m) {
  if (c.plainText) return c.plainPrompt;
  const std::vector<Message> before(c.messages.begin(), c.messages.begin() + m);
  return renderForModel(p.chatTemplate(), before, servingOptions(p, c)).text;
}

// The text the model generates for message m. Plain content, except for a message with tool_calls:
// the model writes its calls in the template's format (a server's tool parser reads them back), so
// the reply is what the template writes for m when m ends the conversation: the render of messages
// [0, m] without the generation prompt, after the serving context. Content alone when that render
// does not continue the context (the template writes the generation prompt another way).
std::string generatedReply(const DatasetPipeline& p, const Conversation& c, int m, const std::string& context) {
  if (c.plainText) return c.plainCompletion;
  const Message& msg = c.messages[size_t(m)];
  if (!messageHasToolCalls(msg)) return msg.content;
  RenderOptions ro = servingOptions(p, c);
  ro.addGenerationPrompt = false;
  const std::vector<Message> upTo(c.messages.begin(), c.messages.begin() + m + 1);
  std::string text;
  try {
    text = renderForModel(p.chatTemplate(), upTo, ro).text;
  } catch (const std::exception&) {
    return msg.content; // the template refuses the conversation ending here
  }
  if (text.size() <= context.size() || text.compare(0, context.size(), context) != 0) return msg.content;
  return text.substr(context.size());
}

// The leading run of special tokens (BOS and what the template opens with before any text).
std::vector<int32_t> leadingSpecials(const std::vector<int32_t>& ids, const std::vector<uint8_t>& special) {
  std::vector<int32_t> run;
  for (size_t i = 0; i < ids.size() && special[i]; ++i) run.push_back(ids[i]);
  return run;
}

// Matched (train index, serve index) pairs of a longest common subsequence of the middles
// train[p, p + n) and serve[p, p + m); position by position when the table would be too large.
std::vector<std::pair<int64_t, int64_t>> alignMiddle(const TurnDiff& d, int64_t p, int64_t n, int64_t m) {
  std::vector<std::pair<int64_t, int64_t>> matches;
  if (n == 0 || m == 0) return matches;
  if (n * m > kMaxAlignmentCells) {
    for (int64_t k = 0; k < std::min(n, m); ++k)
      if (d.train[size_t(p + k)] == d.serve[size_t(p + k)]) matches.emplace_back(p + k, p + k);
    return matches;
  }
  // lcs[i][j]: the LCS length of train[p + i, p + n) and serve[p + j, p + m).
  std::vector<int32_t> lcs(size_t((n + 1) * (m + 1)), 0);
  auto at = [&](int64_t i, int64_t j) -> int32_t& { return lcs[size_t(i * (m + 1) + j)]; };
  for (int64_t i = n - 1; i >= 0; --i)
    for (int64_t j = m - 1; j >= 0; --j)
      at(i, j) = d.train[size_t(p + i)] == d.serve[size_t(p + j)] ? at(i + 1, j + 1) + 1
                                                                  : std::max(at(i + 1, j), at(i, j + 1));
  for (int64_t i = 0, j = 0; i < n && j < m;) {
    if (d.train[size_t(p + i)] == d.serve[size_t(p + j)]) {
      matches.emplace_back(p + i, p + j);
      ++i, ++j;
    } else if (at(i + 1, j) >= at(i, j + 1)) {
      ++i;
    } else {
      ++j;
    }
  }
  return matches;
}

// The tokens between two matches: train [ti, te) against serve [si, se).
struct Gap {
  int64_t ti, te, si, se;
};

// A block inserted on one side can sit at several places with the same alignment ("a b b" vs
// "a b": either b). Each one-sided gap is moved as far towards the start as the tokens allow, so
// it begins where the inserted text begins: Qwen3's empty think block in the serving context is
// reported as that block, not as a rotation of it ending in the reply's own "<think>". A gap that
// starts in a reply never moves into that side's context (what differs in a reply stays in it).
void slideBack(const TurnDiff& d, std::vector<Gap>& gaps) {
  int64_t floorT = 0, floorS = 0; // the previous gap's end: a gap never slides into it
  for (Gap& g : gaps) {
    // Only the side that holds the tokens is bounded by its reply start; the other only marks a place.
    const bool trainOnly = g.se == g.si;
    const int64_t minT = std::max(floorT, trainOnly && g.ti >= d.trainReplyStart ? d.trainReplyStart : 0);
    const int64_t minS = std::max(floorS, !trainOnly && g.si >= d.serveReplyStart ? d.serveReplyStart : 0);
    auto canMove = [&] {
      if (g.ti <= minT || g.si <= minS) return false;
      if (g.te == g.ti) return d.serve[size_t(g.si - 1)] == d.serve[size_t(g.se - 1)];
      return g.se == g.si && d.train[size_t(g.ti - 1)] == d.train[size_t(g.te - 1)];
    };
    while (canMove()) --g.ti, --g.te, --g.si, --g.se;
    floorT = g.te, floorS = g.se;
  }
}

// A gap's tokens paired position by position (a token replaced by another), the rest one-sided.
void addGap(TurnDiff& d, const Gap& g) {
  for (int64_t k = 0; g.ti + k < g.te || g.si + k < g.se; ++k) {
    TokenDifference x;
    x.trainPosition = std::min(g.ti + k, g.te);
    x.servePosition = std::min(g.si + k, g.se);
    if (g.ti + k < g.te) x.train = d.train[size_t(g.ti + k)];
    if (g.si + k < g.se) x.serve = d.serve[size_t(g.si + k)];
    // In the reply when each token it holds lies in its side's reply (a missing side only marks a place).
    x.inReply =
        (!x.train || x.trainPosition >= d.trainReplyStart) && (!x.serve || x.servePosition >= d.serveReplyStart);
    d.differences.push_back(x);
  }
}

} // namespace

void compareTurn(TurnDiff& d) {
  d.differences.clear();
  d.verdict = TrainServeVerdict::Identical;
  if (d.train == d.serve) return;
  const int64_t nt = int64_t(d.train.size()), ns = int64_t(d.serve.size());
  int64_t prefix = 0;
  while (prefix < nt && prefix < ns && d.train[size_t(prefix)] == d.serve[size_t(prefix)]) ++prefix;
  int64_t suffix = 0;
  while (suffix < nt - prefix && suffix < ns - prefix &&
         d.train[size_t(nt - 1 - suffix)] == d.serve[size_t(ns - 1 - suffix)])
    ++suffix;
  auto matches = alignMiddle(d, prefix, nt - prefix - suffix, ns - prefix - suffix);
  matches.emplace_back(nt - suffix, ns - suffix); // the common suffix closes the last gap
  std::vector<Gap> gaps;
  int64_t ti = prefix, si = prefix;
  for (const auto& [tm, sm] : matches) {
    if (tm > ti || sm > si) gaps.push_back({ti, tm, si, sm});
    ti = tm + 1, si = sm + 1;
  }
  slideBack(d, gaps);
  for (const Gap& g : gaps) addGap(d, g);
  if (leadingSpecials(d.train, d.trainSpecial) != leadingSpecials(d.serve, d.serveSpecial))
    d.verdict = TrainServeVerdict::DifferentStart;
  else if (std::any_of(d.differences.begin(), d.differences.end(), [](const auto& x) { return !x.inReply; }))
    d.verdict = TrainServeVerdict::DiffersInContext;
  else
    d.verdict = TrainServeVerdict::DiffersInReply;
}

std::vector<TurnDiff> diffTrainServe(const DatasetPipeline& p, const Conversation& c) {
  return diffTrainServe(p, c, p.encode(c));
}

std::vector<TurnDiff> diffTrainServe(const DatasetPipeline& p, const Conversation& c,
                                     const TokenizedConversation& encoded, size_t maxTurns) {
  const CollatedExample ex = p.collator().prepare(encoded);
  std::vector<int> assistants;
  if (c.plainText) {
    assistants.push_back(1); // the completion, message 1 of the encoded row
  } else {
    for (size_t i = 0; i < c.messages.size(); ++i)
      if (kindOfRole(c.messages[i].role) == PositionKind::Assistant) assistants.push_back(int(i));
  }
  if (assistants.size() > maxTurns) assistants.resize(maxTurns);
  std::vector<TurnDiff> out;
  for (int m : assistants) {
    TurnDiff d;
    d.message = m;
    int64_t first = -1, last = -1, closing = -1;
    for (size_t i = 0; i < ex.ids.size(); ++i) {
      if (!ex.meta[i].reply || ex.meta[i].messageIndex != m) continue;
      if (first < 0) first = int64_t(i);
      last = int64_t(i);
      if (ex.meta[i].closesReply) closing = int64_t(i);
    }
    const size_t end = last >= 0 ? size_t(last + 1) : ex.ids.size();
    for (size_t i = 0; i < end; ++i) {
      d.train.push_back(int32_t(ex.ids[i]));
      d.trainSpecial.push_back(ex.meta[i].special);
    }
    d.trainHasReply = first >= 0;
    d.trainReplyStart = first >= 0 ? first : int64_t(end);
    const std::string context = servingContextText(p, c, m);
    append(p.tokenizer().encode(context), d);
    d.serveReplyStart = int64_t(d.serve.size());
    // The reply as the model generates it (generatedReply), then the token the template ends the
    // turn with (the closing token of this reply in training; the EOS when training has none). A
    // rendered tool-call reply ends where that token first closes it (the template's newline after is
    // the next turn's).
    append(p.tokenizer().encode(generatedReply(p, c, m, context)), d);
    const std::optional<int32_t> stop =
        closing >= 0 ? std::optional(int32_t(ex.ids[size_t(closing)])) : p.specialTokens().eos;
    if (stop && !c.plainText && messageHasToolCalls(c.messages[size_t(m)])) {
      const auto at = std::find(d.serve.begin() + d.serveReplyStart, d.serve.end(), *stop);
      if (at != d.serve.end()) {
        d.serve.erase(at + 1, d.serve.end());
        d.serveSpecial.resize(d.serve.size());
      }
    }
    if (stop && (d.serve.size() == size_t(d.serveReplyStart) || d.serve.back() != *stop)) {
      d.serve.push_back(*stop);
      d.serveSpecial.push_back(1);
    }
    compareTurn(d);
    out.push_back(std::move(d));
  }
  return out;
}

} // namespace maskscope
