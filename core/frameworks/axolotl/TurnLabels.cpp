// The default path of Axolotl's chat_template strategy: per-turn labels from find_turn, then the
// EOT / EOS tokens (ChatTemplateStrategy._tokenize_single_prompt and find_turn, v0.18.0).
#include "core/frameworks/axolotl/ChatTemplateStrategy.h"
#include "core/util/Error.h"

#include <algorithm>
#include <functional>

namespace maskscope::axolotl {

namespace {

constexpr int64_t kIgnore = -100;

bool truthy(const OrderedJson* v) { return v && pythonTruthy(*v); }

const OrderedJson* get(const OrderedJson& o, const std::string& key) {
  auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}

// range(start, len(ids)) with Python's negative index when start is -1 (find_turn failed).
long findFirst(const std::vector<int64_t>& ids, long start, const std::function<bool(int64_t)>& match) {
  const long n = long(ids.size());
  for (long i = start; i < n; ++i) {
    const long at = i < 0 ? n + i : i;
    if (at >= 0 && match(ids[size_t(at)])) return i;
  }
  return -1;
}

// Python's labels[start + i] (the index is never negative here: start != -1).
void copyLabel(std::vector<int64_t>& labels, const std::vector<int64_t>& ids, long index) {
  if (index >= 0 && index < long(ids.size())) labels[size_t(index)] = ids[size_t(index)];
}

} // namespace

std::pair<long, long> ChatTemplateStrategy::findTurn(const std::vector<OrderedJson>& turns, size_t index,
                                                     const OrderedJson& tools, bool contentOnly, bool reasoningOnly,
                                                     std::vector<std::string>& warnings) const {
  const OrderedJson& turn = turns[index];
  const OrderedJson* role = get(turn, "role");
  // mistral/gemma3 do not output a lone system message
  if (index == 0 && role && *role == "system" && mistralName_) return {-1, -1};
  const std::string& key = config_.templateThinkingKey;
  OrderedJson empty = OrderedJson::object();
  empty["role"] = role ? *role : OrderedJson();
  if (reasoningOnly) {
    const OrderedJson* content = get(turn, "content");
    empty["content"] = content ? *content : OrderedJson("");
    if (!key.empty() && turn.contains(key)) empty[key] = "[[dummy_reasoning]]";
  } else {
    empty["content"] = "[[dummy_message]]";
    if (contentOnly && !key.empty() && turn.contains(key)) empty[key] = turn[key];
  }
  std::vector<OrderedJson> withEmpty(turns.begin(), turns.begin() + long(index));
  withEmpty.push_back(empty);
  const std::vector<OrderedJson> withContent(turns.begin(), turns.begin() + long(index) + 1);
  const long realLast = long(turns.size()) - 1;
  const auto dummy = buildPrompt(withEmpty, false, tools, realLast);
  const auto full = buildPrompt(withContent, false, tools, realLast);
  const std::string which = "turn " + std::to_string(index);
  if (full.empty() || dummy.empty()) {
    warnings.push_back("Empty template generated for " + which);
    return {-1, -1};
  }
  const size_t minLen = std::min(dummy.size(), full.size());
  long start = -1, end = -1;
  for (size_t i = 0; i < minLen; ++i)
    if (dummy[i] != full[i]) {
      start = long(i);
      break;
    }
  if (start < 0) {
    warnings.push_back("Could not find content start boundary for " + which);
    return {-1, -1};
  }
  for (size_t i = 0; i < minLen; ++i)
    if (dummy[dummy.size() - 1 - i] != full[full.size() - 1 - i]) {
      end = long(full.size() - i); // full_pos + 1
      break;
    }
  if (end < 0) {
    warnings.push_back("Could not find content end boundary for " + which);
    return {-1, -1};
  }
  if (end < start) {
    warnings.push_back("Content end boundary is before start boundary for " + which);
    return {-1, -1};
  }
  if (end == start) {
    warnings.push_back("Content end boundary is the same as start boundary for " + which +
                       ". This is likely an empty turn.");
    return {-1, -1};
  }
  return {start, end};
}

TokenizedRow ChatTemplateStrategy::tokenizeTurns(const std::vector<OrderedJson>& turns,
                                                 const OrderedJson& tools) const {
  TokenizedRow out;
  out.columnOrder = {"input_ids", "labels", "attention_mask"};
  const auto rendered = buildPrompt(turns, false, tools, std::nullopt);
  out.inputIds.assign(rendered.begin(), rendered.end());
  const auto& ids = out.inputIds;
  std::vector<int64_t> labels(ids.size(), kIgnore);
  const std::string& key = config_.templateThinkingKey;
  const TrainOn eos = config_.trainOnEos, eot = trainOnEot_;
  long lastEos = -1, lastEot = -1;
  for (size_t index = 0; index < turns.size(); ++index) {
    const OrderedJson& turn = turns[index];
    const OrderedJson* role = get(turn, "role");
    const OrderedJson* trainTurn = get(turn, "training");
    const OrderedJson* detail = get(turn, "training_detail");
    const OrderedJson* reasoningDetail = get(turn, "reasoning_training_detail");
    bool shouldTrain;
    if (trainTurn && !trainTurn->is_null())
      shouldTrain = truthy(trainTurn);
    else if ((detail && !detail->is_null()) || (reasoningDetail && !reasoningDetail->is_null()))
      shouldTrain = truthy(detail) || truthy(reasoningDetail);
    else
      shouldTrain = config_.trainOnInputs || (role && role->is_string() &&
                                              std::find(rolesToTrain_.begin(), rolesToTrain_.end(),
                                                        role->get<std::string>()) != rolesToTrain_.end());
    if (shouldTrain) ++out.trainedTurns;
    if (!shouldTrain && eos != TrainOn::All && eot != TrainOn::All) {
      if (index + 1 == turns.size())
        out.warnings.push_back("Last turn is not trainable, skipping having to find the turn indices. This may cause "
                               "incorrect last EOT/EOS token to be unmasked.This is likely a dataset design issue. "
                               "Please ensure last turn is trainable.");
      continue;
    }
    const bool hasReasoning = !key.empty() && turn.contains(key) && !turn[key].is_null();
    const bool contentOnly = (truthy(detail) || truthy(reasoningDetail)) && hasReasoning;
    const auto [start, end] = findTurn(turns, index, tools, contentOnly, false, out.warnings);
    if (shouldTrain && start != -1 && end != -1) {
      if (truthy(detail)) {
        const OrderedJson* content = get(turn, "content");
        if (!content || !content->is_string())
          throw Error("`train_detail` is not supported when `content` is not a string.");
        const auto trained =
            trainedTokens(content->get<std::string>(), trainDetails(*detail, "training_detail"), out.warnings);
        for (size_t i = 0; i < trained.size(); ++i)
          if (trained[i]) copyLabel(labels, ids, start + long(i));
      } else if (!truthy(reasoningDetail)) {
        for (long i = start; i < end && i < long(ids.size()); ++i) labels[size_t(i)] = ids[size_t(i)];
      }
    }
    if (shouldTrain && truthy(reasoningDetail) && hasReasoning) {
      if (!turn[key].is_string())
        throw Error("`reasoning_training_detail` is not supported when reasoning_content is not a string.");
      const auto [rs, re] = findTurn(turns, index, tools, false, true, out.warnings);
      if (rs != -1 && re != -1) {
        const auto trained = trainedTokens(turn[key].get<std::string>(),
                                           trainDetails(*reasoningDetail, "reasoning_training_detail"), out.warnings);
        for (size_t i = 0; i < trained.size(); ++i)
          if (trained[i]) copyLabel(labels, ids, rs + long(i));
      }
    }
    // the EOT token, then the EOS token, each within 3 tokens of the content's end
    const auto isEot = [&](int64_t id) { return eotIds_.count(int32_t(id)) > 0; };
    const auto isEos = [&](int64_t id) { return special_.eosId && id == *special_.eosId; };
    for (const auto& [isToken, option, last] : {std::tuple{std::function<bool(int64_t)>(isEot), eot, &lastEot},
                                                std::tuple{std::function<bool(int64_t)>(isEos), eos, &lastEos}}) {
      const long idx = findFirst(ids, end, isToken);
      if (idx == -1 || std::abs(idx - end) > 3) continue;
      *last = idx;
      if (option == TrainOn::All || (option == TrainOn::Turn && shouldTrain)) copyLabel(labels, ids, idx);
    }
  }
  if (eot == TrainOn::Last && lastEot != -1) copyLabel(labels, ids, lastEot);
  if (eos == TrainOn::Last && lastEos != -1) copyLabel(labels, ids, lastEos);
  out.labels = std::move(labels);
  out.attentionMask.assign(ids.size(), 1);
  return out;
}

} // namespace maskscope::axolotl
