// torchtune in the frameworks registry: the catalogue (versions 0.7.0 and 0.6.1, padded_collate_sft and
// padded_collate_packed with torchtune's argument names), reading pre-tokenized rows with torchtune's
// columns (tokens, labels, input_pos, seq_lens), PackedDataset as the preparation of unpacked rows for
// the packed collator, message rows (chat_dataset's OpenAIToMessages / ShareGPTToMessages and a model
// tokenizer's tokenize_messages, 0.7.0: TorchtuneMessages.h), and the conventions that turn its batch into maskscope's
// Batch (labels pre-shifted in 0.7.0, the block-causal mask as segments).
#include "core/frameworks/FrameworkList.h"
#include "core/frameworks/torchtune/TorchtuneCollate.h"
#include "core/frameworks/torchtune/TorchtuneMessages.h"
#include "core/util/Error.h"

#include <algorithm>
#include <climits>

namespace maskscope {

namespace torchtune {

namespace {

// 0.7.0's message datasets: chat_dataset's arguments and the model tokenizer that writes the turns.
std::vector<OptionInfo> messageOptions() {
  std::string families;
  for (const std::string& f : messageTokenizers()) families += (families.empty() ? "" : ", ") + f;
  OptionInfo strategy = frameworkOption("masking_strategy", OptionKind::OptionalString, nullptr,
                                        "message rows: train_on_all, train_on_assistant or train_on_last, as "
                                        "OpenAIToMessages(masking_strategy=) takes it (null: from train_on_input)");
  return {
      frameworkOption("model_tokenizer", OptionKind::OptionalString, nullptr,
                      "message rows: the model tokenizer whose tokenize_messages writes the turns (" + families +
                          "); null: message rows are refused"),
      choiceOption("conversation_style", {"openai", "sharegpt"},
                   "message rows: chat_dataset's conversation_style (OpenAIToMessages or ShareGPTToMessages)"),
      frameworkOption("conversation_column", OptionKind::OptionalString, nullptr,
                      "message rows: chat_dataset's conversation_column (null: messages, or conversations for "
                      "sharegpt)"),
      frameworkOption("train_on_input", OptionKind::Bool, false,
                      "message rows: chat_dataset's train_on_input (true: train_on_all, false: train_on_assistant)"),
      strategy,
      frameworkOption("new_system_prompt", OptionKind::OptionalString, nullptr,
                      "message rows: replaces the rows' system messages"),
      frameworkOption("tokenizer_max_seq_len", OptionKind::OptionalInt, nullptr,
                      "message rows: the model tokenizer's max_seq_len (truncation, the last token made EOS)", 1),
      choiceOption("truncation_type", {"right", "left"}, "message rows: the model tokenizer's truncation_type")};
}

VersionInfo version(const std::string& v, const std::string& readFrom, bool v07) {
  std::vector<OptionInfo> sft = {
      frameworkOption("padding_idx", OptionKind::Int, 0,
                      "padding index for tokens (the tokenizer's pad_id in a recipe)", INT32_MIN, INT32_MAX),
      frameworkOption("ignore_idx", OptionKind::Int, -100, "padding index for labels", INT32_MIN, INT32_MAX)};
  if (v07) {
    sft.push_back(
        frameworkOption("pad_to_multiple_of", OptionKind::Int, 1,
                        "pad to a multiple of this (as written: a length already a multiple gains one more block)", 1,
                        kMaxPadMultiple));
    sft.push_back(
        frameworkOption("cp_degree", OptionKind::Int, 1, "context parallel degree; > 1 adds input_pos", 1, 1 << 16));
  }
  std::vector<OptionInfo> packed = {
      frameworkOption(
          "max_seq_len", OptionKind::OptionalInt, nullptr,
          "PackedDataset's max_seq_len: pack unpacked rows into rows of this length (null: rows are packed already)",
          1),
      frameworkOption("padding_idx", OptionKind::Int, 0, "PackedDataset's padding_idx for tokens", INT32_MIN,
                      INT32_MAX),
      frameworkOption("max_packs", OptionKind::OptionalInt, nullptr, "PackedDataset's max_packs", 1,
                      kMaxFrameworkLength),
      frameworkOption("split_across_pack", OptionKind::Bool, false,
                      "split a sample that does not fit into the next pack")};
  if (v07)
    for (std::vector<OptionInfo>* options : {&sft, &packed})
      for (OptionInfo& o : messageOptions()) options->push_back(std::move(o));
  return {
      v,
      readFrom,
      {{"padded_collate_sft", "tokens and labels right-padded to the longest row", sft},
       {"padded_collate_packed", "packed rows stacked, with the bool block-causal mask built from seq_lens", packed}},
      {{"labels_pre_shifted", v07}, {"collate_pads_to_multiple", v07}, {"message_datasets", v07}}};
}

FrameworkInfo catalogue() {
  FrameworkInfo t;
  t.name = "torchtune";
  t.title = "torchtune";
  t.behaviours = {
      {"labels_pre_shifted", "SFTDataset writes labels[t] = tokens[t + 1] (the recipe does not shift them again)"},
      {"collate_pads_to_multiple", "padded_collate_sft takes pad_to_multiple_of and cp_degree"},
      {"message_datasets", "message rows are tokenized as chat_dataset and the model tokenizer do (model_tokenizer)"},
  };
  t.versions = {version("0.7.0",
                        "pytorch/torchtune main at bd2a0fc (version.txt 0.7.0): torchtune/data/_collate.py, "
                        "torchtune/datasets/_packed.py, torchtune/datasets/_sft.py (labels pre-shifted)",
                        true),
                version("0.6.1",
                        "pytorch/torchtune v0.6.1: torchtune/data/_collate.py, torchtune/datasets/_packed.py "
                        "(labels aligned with tokens; the recipe shifts them)",
                        false)};
  return t;
}

// Ids are checked against --tokenizer's vocabulary when one is given; without it torchtune's own
// sentinel ids (its tests use -1 for EOS) are allowed, as long as they fit in an int32.
IdRange idRange(const FrameworkContext& ctx, bool labels) {
  IdRange r;
  if (ctx.tokenizer) {
    r.vocabSize = ctx.tokenizer->vocabSize();
  } else {
    r.min = INT32_MIN;
  }
  r.allowIgnoreIndex = labels;
  return r;
}

// Message rows under a version or spec that does not reproduce them. 0.6.1's _messages.py and tokenizers
// differ from 0.7.0's (read at bd2a0fc); only 0.7.0's are reproduced.
std::string messagesRefusal(const FrameworkContext& ctx) {
  if (!ctx.spec.behaves("message_datasets"))
    return "torchtune's message datasets are reproduced for 0.7.0 only (pytorch/torchtune bd2a0fc); under 0.6.1 give "
           "the tokens and labels its SFTDataset wrote";
  std::string families;
  for (const std::string& f : messageTokenizers()) families += (families.empty() ? "" : ", ") + f;
  return "torchtune's message datasets need the model tokenizer that tokenizes them: set model_tokenizer (" + families +
         "; other families are not reproduced), or give the tokens and labels its SFTDataset wrote";
}

MessageOptions messageOptionsOf(const FrameworkSpec& spec) {
  MessageOptions o;
  o.modelTokenizer = spec.optionalString("model_tokenizer").value_or("");
  o.conversationStyle = spec.string("conversation_style");
  o.column = spec.optionalString("conversation_column").value_or("");
  o.maskingStrategy = spec.optionalString("masking_strategy")
                          .value_or(spec.flag("train_on_input") ? "train_on_all" : "train_on_assistant");
  o.newSystemPrompt = spec.optionalString("new_system_prompt");
  o.maxSeqLen = spec.optionalInteger("tokenizer_max_seq_len");
  o.truncationType = spec.string("truncation_type");
  return o;
}

Sample readMessageRow(const InputRow& row, FrameworkContext& ctx) {
  if (!ctx.spec.behaves("message_datasets") || !ctx.spec.optionalString("model_tokenizer"))
    throwRowError(row, row.value.contains("messages") ? "messages" : "conversations", messagesRefusal(ctx));
  const MessageOptions o = messageOptionsOf(ctx.spec);
  const auto& known = messageTokenizers();
  if (std::find(known.begin(), known.end(), o.modelTokenizer) == known.end())
    throw Error("model_tokenizer " + o.modelTokenizer + " is not reproduced (" + messagesRefusal(ctx) + ")",
                {ctx.spec.source, -1, -1, -1, "model_tokenizer"});
  const std::vector<std::string> strategies = {"train_on_all", "train_on_assistant", "train_on_last"};
  if (std::find(strategies.begin(), strategies.end(), o.maskingStrategy) == strategies.end())
    throw Error("ValueError: '" + o.maskingStrategy + "' is not a valid MaskingStrategy",
                {ctx.spec.source, -1, -1, -1, "masking_strategy"});
  // The turns are written by torchtune's Python tokenizer, not a Jinja template: the template rules do not run.
  ctx.facts.nativeTemplate = "torchtune's " + o.modelTokenizer + " tokenize_messages";
  std::string field;
  try {
    MessageSample m = tokenizeMessageRow(row.value, o, ctx.requireTokenizer("message rows"), field);
    // torchtune says nothing of them: a fact for lint (tools-not-rendered), not a warning it prints.
    if (!m.warnings.empty()) ctx.facts.toolCallsDropped.push_back({row.index, row.line, m.warnings.front()});
    Sample s;
    s.tokens = std::move(m.tokens);
    s.labels = std::move(m.labels);
    s.meta = std::move(m.meta);
    return s;
  } catch (const Error& e) {
    if (field.empty()) throw;
    throwRowError(row, field, e.message());
  }
}

Sample readSample(const InputRow& row, FrameworkContext& ctx) {
  if (row.value.is_object() && !row.value.contains("tokens") &&
      (row.value.contains("messages") || row.value.contains("conversations") ||
       (ctx.spec.behaves("message_datasets") && ctx.spec.optionalString("conversation_column") &&
        row.value.contains(*ctx.spec.optionalString("conversation_column")))))
    return readMessageRow(row, ctx);
  Sample s;
  s.tokens = requireIdColumn(row, "tokens", idRange(ctx, false));
  s.labels = requireIdColumn(row, "labels", idRange(ctx, true));
  requireSameLength(row, "labels", s.labels.size(), "tokens", s.tokens.size());
  IdRange positions;
  positions.vocabSize = kMaxFrameworkLength;
  if (auto p = readIdColumn(row, "input_pos", positions)) {
    requireSameLength(row, "input_pos", p->size(), "tokens", s.tokens.size());
    s.inputPos = std::move(*p);
  }
  if (auto l = readIdColumn(row, "seq_lens", positions)) {
    int64_t sum = 0;
    for (int64_t n : *l) sum += n;
    if (sum != int64_t(s.tokens.size()))
      throwRowError(row, "seq_lens",
                    "sums to " + std::to_string(sum) + ", not the row's " + std::to_string(s.tokens.size()) +
                        " tokens");
    s.seqLens = std::move(*l);
  }
  if (s.inputPos.empty() != s.seqLens.empty())
    throwRowError(row, s.inputPos.empty() ? "input_pos" : "seq_lens",
                  "a packed row has both input_pos and seq_lens (PackedDataset writes both)");
  return s;
}

PreparedRow toPrepared(const Sample& s, std::vector<long> rows, std::vector<long> lines) {
  PreparedRow r;
  r.set("tokens", s.tokens);
  r.set("labels", s.labels);
  if (!s.seqLens.empty()) {
    r.set("input_pos", s.inputPos);
    r.set("seq_lens", s.seqLens);
  }
  r.meta = s.meta;
  r.sourceRows = std::move(rows);
  r.sourceLines = std::move(lines);
  return r;
}

Sample fromPrepared(const PreparedRow& r) {
  Sample s;
  s.tokens = r.at("tokens");
  s.labels = r.at("labels");
  if (r.has("input_pos")) s.inputPos = r.at("input_pos");
  if (r.has("seq_lens")) s.seqLens = r.at("seq_lens");
  return s;
}

std::vector<std::vector<int64_t>> rowsOf(const IntGrid& g) {
  std::vector<std::vector<int64_t>> out(size_t(g.rows));
  for (int64_t r = 0; r < g.rows; ++r)
    out[size_t(r)].assign(g.values.begin() + r * g.cols, g.values.begin() + (r + 1) * g.cols);
  return out;
}

class Torchtune final : public FrameworkImpl {
public:
  Torchtune(bool packed, bool preShifted) : packed_(packed), preShifted_(preShifted) {}

  std::vector<PreparedRow> prepare(const std::vector<InputRow>& rows, FrameworkContext& ctx) const override;
  FrameworkBatch collate(const std::vector<PreparedRow>& rows, FrameworkContext& ctx) const override;

  BatchConventions conventions() const override {
    BatchConventions c;
    c.inputIds = "tokens";
    c.attentionMask.clear(); // torchtune passes no padding mask: causal (or the block mask) only
    c.positionIds = packed_ ? "input_pos" : "";
    c.cuSeqLens.clear();
    c.labelsPreShifted = preShifted_;
    if (packed_) c.blockMask = "mask";
    return c;
  }

private:
  bool packed_, preShifted_;
};

std::vector<PreparedRow> Torchtune::prepare(const std::vector<InputRow>& rows, FrameworkContext& ctx) const {
  std::vector<Sample> samples;
  size_t packedRows = 0;
  for (const InputRow& row : rows) {
    samples.push_back(readSample(row, ctx));
    packedRows += !samples.back().seqLens.empty();
  }
  std::vector<PreparedRow> out;
  const std::optional<int64_t> maxSeqLen = packed_ ? ctx.spec.optionalInteger("max_seq_len") : std::nullopt;
  if (!packed_ || packedRows == rows.size()) {
    if (packed_ && maxSeqLen)
      throw Error("the rows are packed already (input_pos, seq_lens): max_seq_len packs unpacked rows; leave it null",
                  {ctx.spec.source, -1, -1, -1, "max_seq_len"});
    for (size_t i = 0; i < rows.size(); ++i) out.push_back(toPrepared(samples[i], {rows[i].index}, {rows[i].line}));
    return out;
  }
  if (packedRows != 0) throw Error("some rows are packed (input_pos, seq_lens) and some are not");
  if (!maxSeqLen)
    throw Error("padded_collate_packed needs packed rows (tokens, labels, input_pos, seq_lens), or max_seq_len to "
                "pack these rows as PackedDataset does",
                {ctx.spec.source, -1, -1, -1, "max_seq_len"});
  PackOptions po;
  po.maxSeqLen = *maxSeqLen;
  po.paddingIdx = ctx.spec.integer("padding_idx");
  po.maxPacks = ctx.spec.optionalInteger("max_packs");
  po.splitAcrossPack = ctx.spec.flag("split_across_pack");
  for (const Sample& p : packDataset(samples, po)) {
    std::vector<long> src, lines;
    for (size_t i : p.origin) {
      src.push_back(rows[i].index);
      lines.push_back(rows[i].line);
    }
    out.push_back(toPrepared(p, std::move(src), std::move(lines)));
  }
  return out;
}

FrameworkBatch Torchtune::collate(const std::vector<PreparedRow>& rows, FrameworkContext& ctx) const {
  std::vector<Sample> samples;
  for (const PreparedRow& r : rows) samples.push_back(fromPrepared(r));
  FrameworkBatch out;
  ctx.facts.labelsPreShifted = preShifted_;
  if (ctx.tokenizer) ctx.facts.eosTokenId = ctx.tokenId(nullptr, "eos");
  if (!packed_) {
    SftOptions o;
    o.paddingIdx = ctx.spec.integer("padding_idx");
    o.ignoreIdx = ctx.spec.integer("ignore_idx");
    if (ctx.spec.versionInfo && ctx.spec.behaves("collate_pads_to_multiple")) {
      o.padToMultipleOf = ctx.spec.integer("pad_to_multiple_of");
      o.cpDegree = ctx.spec.integer("cp_degree");
    }
    ctx.facts.padTokenId = o.paddingIdx;
    const SftBatch b = paddedCollateSft(samples, o);
    if (b.tokens.rows * b.tokens.cols > kMaxFrameworkBatchCells) throw Error("the batch is over 2^24 tokens");
    out.addGrid("tokens", rowsOf(b.tokens), TensorDType::Int64);
    out.addGrid("labels", rowsOf(b.labels), TensorDType::Int64);
    if (b.inputPos) out.addGrid("input_pos", rowsOf(*b.inputPos), TensorDType::Int64);
    return out;
  }
  const PackedBatch b = paddedCollatePacked(samples);
  const int64_t B = b.tokens.rows, T = b.tokens.cols;
  if (B * T * T > kMaxFrameworkBatchCells)
    throw Error("the [B, T, T] mask would hold " + std::to_string(B * T * T) + " values, over the cap of 2^24");
  ctx.facts.padTokenId = ctx.spec.integer("padding_idx");
  out.addGrid("tokens", rowsOf(b.tokens), TensorDType::Int64);
  out.addGrid("labels", rowsOf(b.labels), TensorDType::Int64);
  out.addGrid("input_pos", rowsOf(b.inputPos), TensorDType::Int64);
  FrameworkTensor mask;
  mask.dtype = TensorDType::Bool;
  mask.shape = {B, T, T};
  mask.values.reserve(size_t(B * T * T));
  for (int64_t r = 0; r < B; ++r)
    for (int64_t q = 0; q < T; ++q)
      for (int64_t k = 0; k < T; ++k) mask.values.push_back(b.mask(r, q, k) ? 1 : 0);
  out.addTensor("mask", std::move(mask));
  return out;
}

} // namespace

} // namespace torchtune

FrameworkDefinition torchtuneFramework() {
  FrameworkDefinition d;
  d.info = torchtune::catalogue();
  const auto make = [](bool packed) {
    return [packed](const FrameworkSpec& spec) -> std::unique_ptr<FrameworkImpl> {
      return std::make_unique<torchtune::Torchtune>(packed, spec.behaves("labels_pre_shifted"));
    };
  };
  setCollatorFactories(d.info, {{"padded_collate_sft", make(false)}, {"padded_collate_packed", make(true)}});
  return d;
}

} // namespace maskscope
