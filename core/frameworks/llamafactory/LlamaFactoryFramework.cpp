// LLaMA-Factory in the frameworks registry: dataset preparation of text rows (converter, template,
// SupervisedDatasetProcessor / PackedSupervisedDatasetProcessor) or pre-tokenized rows taken as they
// are, SFTDataCollatorWith4DAttentionMask, and the batch's conversion into maskscope's Batch (the 4-D
// float mask read back as segment ids).
#include "core/frameworks/FrameworkList.h"
#include "core/frameworks/FrameworkToBatch.h"
#include "core/frameworks/llamafactory/LlamaFactory.h"
#include "core/frameworks/llamafactory/LlamaFactoryCollator.h"
#include "core/frameworks/llamafactory/LlamaFactoryImages.h"
#include "core/frameworks/llamafactory/LlamaFactoryTools.h"
#include "core/util/Error.h"

#include <ctime>

namespace maskscope {

namespace llamafactory {

namespace {

SourceLocation key(const FrameworkSpec& s, const std::string& k) { return {s.source, -1, -1, -1, k}; }

// datetime.now().strftime("%d %b %Y"), the day Llama3ToolUtils writes into the tool prompt.
std::string todayDate() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char buf[32];
  return std::string(buf, std::strftime(buf, sizeof buf, "%d %b %Y", &local));
}

// get_template_and_fix_tokenizer: the named template (or the tokenizer's own, parsed, or "empty"), with
// the reasoning options and default_system applied.
Template resolveTemplate(const FrameworkContext& ctx) {
  const FrameworkSpec& s = ctx.spec;
  Template t;
  if (auto name = s.optionalString("template")) {
    const Template* found = builtinTemplate(*name);
    if (!found) {
      std::string known;
      for (const std::string& n : builtinTemplateNames()) known += (known.empty() ? "" : ", ") + n;
      throw Error("template " + *name + " is not one maskscope reproduces (known: " + known + ")", key(s, "template"));
    }
    t = *found;
    ctx.facts.nativeTemplate = "LLaMA-Factory's template " + *name;
  } else if (ctx.tokenizer && ctx.chatTemplate) {
    t = parseTemplate(*ctx.chatTemplate, *ctx.tokenizer); // "`template` was not specified, try parsing ..."
  } else {
    t = *builtinTemplate("empty");
  }
  if (auto format = s.optionalString("tool_format")) {
    try {
      applyToolFormat(t, *format); // "Using tool format: ..."
    } catch (const Error& e) {
      throw Error(e.message(), key(s, "tool_format"));
    }
  }
  t.toolDate = s.optionalString("tool_date").value_or(todayDate());
  t.imageMaxPixels = s.integer("image_max_pixels");
  t.imageMinPixels = s.integer("image_min_pixels");
  t.panAndScan = s.flag("image_do_pan_and_scan");
  if (t.imageMaxPixels < t.imageMinPixels) // ModelArguments.__post_init__
    throw Error("`image_max_pixels` cannot be smaller than `image_min_pixels`.", key(s, "image_max_pixels"));
  if (auto system = s.optionalString("default_system")) t.defaultSystem = *system;
  if (t.templateClass == TemplateClass::Reasoning) {
    const OrderedJson& e = s.value("enable_thinking");
    if (!e.is_null() && !e.is_boolean())
      throw Error("enable_thinking must be true, false or null", key(s, "enable_thinking"));
    t.enableThinking = e.is_null() ? std::nullopt : std::optional<bool>(e.get<bool>());
    t.preserveThinking = s.flag("preserve_thinking");
  }
  return t;
}

void checkStage(const FrameworkSpec& s) {
  if (s.string("stage") != "sft")
    throw Error("stage " + s.string("stage") + " builds another batch; maskscope reproduces LLaMA-Factory's sft stage",
                key(s, "stage"));
  const OrderedJson& v = s.value("val_size");
  if (!v.is_number() || v.get<double>() != 0)
    throw Error("val_size splits the rows at random (datasets' train_test_split): not reproduced; use 0",
                key(s, "val_size"));
  if (s.flag("streaming")) throw Error("streaming shuffles through a buffer: not reproduced", key(s, "streaming"));
  const OrderedJson& p = s.value("packing");
  if (!p.is_null() && !p.is_boolean()) throw Error("packing must be true, false or null", key(s, "packing"));
}

SupervisedOptions supervisedOptions(const FrameworkSpec& s) {
  SupervisedOptions o;
  o.cutoffLen = s.integer("cutoff_len");
  o.trainOnPrompt = s.flag("train_on_prompt");
  o.maskHistory = s.flag("mask_history");
  o.neatPacking = s.flag("neat_packing");
  const OrderedJson& p = s.value("packing");
  o.packing = o.neatPacking || (p.is_boolean() && p.get<bool>()); // null: packing only in pre-training
  return o;
}

PreparedRow toPrepared(const SupervisedRow& r, const std::vector<InputRow>& rows) {
  PreparedRow out;
  out.set("input_ids", r.inputIds);
  out.set("attention_mask", r.attentionMask);
  if (r.packed) out.set("position_ids", r.positionIds);
  out.set("labels", r.labels);
  out.meta = r.meta;
  for (long i : r.sourceRows) {
    out.sourceRows.push_back(rows[size_t(i)].index);
    out.sourceLines.push_back(rows[size_t(i)].line);
  }
  return out;
}

// Pre-tokenized rows (a tokenized_path dataset, or features as the collator tests write them): taken as
// they are, columns in the row's order.
std::vector<PreparedRow> readTokenized(const std::vector<InputRow>& rows, const FrameworkContext& ctx) {
  IdRange ids;
  if (ctx.tokenizer) ids.vocabSize = ctx.tokenizer->vocabSize();
  IdRange labels = ids;
  labels.allowIgnoreIndex = true;
  IdRange small; // attention_mask (0/1 or neat_packing's example indices) and position_ids
  small.vocabSize = kMaxFrameworkLength;
  std::vector<PreparedRow> out;
  for (const InputRow& row : rows) {
    PreparedRow r;
    const std::vector<int64_t> input = requireIdColumn(row, "input_ids", ids);
    for (auto it = row.value.begin(); it != row.value.end(); ++it) {
      const std::string& k = it.key();
      std::optional<std::vector<int64_t>> v;
      if (k == "input_ids") v = input;
      if (k == "labels") v = readIdColumn(row, k, labels);
      if (k == "attention_mask" || k == "position_ids") v = readIdColumn(row, k, small);
      if (!v) continue;
      requireSameLength(row, k, v->size(), "input_ids", input.size());
      r.set(k, std::move(*v));
    }
    if (!r.has("labels")) throwRowError(row, "labels", "missing (the SFT collator pads labels)");
    r.sourceRows = {row.index};
    r.sourceLines = {row.line};
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<PreparedRow> prepareText(const std::vector<InputRow>& rows, FrameworkContext& ctx) {
  const FrameworkSpec& s = ctx.spec;
  const Tokenizer& tok = ctx.requireTokenizer("LLaMA-Factory's preparation of text rows");
  const Template t = resolveTemplate(ctx);
  const Encoder enc(t, tok, s.flag("split_special_tokens"));
  for (const std::string& w : enc.tokens().warnings) ctx.facts.warnings.push_back(w);
  DatasetFormat format = inferDatasetFormat(rows.front().value);
  applyDatasetInfo(format, s.value("formatting"), s.value("columns"), s.value("tags"));

  std::vector<LfExample> examples;
  std::vector<long> which; // index into rows of each example
  for (size_t i = 0; i < rows.size(); ++i) {
    ConvertedRow c = convertRow(rows[i].value, format);
    if (!c.example) {
      ctx.facts.dropped.push_back({rows[i].index, rows[i].line, c.dropped});
      continue;
    }
    examples.push_back(std::move(*c.example));
    which.push_back(long(i));
  }
  bool tools = false;
  for (const LfExample& e : examples) tools = tools || !e.tools.empty();
  if (tools && t.toolsFormat == "llama3" && !s.optionalString("tool_date"))
    ctx.facts.warnings.push_back("(maskscope) the llama3 tool prompt's \"Today Date\" is the day of preparation (" +
                                 t.toolDate + "); set tool_date to the day LLaMA-Factory prepared the dataset");
  SupervisedDataset ds = prepareSupervised(enc, examples, which, supervisedOptions(s));
  for (const auto& [i, reason] : ds.dropped)
    ctx.facts.dropped.push_back({rows[size_t(i)].index, rows[size_t(i)].line, reason});
  for (const auto& [i, what] : ds.truncated)
    ctx.facts.truncated.push_back({rows[size_t(i)].index, rows[size_t(i)].line, what});
  std::vector<PreparedRow> out;
  for (const SupervisedRow& r : ds.rows) out.push_back(toPrepared(r, rows));
  return out;
}

// flash_attn -> the attn_implementation transformers ends up with ("auto" keeps transformers' default,
// sdpa for the model types maskscope loads).
std::string attnImplementation(const FrameworkSpec& s, bool* assumed) {
  const std::string f = s.string("flash_attn");
  *assumed = f == "auto";
  if (f == "disabled") return "eager";
  if (f == "fa2") return "flash_attention_2";
  if (f == "fa3") return "flash_attention_3";
  return "sdpa";
}

// Packing without neat_packing pads a packed row with attention 1 and position 0 (supervised.py: "more
// efficient flash_attn"), so every pad would read as an example of its own; the prepared rows mark those
// positions as padding, and an example ends where they begin.
void dropPaddingSegments(Batch& b) {
  for (size_t r = 0; r < b.segments.size() && r < b.meta.size(); ++r) {
    const std::vector<PositionMeta>& meta = b.meta[r];
    auto padding = [&](int64_t t) { return size_t(t) < meta.size() && meta[size_t(t)].kind == PositionKind::Padding; };
    std::vector<Segment> kept;
    for (Segment s : b.segments[r]) {
      if (padding(s.begin)) continue;
      for (int64_t t = s.begin; t < s.end; ++t)
        if (padding(t)) {
          s.end = t;
          break;
        }
      kept.push_back(s);
    }
    if (kept.size() < 2) kept.clear();
    b.segments[r] = std::move(kept);
  }
}

class LlamaFactory final : public FrameworkImpl {
public:
  explicit LlamaFactory(bool padPositions) : padPositions_(padPositions) {}
  std::vector<PreparedRow> prepare(const std::vector<InputRow>& input, FrameworkContext& ctx) const override;
  FrameworkBatch collate(const std::vector<PreparedRow>& rows, FrameworkContext& ctx) const override;
  Batch toBatch(const FrameworkBatch& batch, const std::vector<PreparedRow>& rows,
                FrameworkContext& ctx) const override;

private:
  bool padPositions_; // 0.9.6.dev0 right-pads position_ids to the batch length; 0.9.5 leaves them
};

std::vector<PreparedRow> LlamaFactory::prepare(const std::vector<InputRow>& input, FrameworkContext& ctx) const {
  checkStage(ctx.spec);
  std::vector<InputRow> rows = input;
  if (auto n = ctx.spec.optionalInteger("max_samples"); n && int64_t(rows.size()) > *n) rows.resize(size_t(*n));
  if (rows.empty()) throw Error("no rows to prepare");
  if (isPreTokenizedRow(rows.front().value)) return readTokenized(rows, ctx);
  return prepareText(rows, ctx);
}

// MultiModalDataCollatorForSeq2Seq.__call__ (collator.py at ff6d4d1) before it pads: a template whose
// plugin has an image token gets a fake image in a batch without images (so that every process runs
// the vision tower): the plugin's text for one 64x64 white image, tokenized and appended to the first
// feature with attention_mask 0 and labels -100. Returns those ids (empty: none appended); refuses
// what maskscope does not reproduce: Qwen2-VL's batches (get_rope_index's 3-D position_ids) and packed
// Gemma 3 batches.
std::vector<int64_t> fakeImageIds(const Template& t, const std::vector<PreparedRow>& rows, FrameworkContext& ctx) {
  bool images = false, positions = false;
  for (const PreparedRow& r : rows) {
    positions = positions || r.has("position_ids");
    for (const PositionMeta& m : r.meta) images = images || m.kind == PositionKind::Image;
  }
  if (t.mmPlugin == "qwen2_vl")
    throw Error(
        std::string(images ? "rows with images" : "a batch without images (the collator appends a fake image)") +
        ": LLaMA-Factory's MultiModalDataCollatorForSeq2Seq runs the model's processor (pixel_values, "
        "image_grid_thw) and Qwen2-VL's get_rope_index (3-D position_ids), which maskscope does not "
        "reproduce; --stage prepared shows the prepared rows");
  if (!t.fakeImageInCollator && !images) return {};
  if (t.mmPlugin != "gemma3")
    throw Error("template " + t.name + ": LLaMA-Factory's " + t.mmPlugin + " collator inputs are not reproduced");
  if (positions)
    throw Error("packed rows under template " + t.name +
                ": the multimodal collator's packing path is not reproduced "
                "by maskscope; --stage prepared shows the packed rows");
  ctx.facts.warnings.push_back("(maskscope) pixel_values (the image processor's [images, 3, 896, 896]) are not "
                               "produced; token_type_ids mark the <image_soft_token> positions");
  if (images) return {};
  const Tokenizer& tok = ctx.requireTokenizer("the collator's fake image");
  EncodeOptions eo;
  eo.tokenStrings = false;
  const std::vector<int32_t> ids = tok.encode(gemma3FullImageSequence(t), eo).ids;
  ctx.facts.warnings.push_back(
      "(maskscope) a batch without images: LLaMA-Factory's collator appends a fake 64x64 image to "
      "row 0 (" +
      std::to_string(ids.size()) +
      " positions: Gemma 3's full image sequence, attention_mask 0, labels -100) so that "
      "every process runs the vision tower");
  return {ids.begin(), ids.end()};
}

// _get_gemma3_token_type_ids (mm_plugin.py): 1 at the image token, 0 elsewhere; tokenizer.pad pads
// them with pad_token_type_id 0, as the batch's padding.
IntGrid gemma3TokenTypeIds(const Template& t, const CollatedBatch& b, FrameworkContext& ctx) {
  const auto image = ctx.requireTokenizer("token_type_ids").tokenToId(t.imageToken);
  IntGrid out(b.inputIds.rows, b.inputIds.cols, 0);
  for (int64_t r = 0; r < b.inputIds.rows; ++r)
    for (int64_t c = 0; c < b.inputIds.cols; ++c) out.at(r, c) = image && b.inputIds.at(r, c) == *image ? 1 : 0;
  return out;
}

FrameworkBatch LlamaFactory::collate(const std::vector<PreparedRow>& rows, FrameworkContext& ctx) const {
  const FrameworkSpec& s = ctx.spec;
  std::optional<FixedTokens> fixed;
  Template t = *builtinTemplate("empty");
  if (ctx.tokenizer) {
    t = resolveTemplate(ctx);
    fixed = fixSpecialTokens(t, *ctx.tokenizer);
  }
  const std::vector<int64_t> fakeImage = fakeImageIds(t, rows, ctx);
  ctx.facts.padTokenId = s.optionalInteger("pad_token_id");
  if (!ctx.facts.padTokenId && fixed) ctx.facts.padTokenId = fixed->pad;
  ctx.facts.eosTokenId = s.optionalInteger("eos_token_id");
  if (!ctx.facts.eosTokenId && fixed) ctx.facts.eosTokenId = fixed->eos;

  CollatorOptions o;
  o.padToMultipleOf = s.flag("do_train") ? std::optional<int64_t>(8) : std::nullopt;
  o.padTokenId = ctx.facts.padTokenId.value_or(0);
  o.labelPadTokenId = s.flag("ignore_pad_token_for_loss") ? kIgnoreIndex : o.padTokenId;
  o.neatPacking = o.blockDiagAttn = s.flag("neat_packing");
  // packing without neat_packing: the examples of a row share one all-ones mask (supervised.py).
  if (!o.neatPacking)
    ctx.facts.packingSeparationHint = "LLaMA-Factory packs this way when packing is on and neat_packing off: set "
                                      "neat_packing: true (a block-diagonal 4-D mask under eager/sdpa, varlen under "
                                      "fa2)";
  bool assumed = false;
  o.attnImplementation = attnImplementation(s, &assumed);
  o.computeDtype = s.flag("bf16") || s.flag("pure_bf16") ? "bfloat16" : s.flag("fp16") ? "float16" : "float32";
  o.padPositionIds = padPositions_;
  ctx.facts.attnImplementation = o.attnImplementation;
  ctx.facts.attnImplementationAssumed = assumed;

  std::vector<SupervisedRow> in;
  bool attentionGiven = true;
  for (const PreparedRow& r : rows) {
    SupervisedRow x;
    x.inputIds = r.at("input_ids");
    x.labels = r.at("labels");
    attentionGiven = attentionGiven && r.has("attention_mask");
    x.attentionMask = r.has("attention_mask") ? r.at("attention_mask") : std::vector<int64_t>(x.inputIds.size(), 1);
    if (r.has("position_ids")) x.positionIds = r.at("position_ids");
    in.push_back(std::move(x));
  }
  if (!fakeImage.empty()) { // padding_side "right" (load_tokenizer): appended to the first feature
    SupervisedRow& first = in.front();
    first.inputIds.insert(first.inputIds.end(), fakeImage.begin(), fakeImage.end());
    first.attentionMask.insert(first.attentionMask.end(), fakeImage.size(), 0);
    first.labels.insert(first.labels.end(), fakeImage.size(), kIgnoreIndex);
  }
  CollatedBatch b = llamafactory::collate(in, o);
  bool needsPad = false;
  for (const SupervisedRow& r : in) needsPad = needsPad || int64_t(r.inputIds.size()) != b.inputIds.cols;
  if (needsPad && !ctx.facts.padTokenId)
    throw Error("Asking to pad but the tokenizer does not have a padding token: give \"pad_token_id\" or --tokenizer",
                key(s, "pad_token_id"));
  if (b.attentionMaskIsNone) ctx.facts.paddingFree = true; // one row, examples told apart by position_ids
  if (b.attentionMaskIs4d) { // what the 4-D mask depends on that the config may leave to the machine
    if (assumed)
      ctx.facts.warnings.push_back("(maskscope) flash_attn: auto read as transformers' default attention, sdpa: "
                                   "the 4-D mask is built (under fa2 it would be None)");
    if (!s.flag("bf16") && !s.flag("pure_bf16") && !s.flag("fp16"))
      ctx.facts.warnings.push_back("(maskscope) compute dtype float32 assumed for the 4-D mask's masked value "
                                   "(LLaMA-Factory infers it from the model and the GPU when neither bf16 nor fp16 "
                                   "is set)");
  }
  if (t.mmPlugin == "gemma3") b.tokenTypeIds = gemma3TokenTypeIds(t, b, ctx);
  return toFrameworkBatch(b, rows.front(), attentionGiven);
}

Batch LlamaFactory::toBatch(const FrameworkBatch& input, const std::vector<PreparedRow>& rows,
                            FrameworkContext& ctx) const {
  FrameworkBatch batch = input;
  // Packed rows' position_ids keep cutoff_len columns when pad_to_multiple_of widened input_ids (0.9.5 on
  // every path, 0.9.6.dev0 under flash_attention_2, where the unpadding skips them): the model's rotary
  // embedding then fails on the batch. The returned dict stays as it is; the view takes the columns of
  // input_ids (padded with 0 or cut: the packing padding is at the end), so lint and the app can show it.
  const FrameworkEntry* ids = batch.find("input_ids");
  const FrameworkEntry* pos = batch.find("position_ids");
  if (ids && pos && pos->kind == FrameworkEntry::Kind::Tensor && pos->tensor.shape.size() == 2 &&
      pos->tensor.shape[1] != ids->tensor.shape[1]) {
    const int64_t B = pos->tensor.shape[0], have = pos->tensor.shape[1], want = ids->tensor.shape[1];
    ctx.facts.warnings.push_back("position_ids are " + std::to_string(have) + " wide but input_ids " +
                                 std::to_string(want) + ": the model's rotary embedding fails on this batch (LLaMA-" +
                                 "Factory leaves position_ids at cutoff_len when pad_to_multiple_of=8 changes the "
                                 "width; make cutoff_len a multiple of 8)");
    std::vector<std::vector<int64_t>> fitted(size_t(B), std::vector<int64_t>(size_t(want), 0));
    for (int64_t r = 0; r < B; ++r)
      for (int64_t t = 0; t < std::min(have, want); ++t) fitted[size_t(r)][size_t(t)] = pos->tensor.at(r, t);
    batch.addGrid("position_ids", fitted, TensorDType::Int64);
  }
  BatchConventions c;
  const FrameworkEntry* mask = batch.find("attention_mask");
  if (mask && mask->kind == FrameworkEntry::Kind::None) {
    c.attentionMask.clear(); // flash_attention_2 under neat_packing: no mask, varlen by position_ids
    return convertFrameworkBatch(batch, c, rows, ctx.facts);
  }
  if (mask && mask->kind == FrameworkEntry::Kind::Tensor && mask->tensor.shape.size() == 4) {
    c.attentionIsSegmentIds = true;
    return convertFrameworkBatch(withSegmentIds(batch), c, rows, ctx.facts);
  }
  Batch view = convertFrameworkBatch(batch, c, rows, ctx.facts);
  dropPaddingSegments(view);
  return view;
}

} // namespace

} // namespace llamafactory

FrameworkDefinition llamafactoryFramework() {
  FrameworkDefinition d;
  d.info = llamafactory::catalogue();
  setCollatorFactories(
      d.info, {{"SFTDataCollatorWith4DAttentionMask", [](const FrameworkSpec& spec) -> std::unique_ptr<FrameworkImpl> {
                  return std::make_unique<llamafactory::LlamaFactory>(spec.behaves("pads_position_ids"));
                }}});
  d.readConfig = llamafactory::readConfig;
  // template: qwen3 renders with LLaMA-Factory's own template of that name; null parses the tokenizer's.
  d.ownTemplate = [](const FrameworkSpec& spec) -> std::optional<std::pair<std::string, std::string>> {
    const auto it = spec.options.find("template");
    if (it == spec.options.end() || !it->is_string() || it->get<std::string>().empty()) return std::nullopt;
    return std::pair{std::string("template"), it->get<std::string>()};
  };
  return d;
}

} // namespace maskscope
