// SupervisedDatasetProcessor and PackedSupervisedDatasetProcessor (supervised.py at ff6d4d1), step by
// step; the comments quote the Python they follow where the order of operations matters.
#include "core/frameworks/llamafactory/LlamaFactorySupervised.h"

#include "core/data/Batch.h"
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

EncodedExample encodeExample(const Encoder& enc, const LfExample& ex, const SupervisedOptions& o, int64_t cutoff) {
  const Template& t = enc.tmpl();
  std::vector<LfMessage> messages = ex.prompt;
  messages.insert(messages.end(), ex.response.begin(), ex.response.end());
  const bool discardingHistoryCot = o.maskHistory && !t.preserveThinking;
  auto pairs = enc.encodeMultiturn(messages, ex.system, discardingHistoryCot);
  int64_t totalLength = t.efficientEos ? 1 : 0;
  if (o.maskHistory) std::reverse(pairs.begin(), pairs.end()); // high priority for last turns
  const int64_t eos = *enc.tokens().eos;

  EncodedExample out;
  for (size_t turn = 0; turn < pairs.size(); ++turn) {
    if (totalLength >= cutoff) break;
    auto [sourceLen, targetLen] =
        inferSeqlen(int64_t(pairs[turn].first.size()), int64_t(pairs[turn].second.size()), cutoff - totalLength);
    const Ids source(pairs[turn].first.begin(), pairs[turn].first.begin() + sourceLen);
    const Ids target(pairs[turn].second.begin(), pairs[turn].second.begin() + targetLen);
    totalLength += sourceLen + targetLen;

    std::vector<int64_t> sourceLabel(source.begin(), source.end());
    if (!o.trainOnPrompt) {
      sourceLabel.assign(size_t(sourceLen), kIgnoreIndex);
      // efficient_eos: the previous reply's EOS opens this prompt and is graded ([eos] + [-100] * (n-1)).
      if (t.efficientEos && turn != 0) {
        sourceLabel.assign(size_t(std::max<int64_t>(sourceLen - 1, 0)), kIgnoreIndex);
        sourceLabel.insert(sourceLabel.begin(), eos);
      }
    }
    std::vector<int64_t> targetLabel(target.begin(), target.end());
    if (o.maskHistory && turn != 0) targetLabel.assign(size_t(targetLen), kIgnoreIndex); // last turn only

    std::vector<int64_t> ids(source.begin(), source.end());
    ids.insert(ids.end(), target.begin(), target.end());
    std::vector<int64_t> labels = std::move(sourceLabel);
    labels.insert(labels.end(), targetLabel.begin(), targetLabel.end());
    if (o.maskHistory) { // reversed turns: prepend
      out.inputIds.insert(out.inputIds.begin(), ids.begin(), ids.end());
      out.labels.insert(out.labels.begin(), labels.begin(), labels.end());
    } else {
      out.inputIds.insert(out.inputIds.end(), ids.begin(), ids.end());
      out.labels.insert(out.labels.end(), labels.begin(), labels.end());
    }
  }
  if (t.efficientEos) {
    out.inputIds.push_back(eos);
    out.labels.push_back(eos);
  }
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

PreparedRow packOne(const std::vector<int64_t>& knapsack, std::map<int64_t, std::vector<size_t>>& byLength,
                    const std::vector<EncodedExample>& kept, const std::vector<long>& keptRows,
                    const SupervisedOptions& o, int64_t cutoff, int64_t padId) {
  PreparedRow row;
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
    params.sequenceBoundaries.push_back(params.sequenceBoundaries.back() + pad);
    params.rightPaddingLength = pad;
  }
  if (int64_t(row.inputIds.size()) != cutoff + 1)
    throw Error("The length of packed example should be identical to the cutoff length.");
  if (o.neatPacking) row.packing = params;
  return row;
}

} // namespace

PreparedDataset prepareSupervised(const Encoder& enc, const std::vector<LfExample>& examples,
                                  const std::vector<long>& sourceRows, const SupervisedOptions& o) {
  checkSupervisedOptions(o, enc.tmpl());
  const bool packing = o.packing || o.neatPacking;
  const int64_t cutoff = packing ? o.cutoffLen - 1 : o.cutoffLen; // DataArguments: "avoid pad_to_multiple_of"
  PreparedDataset out;
  std::vector<EncodedExample> kept;
  std::vector<long> keptRows;
  std::map<int64_t, std::vector<size_t>> byLength;
  std::vector<int64_t> lengths;
  for (size_t i = 0; i < examples.size(); ++i) {
    EncodedExample ex = encodeExample(enc, examples[i], o, cutoff);
    if (!packing) {
      PreparedRow row;
      row.attentionMask.assign(ex.inputIds.size(), 1);
      row.inputIds = std::move(ex.inputIds);
      row.labels = std::move(ex.labels);
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
