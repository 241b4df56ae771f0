// SupervisedDatasetProcessor and PackedSupervisedDatasetProcessor (supervised.py at ff6d4d1), step by
// step; the comments quote the Python they follow where the order of operations matters.
#include "core/frameworks/llamafactory/LlamaFactorySupervised.h"

#include "core/data/Batch.h"
#include "core/data/ToolNames.h"
#include "core/frameworks/llamafactory/LlamaFactoryImages.h"
#include "core/util/Error.h"

#include <algorithm>
#include <map>

namespace maskscope::llamafactory {

std::pair<int64_t, int64_t> inferSeqlen(int64_t sourceLen, int64_t targetLen, int64_t cutoffLen) {
  int64_t maxTargetLen;
  if (targetLen * 2 < cutoffLen) { // truncate source
    maxTargetLen = cutoffLen;
  } else if (sourceLen * 2 < cutoffLen) { // truncate target
    maxTargetLen = cutoffLen - sourceLen;
  } else { // truncate both: int(cutoff_len * (target_len / (source_len + target_len))), float division
    maxTargetLen = int64_t(double(cutoffLen) * (double(targetLen) / double(sourceLen + targetLen)));
  }
  const int64_t newTargetLen = std::min(maxTargetLen, targetLen);
  const int64_t maxSourceLen = std::max<int64_t>(cutoffLen - newTargetLen, 0);
  const int64_t newSourceLen = std::min(maxSourceLen, sourceLen);
  return {newSourceLen, newTargetLen};
}

std::vector<std::vector<int64_t>> greedyKnapsack(std::vector<int64_t> lengths, int64_t capacity) {
  std::sort(lengths.begin(), lengths.end());
  std::vector<std::vector<int64_t>> knapsacks;
  while (!lengths.empty()) {
    std::vector<int64_t> current;
    int64_t remaining = capacity;
    while (true) {
      // search_for_fit: bisect.bisect (right) then one step back: the largest length <= remaining.
      auto it = std::upper_bound(lengths.begin(), lengths.end(), remaining);
      if (it == lengths.begin()) break;
      --it;
      remaining -= *it;
      current.push_back(*it);
      lengths.erase(it);
    }
    // A length over the capacity never fits: Python loops forever here; the callers drop such examples.
    if (current.empty()) break;
    knapsacks.push_back(std::move(current));
  }
  return knapsacks;
}

namespace {

// The functions a message calls as one tool name ("a, b" for parallel calls); 0 for none.
uint16_t callName(const std::vector<std::string>& calls) {
  std::string joined;
  for (const std::string& c : calls) joined += (joined.empty() ? "" : ", ") + c;
  return internToolName(joined);
}

// What maskscope knows of each id of a (prompt, response) pair: the first prompt's lead-in is the
// system turn (the tools' description included), the rest of a prompt the user's or, for an
// observation, the output of the functions the previous turn called; the response the assistant's reply
// (a function message: its tool calls) whose last id closes it; truncated pairs keep the roles of the ids
// that survive.
std::vector<PositionMeta> pairMeta(const std::pair<EncodedMessage, EncodedMessage>& pair, size_t sourceLen,
                                   const LfMessage& prompt, const LfMessage& response, uint16_t outputOf,
                                   size_t targetLen, int32_t turn, int32_t promptIndex) {
  const EncodedMessage& source = pair.first;
  const size_t targetFull = pair.second.ids.size();
  const bool call = response.role == "function";
  const uint16_t called = call ? callName(pair.second.calls) : 0;
  std::vector<PositionMeta> meta;
  for (size_t i = 0; i < sourceLen; ++i) {
    PositionMeta m;
    const bool observation = prompt.role == "observation";
    m.kind = i < source.leadIn ? PositionKind::System : (observation ? PositionKind::Tool : PositionKind::User);
    m.messageIndex = i < source.leadIn ? -1 : promptIndex;
    m.turn = turn;
    if (observation && i >= source.leadIn) m.toolName = outputOf;
    meta.push_back(m);
  }
  for (size_t i = 0; i < targetLen; ++i) {
    PositionMeta m;
    m.kind = call ? PositionKind::ToolCall : PositionKind::Assistant;
    m.toolName = called;
    m.messageIndex = promptIndex + 1;
    m.turn = turn;
    m.reply = true;
    m.closesReply = i + 1 == targetFull;
    m.replyTruncated = targetLen < targetFull;
    meta.push_back(m);
  }
  return meta;
}

// The image blocks process_messages wrote (start marker, image tokens, end marker): Image positions.
// A tokenizer without the plugin's tokens would split the blocks into text (a Qwen2-VL tokenizer holds
// them): refused rather than shown as an unmarked prompt.
void markImageTokens(const Encoder& enc, EncodedExample& out) {
  const Template& t = enc.tmpl();
  std::vector<int32_t> ids;
  for (const std::string* s : {&t.imageToken, &t.visionBos, &t.visionEos}) {
    if (s->empty()) continue;
    auto id = enc.tokenizer().tokenToId(*s);
    if (!id)
      throw Error("template " + t.name + ": the tokenizer has no " + *s +
                  " token, so the image blocks would be split into text (use the model's own tokenizer)");
    ids.push_back(*id);
  }
  for (size_t i = 0; i < out.inputIds.size() && i < out.meta.size(); ++i)
    if (std::find(ids.begin(), ids.end(), int32_t(out.inputIds[i])) != ids.end()) {
      out.meta[i].kind = PositionKind::Image;
      out.meta[i].scaffolding = true;
    }
}

template <typename T> void prependOrAppend(std::vector<T>& to, const std::vector<T>& part, bool prepend) {
  to.insert(prepend ? to.begin() : to.end(), part.begin(), part.end());
}

} // namespace

EncodedExample encodeExample(const Encoder& enc, const LfExample& ex, const SupervisedOptions& o, int64_t cutoff) {
  const Template& t = enc.tmpl();
  if (ex.videosOrAudios)
    throw Error("a videos or audios column: LLaMA-Factory's video and audio plugins are not reproduced by maskscope");
  std::vector<LfMessage> messages = ex.prompt;
  messages.insert(messages.end(), ex.response.begin(), ex.response.end());
  // mm_plugin.process_messages; Gemma3Plugin also expands a literal "{{image}}" in a row without images.
  std::vector<LfMessage> processed = processMessages(t, messages, ex.images);
  bool expanded = !ex.images.empty();
  for (size_t i = 0; i < messages.size() && i < processed.size(); ++i)
    expanded = expanded || messages[i].content != processed[i].content;
  messages = std::move(processed);
  const bool discardingHistoryCot = o.maskHistory && !t.preserveThinking;
  auto pairs = enc.encodeMultiturn(messages, ex.system, ex.tools, discardingHistoryCot);
  // The output an observation holds: the functions the turn before it called.
  std::vector<uint16_t> outputOf(pairs.size(), 0);
  for (size_t i = 1; i < pairs.size(); ++i)
    if (messages[2 * i - 1].role == "function") outputOf[i] = callName(pairs[i - 1].second.calls);
  std::vector<int32_t> turnOf(pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) turnOf[i] = int32_t(i);
  int64_t totalLength = t.efficientEos ? 1 : 0;
  if (o.maskHistory) { // high priority for last turns
    std::reverse(pairs.begin(), pairs.end());
    std::reverse(turnOf.begin(), turnOf.end());
  }
  const int64_t eos = *enc.tokens().eos;

  EncodedExample out;
  std::string cuts;
  auto note = [&](const std::string& what) { cuts += (cuts.empty() ? "" : "; ") + what; };
  for (size_t turn = 0; turn < pairs.size(); ++turn) {
    if (totalLength >= cutoff) {
      note(std::to_string(pairs.size() - turn) + " of " + std::to_string(pairs.size()) + " turns dropped");
      break;
    }
    const Ids& fullSource = pairs[turn].first.ids;
    const Ids& fullTarget = pairs[turn].second.ids;
    auto [sourceLen, targetLen] =
        inferSeqlen(int64_t(fullSource.size()), int64_t(fullTarget.size()), cutoff - totalLength);
    std::vector<int64_t> ids(fullSource.begin(), fullSource.begin() + sourceLen);
    ids.insert(ids.end(), fullTarget.begin(), fullTarget.begin() + targetLen);
    totalLength += sourceLen + targetLen;

    std::vector<int64_t> labels(ids.begin(), ids.begin() + sourceLen); // train_on_prompt: the prompt as is
    if (!o.trainOnPrompt) {
      labels.assign(size_t(sourceLen), kIgnoreIndex);
      // efficient_eos: the previous reply's EOS opens this prompt and is graded ([eos] + [-100] * (n-1)).
      if (t.efficientEos && turn != 0) {
        labels.assign(size_t(std::max<int64_t>(sourceLen - 1, 0)), kIgnoreIndex);
        labels.insert(labels.begin(), eos);
      }
    }
    if (o.maskHistory && turn != 0) { // train on the last turn only
      labels.insert(labels.end(), size_t(targetLen), kIgnoreIndex);
    } else {
      labels.insert(labels.end(), ids.begin() + sourceLen, ids.end());
    }
    const int32_t k = turnOf[turn];
    if (sourceLen < int64_t(fullSource.size()))
      note("turn " + std::to_string(k + 1) + "'s prompt cut from " + std::to_string(fullSource.size()) + " to " +
           std::to_string(sourceLen) + " tokens (its end)");
    if (targetLen < int64_t(fullTarget.size()))
      note("turn " + std::to_string(k + 1) + "'s reply cut from " + std::to_string(fullTarget.size()) + " to " +
           std::to_string(targetLen) + " tokens");
    std::vector<PositionMeta> meta =
        pairMeta(pairs[turn], size_t(sourceLen), messages[size_t(2 * k)], messages[size_t(2 * k + 1)],
                 outputOf[size_t(k)], size_t(targetLen), k, 2 * k);
    prependOrAppend(out.inputIds, ids, o.maskHistory); // reversed turns are prepended
    prependOrAppend(out.labels, labels, o.maskHistory);
    prependOrAppend(out.meta, meta, o.maskHistory);
  }
  if (expanded) markImageTokens(enc, out);
  if (t.efficientEos) {
    out.inputIds.push_back(eos);
    out.labels.push_back(eos);
    PositionMeta m;
    m.kind = PositionKind::Assistant;
    m.reply = m.closesReply = true;
    m.special = true;
    out.meta.push_back(m);
  }
  if (!cuts.empty()) out.truncation = "cutoff_len " + std::to_string(cutoff) + ": " + cuts;
  if (out.inputIds.size() != out.labels.size())
    throw Error("LLaMA-Factory builds labels of a different length than input_ids for this example (an empty "
                "prompt under efficient_eos)");
  return out;
}

void checkSupervisedOptions(const SupervisedOptions& o, const Template& t) {
  if (o.maskHistory && o.trainOnPrompt) throw Error("`mask_history` is incompatible with `train_on_prompt`.");
  if (o.trainOnPrompt && t.efficientEos) throw Error("Current template does not support `train_on_prompt`.");
  if (o.cutoffLen < (o.packing || o.neatPacking ? 2 : 1))
    throw Error("cutoff_len must be at least " + std::string(o.packing || o.neatPacking ? "2 when packing" : "1"),
                {.field = "cutoff_len"});
}

namespace {

SupervisedRow packOne(const std::vector<int64_t>& knapsack, std::map<int64_t, std::vector<size_t>>& byLength,
                      const std::vector<EncodedExample>& kept, const std::vector<long>& keptRows,
                      const SupervisedOptions& o, int64_t cutoff, int64_t padId) {
  SupervisedRow row;
  row.packed = true;
  PackingParams params;
  params.sequenceBoundaries = {0};
  for (size_t i = 0; i < knapsack.size(); ++i) {
    std::vector<size_t>& same = byLength[knapsack[i]];
    const size_t index = same.back(); // length2indexes[length].pop()
    same.pop_back();
    const EncodedExample& ex = kept[index];
    const int64_t n = int64_t(ex.inputIds.size());
    row.inputIds.insert(row.inputIds.end(), ex.inputIds.begin(), ex.inputIds.end());
    for (int64_t p = 0; p < n; ++p) row.positionIds.push_back(p);
    row.labels.insert(row.labels.end(), ex.labels.begin(), ex.labels.end());
    row.meta.insert(row.meta.end(), ex.meta.begin(), ex.meta.end());
    params.sequenceBoundaries.push_back(params.sequenceBoundaries.back() + n);
    row.attentionMask.insert(row.attentionMask.end(), size_t(n), o.neatPacking ? int64_t(i + 1) : 1);
    row.sourceRows.push_back(keptRows[index]);
  }
  const int64_t len = int64_t(row.inputIds.size());
  if (len < cutoff + 1) { // avoid flash_attn dropping the attention mask
    const int64_t pad = cutoff - len + 1;
    row.inputIds.insert(row.inputIds.end(), size_t(pad), padId);
    row.positionIds.insert(row.positionIds.end(), size_t(pad), 0);
    row.labels.insert(row.labels.end(), size_t(pad), kIgnoreIndex);
    row.attentionMask.insert(row.attentionMask.end(), size_t(pad), o.neatPacking ? 0 : 1);
    PositionMeta padding;
    padding.kind = PositionKind::Padding;
    row.meta.insert(row.meta.end(), size_t(pad), padding);
    params.sequenceBoundaries.push_back(params.sequenceBoundaries.back() + pad);
    params.rightPaddingLength = pad;
  }
  if (int64_t(row.inputIds.size()) != cutoff + 1)
    throw Error("The length of packed example should be identical to the cutoff length.");
  if (o.neatPacking) row.packing = params;
  return row;
}

} // namespace

SupervisedDataset prepareSupervised(const Encoder& enc, const std::vector<LfExample>& examples,
                                    const std::vector<long>& sourceRows, const SupervisedOptions& o) {
  checkSupervisedOptions(o, enc.tmpl());
  const bool packing = o.packing || o.neatPacking;
  const int64_t cutoff = packing ? o.cutoffLen - 1 : o.cutoffLen; // DataArguments: "avoid pad_to_multiple_of"
  SupervisedDataset out;
  std::vector<EncodedExample> kept;
  std::vector<long> keptRows;
  std::map<int64_t, std::vector<size_t>> byLength;
  std::vector<int64_t> lengths;
  for (size_t i = 0; i < examples.size(); ++i) {
    EncodedExample ex = encodeExample(enc, examples[i], o, cutoff);
    if (!ex.truncation.empty()) out.truncated.emplace_back(sourceRows[i], ex.truncation);
    if (!packing) {
      SupervisedRow row;
      row.attentionMask.assign(ex.inputIds.size(), 1);
      row.inputIds = std::move(ex.inputIds);
      row.labels = std::move(ex.labels);
      row.meta = std::move(ex.meta);
      row.sourceRows = {sourceRows[i]};
      out.rows.push_back(std::move(row));
      continue;
    }
    const int64_t length = int64_t(ex.inputIds.size());
    if (length > cutoff) {
      out.dropped.emplace_back(sourceRows[i], "Dropped lengthy example with length " + std::to_string(length) + " > " +
                                                  std::to_string(cutoff) + ".");
      continue;
    }
    lengths.push_back(length);
    byLength[length].push_back(kept.size());
    kept.push_back(std::move(ex));
    keptRows.push_back(sourceRows[i]);
  }
  if (!packing) return out;
  for (const std::vector<int64_t>& knapsack : greedyKnapsack(lengths, cutoff))
    out.rows.push_back(packOne(knapsack, byLength, kept, keptRows, o, cutoff, *enc.tokens().pad));
  return out;
}

} // namespace maskscope::llamafactory
