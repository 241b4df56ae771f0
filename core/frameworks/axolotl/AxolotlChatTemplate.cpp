// Axolotl `type: chat_template` as a FrameworkImpl. prepare(): each row through ChatTemplateStrategy
// (input_ids, labels, attention_mask), then the sequence_len handling of
// utils/data/utils.py handle_long_seq_in_dataset (drop rows outside [min_sample_len, sequence_len],
// or truncate, or raise). collate(): Axolotl's own DataCollatorForSeq2Seq
// (utils/collators/batching.py) as core/builders/causal.py builds it: padding to the longest row
// rounded up to pad_to_multiple_of (64 unless set; sequence_len rounded up to it when
// pad_to_sequence_len), labels padded with -100, on the tokenizer's padding side.
#include "core/frameworks/UnavailableChatTemplate.h"
#include "core/frameworks/axolotl/Axolotl.h"
#include "core/frameworks/axolotl/AxolotlConfig.h"
#include "core/frameworks/axolotl/AxolotlMeta.h"
#include "core/frameworks/axolotl/AxolotlTemplates.h"
#include "core/frameworks/axolotl/ChatTemplateStrategy.h"
#include "core/frameworks/axolotl/Multipack.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"
#include "core/util/JsonParse.h"

namespace maskscope::axolotl {

namespace {

std::vector<int64_t> truncated(const std::vector<int64_t>& v, int64_t n) {
  return std::vector<int64_t>(v.begin(), v.begin() + std::min<int64_t>(n, int64_t(v.size())));
}

// DataCollatorForSeq2Seq pads position_ids with list(range(remainder)).
std::vector<std::vector<int64_t>> padPositions(const std::vector<std::vector<int64_t>>& rows, int64_t width,
                                               bool left) {
  std::vector<std::vector<int64_t>> out;
  for (const auto& r : rows) {
    std::vector<int64_t> rest;
    for (int64_t i = 0; i < width - int64_t(r.size()); ++i) rest.push_back(i);
    std::vector<int64_t> v = left ? rest : r;
    v.insert(v.end(), left ? r.begin() : rest.begin(), left ? r.end() : rest.end());
    out.push_back(std::move(v));
  }
  return out;
}

class ChatTemplateImpl final : public FrameworkImpl {
public:
  explicit ChatTemplateImpl(bool packing) : packing_(packing) {}
  // V2BatchSamplerDataCollatorForSeq2Seq writes 1, 2, 3 ... per packed row in attention_mask
  BatchConventions conventions() const override {
    BatchConventions c;
    c.attentionIsSegmentIds = packing_;
    return c;
  }
  std::vector<PreparedRow> prepare(const std::vector<InputRow>& rows, FrameworkContext& ctx) const override;
  FrameworkBatch collate(const std::vector<PreparedRow>& rows, FrameworkContext& ctx) const override;

private:
  bool packing_;
};

ChatTemplateStrategy makeStrategy(const AxolotlConfig& cfg, FrameworkContext& ctx) {
  std::optional<std::string> own;
  std::string ownOrigin;
  if (ctx.chatTemplate && !dynamic_cast<const UnavailableChatTemplate*>(ctx.chatTemplate.get())) {
    own = ctx.chatTemplate->source();
    ownOrigin = ctx.chatTemplate->name();
  }
  const TemplateChoice choice =
      chooseAxolotlTemplate(cfg.chatTemplate, cfg.chatTemplateJinja, own, ownOrigin, ctx.spec.source);
  if (!own || choice.text != *own) { // lint judges the template this batch was rendered with
    ctx.facts.chatTemplateText = choice.text;
    ctx.facts.chatTemplateOrigin = choice.origin;
  }
  std::map<std::string, std::string> variables = ctx.render.variables;
  for (const auto& [k, v] : cfg.specialTokens) variables[k] = v; // special_tokens replace the tokenizer's
  return ChatTemplateStrategy(cfg, ctx.tokenizer, choice.text, choice.origin, variables, ctx.spec.source);
}

// handle_long_seq_in_dataset: true when the row stays (possibly truncated).
bool keepRow(const AxolotlConfig& cfg, TokenizedRow& r, const InputRow& row, FrameworkFacts& facts) {
  const int64_t n = int64_t(r.inputIds.size());
  const int64_t minLen = cfg.minSampleLen && *cfg.minSampleLen ? *cfg.minSampleLen : 2; // `min_sample_len or 2`
  const auto drop = [&](const std::string& why) {
    facts.dropped.push_back({row.index, row.line, why});
    return false;
  };
  if (cfg.excessLengthStrategy == "truncate") {
    if (n < minLen) return drop(std::to_string(n) + " tokens, under min_sample_len " + std::to_string(minLen));
    if (n > cfg.sequenceLen) {
      r.inputIds = truncated(r.inputIds, cfg.sequenceLen);
      r.labels = truncated(r.labels, cfg.sequenceLen);
      r.attentionMask = truncated(r.attentionMask, cfg.sequenceLen);
    }
    return true;
  }
  if (n > cfg.sequenceLen && cfg.excessLengthStrategy == "raise")
    throwRowError(row, "sequence_len",
                  "Sequence encountered with " + std::to_string(n) + " tokens, which exceeds the maximum " +
                      std::to_string(cfg.sequenceLen) + " (excess_length_strategy: raise)");
  if (n < minLen || n > cfg.sequenceLen)
    return drop(std::to_string(n) + " tokens, outside [" + std::to_string(minLen) + ", " +
                std::to_string(cfg.sequenceLen) + "] (sequence_len, excess_length_strategy: drop)");
  return true;
}

PreparedRow toPrepared(const TokenizedRow& r, std::vector<PositionMeta> meta, const InputRow& row) {
  PreparedRow p;
  for (const auto& name : r.columnOrder)
    p.set(name, name == "input_ids" ? r.inputIds : name == "labels" ? r.labels : r.attentionMask);
  meta.resize(r.inputIds.size());
  p.meta = std::move(meta);
  p.sourceRows = {row.index};
  p.sourceLines = {row.line};
  return p;
}

std::vector<PreparedRow> ChatTemplateImpl::prepare(const std::vector<InputRow>& rows, FrameworkContext& ctx) const {
  ctx.requireTokenizer("Axolotl's chat_template strategy");
  const AxolotlConfig cfg = axolotlConfigFromOptions(ctx.spec.options, ctx.spec.source);
  if (cfg.samplePacking && !cfg.curriculumSampling)
    ctx.facts.warnings.push_back("sample_packing: rows are packed in file order (curriculum_sampling: true); Axolotl's "
                                 "default RandomSampler shuffles them first, so its bins hold other rows, built the "
                                 "same way");
  const ChatTemplateStrategy strategy = makeStrategy(cfg, ctx);
  for (const auto& w : strategy.setupWarnings()) ctx.facts.warnings.push_back(w);
  ctx.facts.legacyLastTurnOnly = cfg.legacyPath();
  RenderOptions metaRender;
  metaRender.variables = ctx.render.variables;
  for (const auto& [k, v] : cfg.specialTokens) metaRender.variables[k] = v;
  metaRender.extra = cfg.chatTemplateKwargs;
  std::vector<PreparedRow> out;
  for (const InputRow& row : rows) {
    TokenizedRow r;
    try {
      r = strategy.tokenize(row.value);
    } catch (const Error& e) {
      throwRowError(row, cfg.fieldMessages, e.message());
    }
    for (const auto& w : r.warnings)
      ctx.facts.warnings.push_back("row " + std::to_string(row.index) + " (line " + std::to_string(row.line) +
                                   "): " + w);
    if (!keepRow(cfg, r, row, ctx.facts)) continue;
    std::vector<PositionMeta> meta =
        axolotlPositionMeta(*ctx.tokenizer, strategy.chatTemplate(), r.turns, r.tools, metaRender, r.inputIds);
    out.push_back(toPrepared(r, std::move(meta), row));
    if (cfg.samplePacking) { // process_datasets_for_packing: add_position_ids
      std::vector<int64_t> positions(r.inputIds.size());
      for (size_t i = 0; i < positions.size(); ++i) positions[i] = int64_t(i);
      out.back().set("position_ids", std::move(positions));
      out.back().set("length", {int64_t(r.inputIds.size())}, true);
    }
  }
  return out;
}

// V2BatchSamplerDataCollatorForSeq2Seq: the rows of each bin concatenated (attention_mask becomes
// 1, 2, 3 ... per row, position_ids restart per row), "length" left out.
std::vector<PreparedRow> packBins(const std::vector<PreparedRow>& rows, const AxolotlConfig& cfg,
                                  FrameworkFacts& facts) {
  MultipackOptions o;
  o.binCapacity = cfg.multipackRealBatches ? cfg.sequenceLen : cfg.microBatchSize * cfg.sequenceLen;
  o.batchSize = cfg.multipackRealBatches ? cfg.microBatchSize : 1;
  o.binSize = cfg.samplePackingBinSize;
  o.groupSize = cfg.samplePackingGroupSize;
  o.sequential = cfg.samplePackingSequentially;
  std::vector<int64_t> lengths;
  for (const auto& r : rows) lengths.push_back(int64_t(r.at("input_ids").size()));
  const auto batches = multipackBatches(lengths, o);
  if (batches.empty())
    throw Error("sample_packing: no complete batch (drop_last drops an incomplete last batch of bins)");
  facts.warnings.push_back("sample_packing: the first of " + std::to_string(batches.size()) +
                           " packed batches (what Axolotl's first step receives)");
  std::vector<PreparedRow> packed;
  for (const auto& bin : batches.front()) {
    PreparedRow p;
    for (const auto& c : rows[bin.front()].columns) {
      if (c.name == "length") continue;
      std::vector<int64_t> v;
      for (size_t k = 0; k < bin.size(); ++k) {
        const auto& part = rows[bin[k]].at(c.name);
        for (int64_t x : part) v.push_back(c.name == "attention_mask" ? int64_t(k + 1) * x : x);
      }
      p.set(c.name, std::move(v));
    }
    for (size_t k = 0; k < bin.size(); ++k) {
      p.meta.insert(p.meta.end(), rows[bin[k]].meta.begin(), rows[bin[k]].meta.end());
      p.sourceRows.push_back(rows[bin[k]].sourceRows.front());
      p.sourceLines.push_back(rows[bin[k]].sourceLines.front());
    }
    packed.push_back(std::move(p));
  }
  return packed;
}

FrameworkBatch ChatTemplateImpl::collate(const std::vector<PreparedRow>& rowsIn, FrameworkContext& ctx) const {
  const AxolotlConfig cfg = axolotlConfigFromOptions(ctx.spec.options, ctx.spec.source);
  const std::vector<PreparedRow> rows = cfg.samplePacking ? packBins(rowsIn, cfg, ctx.facts) : rowsIn;
  const SpecialTokens special = axolotlSpecialTokens(*ctx.tokenizer, cfg, ctx.spec.source);
  ctx.facts.padTokenId = special.padId ? std::optional<int64_t>(*special.padId) : std::nullopt;
  ctx.facts.eosTokenId = special.eosId ? std::optional<int64_t>(*special.eosId) : std::nullopt;
  // core/builders/causal.py: multiple = pad_to_multiple_of or 64; pad_to_sequence_len rounds
  // sequence_len up to it; unset pads to a multiple of it; false pads to the longest row.
  const int64_t multiple = cfg.padToMultipleOf.value_or(64);
  std::optional<int64_t> padTo;
  if (!cfg.padToSequenceLen)
    padTo = multiple;
  else if (*cfg.padToSequenceLen)
    padTo = multiple * ((cfg.sequenceLen + multiple - 1) / multiple);
  const bool left = tokenizerPaddingSide(*ctx.tokenizer) == "left";
  std::vector<std::vector<int64_t>> ids, labels, attention, positions;
  for (const auto& r : rows) {
    ids.push_back(r.at("input_ids"));
    labels.push_back(r.at("labels"));
    attention.push_back(r.at("attention_mask"));
    if (r.has("position_ids")) positions.push_back(r.at("position_ids"));
  }
  const int64_t width = paddedWidth(ids, padTo);
  if (!special.padId && width != int64_t(ids.front().size()))
    throw Error("Asking to pad but the tokenizer does not have a padding token", {ctx.spec.source});
  FrameworkBatch out;
  for (const auto& c : rows.front().columns) { // tokenizer.pad keeps the features' key order
    if (c.name == "input_ids")
      out.addGrid(c.name, padRows(ids, special.padId.value_or(0), left, padTo), TensorDType::Int64);
    if (c.name == "labels") out.addGrid(c.name, padRows(labels, -100, left, padTo), TensorDType::Int64);
    if (c.name == "attention_mask") out.addGrid(c.name, padRows(attention, 0, left, padTo), TensorDType::Int64);
    if (c.name == "position_ids") out.addGrid(c.name, padPositions(positions, width, left), TensorDType::Int64);
  }
  return out;
}

} // namespace

std::unique_ptr<FrameworkImpl> makeChatTemplate(bool packing) { return std::make_unique<ChatTemplateImpl>(packing); }

std::string tokenizerPaddingSide(const Tokenizer& tokenizer) {
  const std::string folder = specFolder(tokenizer.source());
  if (folder.empty()) return "right";
  const std::string cfg = joinPath(folder, "tokenizer_config.json");
  if (!fileExists(cfg)) return "right";
  const nlohmann::json j = parseJsonOrThrow(readFileCapped(cfg, int64_t(64) << 20), {cfg});
  auto it = j.find("padding_side");
  return it != j.end() && it->is_string() && it->get<std::string>() == "left" ? "left" : "right";
}

} // namespace maskscope::axolotl
