// transformers' collators (src/transformers/data/data_collator.py, 4.5x): DataCollatorWithFlattening,
// DataCollatorForLanguageModeling(mlm=False), DataCollatorForSeq2Seq, and
// tokenizer.apply_chat_template(..., return_assistant_tokens_mask=True) on a template with
// {% generation %}. Their tests: tests/trainer/test_data_collator.py.
#include "core/frameworks/ChatTokenization.h"
#include "core/frameworks/FrameworkList.h"
#include "core/frameworks/transformers/Transformers.h"
#include "core/util/Error.h"

namespace maskscope {

namespace transformers {

namespace {

std::vector<OptionInfo> tokenizerOptions() {
  return {frameworkOption("pad_token_id", OptionKind::OptionalInt, nullptr,
                          "tokenizer.pad_token_id; default: --tokenizer's", 0, INT32_MAX),
          frameworkOption("eos_token_id", OptionKind::OptionalInt, nullptr,
                          "tokenizer.eos_token_id; default: --tokenizer's", 0, INT32_MAX),
          choiceOption("padding_side", {"right", "left"}, "tokenizer.padding_side")};
}

FrameworkInfo catalogue() {
  FrameworkInfo t;
  t.name = "transformers";
  t.title = "transformers";
  CollatorInfo flattening{
      "DataCollatorWithFlattening",
      "the whole batch as one row: labels' first token = separator_id, position_ids restart",
      {frameworkOption("return_position_ids", OptionKind::Bool, true, "return position_ids"),
       frameworkOption("separator_id", OptionKind::Int, -100, "the first label of every sequence", -1000000, INT32_MAX),
       frameworkOption("return_flash_attn_kwargs", OptionKind::Bool, false,
                       "return cu_seq_lens_q/k and max_length_q/k"),
       frameworkOption("return_seq_idx", OptionKind::Bool, false, "return seq_idx (the sequence of each token)")}};
  std::vector<OptionInfo> lm = tokenizerOptions();
  lm.push_back(
      frameworkOption("mlm", OptionKind::Bool, true, "must be false here: masked LM is random, not reproduced"));
  lm.push_back(frameworkOption("pad_to_multiple_of", OptionKind::OptionalInt, nullptr,
                               "pad the length up to a multiple of this", 1, kMaxPadMultiple));
  std::vector<OptionInfo> s2s = tokenizerOptions();
  OptionInfo padding = choiceOption("padding", {"longest", "max_length"}, "True/'longest' or 'max_length'");
  s2s.push_back(padding);
  s2s.push_back(
      frameworkOption("max_length", OptionKind::OptionalInt, nullptr, "the length for padding='max_length'", 1));
  s2s.push_back(frameworkOption("pad_to_multiple_of", OptionKind::OptionalInt, nullptr,
                                "pad the length up to a multiple of this", 1, kMaxPadMultiple));
  s2s.push_back(
      frameworkOption("label_pad_token_id", OptionKind::Int, -100, "the label of padding", -1000000, INT32_MAX));
  std::vector<OptionInfo> act = tokenizerOptions();
  act.push_back(frameworkOption("return_assistant_tokens_mask", OptionKind::Bool, true, "return assistant_masks"));
  act.push_back(frameworkOption("add_generation_prompt", OptionKind::Bool, false, "end with the assistant header"));
  t.versions = {
      {"4.57",
       "huggingface/transformers src/transformers/data/data_collator.py (4.5x)",
       {flattening,
        {"DataCollatorForLanguageModeling", "mlm=False: labels = input_ids, -100 wherever input_ids == pad", lm},
        {"DataCollatorForSeq2Seq", "labels padded with label_pad_token_id, the rest by tokenizer.pad", s2s},
        {"apply_chat_template", "tokenizer.apply_chat_template(conversations, tokenize=True, return_dict=True)",
         act}}}};
  return t;
}

} // namespace

} // namespace transformers

FrameworkDefinition transformersFramework() {
  FrameworkDefinition d;
  d.info = transformers::catalogue();
  const auto padding = [](bool seq2seq) {
    return [seq2seq](const FrameworkSpec&) { return transformers::makePadding(seq2seq); };
  };
  setCollatorFactories(
      d.info, {{"DataCollatorForLanguageModeling", padding(false)},
               {"DataCollatorForSeq2Seq", padding(true)},
               {"DataCollatorWithFlattening", [](const FrameworkSpec&) { return transformers::makeFlattening(); }},
               {"apply_chat_template", [](const FrameworkSpec&) { return transformers::makeApplyChatTemplate(); }}});
  return d;
}

} // namespace maskscope
