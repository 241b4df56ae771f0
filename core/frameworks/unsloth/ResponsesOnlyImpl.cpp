// Unsloth's train_on_responses_only as a FrameworkImpl. prepare(): the markers resolved as Unsloth
// resolves them (strings through --tokenizer with _find_common_token_ids, id lists as given), each
// row's labels from the marker search (ResponsesOnly.h), then -- from unsloth-zoo 2026.2 on -- rows
// left all -100 removed (_filter_fully_masked: a ValueError when none is left, a truncation warning
// when nearly all go). collate(): the DataCollatorForSeq2Seq(tokenizer) Unsloth swaps in: right
// padding to the longest row, attention_mask 0 and labels -100 on the pads.
#include "core/frameworks/unsloth/ResponsesOnly.h"
#include "core/frameworks/unsloth/Unsloth.h"
#include "core/frameworks/unsloth/UnslothRows.h"
#include "core/util/Error.h"

namespace maskscope::unsloth {

namespace {

SourceLocation at(const FrameworkSpec& s, const char* key) { return {s.source, -1, -1, -1, key}; }

TokenMarker resolveMarker(const char* key, FrameworkContext& ctx, const ZooBehaviour& zoo) {
  const OrderedJson& v = ctx.spec.value(key);
  if (v.is_array()) { // token ids: matched exactly, no optional neighbours
    TokenMarker m;
    for (const auto& e : v) m.core.push_back(e.get<int32_t>());
    if (m.core.empty())
      throw Error(std::string("Unsloth: ") + key +
                      " could not be resolved to a stable token sequence (an empty id list)",
                  at(ctx.spec, key));
    return m;
  }
  const Tokenizer& tok = ctx.requireTokenizer(key);
  const EncodeIds encode = [&](const std::string& text) {
    EncodeOptions eo;
    eo.addSpecialTokens = false;
    eo.tokenStrings = false;
    return tok.encode(text, eo).ids;
  };
  bool tied = false;
  TokenMarker m;
  try {
    m = findCommonTokenIds(v.get<std::string>(), encode, ctx.spec.flag("force_match"), zoo.emptyMarkerWhenCoreMissing,
                           &tied);
  } catch (const Error& e) {
    throw Error(e.message(), at(ctx.spec, key));
  }
  if (m.core.empty())
    throw Error(std::string("Unsloth: ") + key +
                    " could not be resolved to a stable token sequence, so it cannot be matched against your dataset - "
                    "it tokenizes to nothing, or no stable core could be recovered from it" +
                    (ctx.spec.flag("force_match") ? "" : ", or try force_match = True"),
                at(ctx.spec, key));
  if (tied)
    ctx.facts.warnings.push_back(std::string(key) +
                                 ": several token runs tie for the longest common core; Unsloth picks "
                                 "one by Python set order, maskscope the first in the marker's own "
                                 "spelling");
  return m;
}

ResponseMarkers resolveMarkers(FrameworkContext& ctx, const ZooBehaviour& zoo) {
  const bool hasQ = !ctx.spec.value("instruction_part").is_null(), hasA = !ctx.spec.value("response_part").is_null();
  if (!hasQ && !hasA) {
    if (!zoo.autoDetectsMarkers)
      throw Error("Unsloth: instruction_part and response_part must be given!", at(ctx.spec, "instruction_part"));
    throw Error("instruction_part and response_part are required: Unsloth 2026.8 would auto-detect them from the chat "
                "template (get_chat_template_parts), which maskscope does not reproduce",
                at(ctx.spec, "instruction_part"));
  }
  if (!hasQ || !hasA)
    throw Error(!zoo.autoDetectsMarkers
                    ? "Unsloth: instruction_part and response_part must be given!"
                    : "Unsloth: Give both instruction_part and response_part, or neither to auto-detect!",
                at(ctx.spec, hasQ ? "response_part" : "instruction_part"));
  return {resolveMarker("instruction_part", ctx, zoo), resolveMarker("response_part", ctx, zoo)};
}

bool allIgnored(const std::vector<int64_t>& labels) {
  // graded-count: ok (Unsloth's _filter_fully_masked as written: every label -100, position 0 included)
  return std::all_of(labels.begin(), labels.end(), [](int64_t l) { return l == kIgnoreIndex; });
}

class ResponsesOnlyImpl final : public FrameworkImpl {
public:
  explicit ResponsesOnlyImpl(const ZooBehaviour& zoo) : zoo_(zoo) {}
  std::vector<PreparedRow> prepare(const std::vector<InputRow>& rows, FrameworkContext& ctx) const override;
  FrameworkBatch collate(const std::vector<PreparedRow>& rows, FrameworkContext& ctx) const override;

private:
  ZooBehaviour zoo_;
};

int64_t maxLengthOf(const FrameworkSpec& s) {
  if (auto m = s.optionalInteger("max_length"); m && *m > 0) return *m;
  if (auto m = s.optionalInteger("max_seq_length"); m && *m > 0) return *m;
  throw Error("Unsloth: max_seq_length is 0! Please specify one!", at(s, "max_length"));
}

std::vector<PreparedRow> ResponsesOnlyImpl::prepare(const std::vector<InputRow>& rows, FrameworkContext& ctx) const {
  const ResponseMarkers markers = resolveMarkers(ctx, zoo_);
  const bool lastOnly = zoo_.lastResponseOnly && ctx.spec.flag("last_response_only");
  const int64_t maxLength = maxLengthOf(ctx.spec);
  std::vector<UnslothRow> input = unslothInputRows(rows, ctx, maxLength);
  ctx.facts.markerOption = "response_part";
  std::vector<PreparedRow> out;
  std::vector<size_t> masked; // rows left all -100
  for (size_t i = 0; i < input.size(); ++i) {
    PreparedRow& r = input[i].row;
    const auto& ids = r.at("input_ids");
    const std::vector<int32_t> ids32(ids.begin(), ids.end());
    std::optional<std::vector<int32_t>> old;
    if (input[i].oldLabels) old = std::vector<int32_t>(input[i].oldLabels->begin(), input[i].oldLabels->end());
    const std::vector<int32_t> labels = responsesOnlyLabels(ids32, old, markers, lastOnly);
    r.set("labels", std::vector<int64_t>(labels.begin(), labels.end()));
    if (allIgnored(r.at("labels"))) {
      masked.push_back(i);
      const bool spans = !responseSpans(ids32, markers).empty();
      ctx.facts.markerNotFound.push_back(
          {rows[i].index, rows[i].line,
           spans ? "every response span is empty or already -100" : "response_part never found: every label is -100"});
    }
  }
  const bool drops = zoo_.dropsFullyMaskedRows;
  if (drops && !masked.empty()) {
    const size_t n = input.size();
    if (masked.size() * 10 >= n * 9) { // _diagnose_truncation: most rows at the length cap means truncation
      size_t sampled = 0, atCap = 0;
      for (size_t k = 0; k < masked.size() && k < 100; ++k, ++sampled)
        if (int64_t(input[masked[k]].row.at("input_ids").size()) >= maxLength) ++atCap;
      if (sampled && atCap * 10 >= sampled * 9)
        ctx.facts.warnings.push_back("Unsloth: train_on_responses_only masked all/most labels to -100. The most likely "
                                     "cause is truncation: max_length=" +
                                     std::to_string(maxLength) +
                                     " cut off the response marker before masking could find it.");
    }
    if (masked.size() == n && !ctx.lenient)
      throw Error("Unsloth: train_on_responses_only masked every label to -100 in train_dataset, so there is nothing "
                  "to train on. The response marker was not found in any sample - check that instruction_part and "
                  "response_part match your chat template.",
                  at(ctx.spec, "response_part"));
    if (masked.size() < n || !ctx.lenient)
      ctx.facts.warnings.push_back("Unsloth: Removed " + std::to_string(masked.size()) + " out of " +
                                   std::to_string(n) +
                                   " samples from train_dataset where all labels were -100 (no response marker "
                                   "found, usually truncation). This prevents NaN loss during training.");
  }
  size_t next = 0;
  for (size_t i = 0; i < input.size(); ++i) {
    const bool isMasked = next < masked.size() && masked[next] == i;
    if (isMasked) ++next;
    if (isMasked && drops && masked.size() < input.size()) {
      ctx.facts.dropped.push_back(
          {rows[i].index, rows[i].line, "all labels -100 (removed by train_on_responses_only)"});
      continue;
    }
    out.push_back(std::move(input[i].row));
  }
  return out;
}

FrameworkBatch ResponsesOnlyImpl::collate(const std::vector<PreparedRow>& rows, FrameworkContext& ctx) const {
  const std::optional<int64_t> pad = ctx.tokenId("pad_token_id", "pad");
  ctx.facts.padTokenId = pad;
  ctx.facts.eosTokenId = ctx.tokenId(nullptr, "eos");
  std::vector<std::vector<int64_t>> ids, attention, labels;
  for (const auto& r : rows) {
    ids.push_back(r.at("input_ids"));
    attention.push_back(r.has("attention_mask") ? r.at("attention_mask") : std::vector<int64_t>(ids.back().size(), 1));
    labels.push_back(r.at("labels"));
  }
  const int64_t width = paddedWidth(ids, std::nullopt);
  for (const auto& r : ids)
    if (int64_t(r.size()) != width && !pad)
      throw Error("Asking to pad but the tokenizer does not have a padding token (Unsloth adds one when it loads the "
                  "model): give \"pad_token_id\"",
                  at(ctx.spec, "pad_token_id"));
  FrameworkBatch out;
  out.addGrid("input_ids", padRows(ids, pad.value_or(0)), TensorDType::Int64);
  out.addGrid("attention_mask", padRows(attention, 0), TensorDType::Int64);
  out.addGrid("labels", padRows(labels, kIgnoreIndex), TensorDType::Int64);
  return out;
}

} // namespace

std::unique_ptr<FrameworkImpl> makeResponsesOnly(const ZooBehaviour& behaviour) {
  return std::make_unique<ResponsesOnlyImpl>(behaviour);
}

} // namespace maskscope::unsloth
