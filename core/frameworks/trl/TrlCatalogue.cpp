// TRL's versions, collators and options, with TRL's own names and defaults (SFTConfig, the
// collators' dataclass fields). Read from huggingface/trl: v1.10 = main at 1.10.0.dev0 (commit
// f2cd57710ae3), v1.6.0 (0dac440542c2), v0.18.2; files trl/trainer/sft_trainer.py, sft_config.py,
// dpo_trainer.py, utils.py, trl/data_utils.py at those versions.
#include "core/frameworks/trl/Trl.h"

namespace maskscope::trl {

namespace {

// TrainingArguments / SFTConfig fields that do not change the batch: an SFTConfig saved as JSON is
// accepted whole, and the text form lists which of these were ignored.
void addIgnored(std::vector<OptionInfo>& out) {
  for (const char* name : {"output_dir",
                           "learning_rate",
                           "num_train_epochs",
                           "max_steps",
                           "per_device_eval_batch_size",
                           "gradient_accumulation_steps",
                           "gradient_checkpointing",
                           "gradient_checkpointing_kwargs",
                           "logging_steps",
                           "logging_dir",
                           "logging_strategy",
                           "save_steps",
                           "save_strategy",
                           "save_total_limit",
                           "eval_strategy",
                           "eval_steps",
                           "bf16",
                           "fp16",
                           "tf32",
                           "seed",
                           "data_seed",
                           "warmup_ratio",
                           "warmup_steps",
                           "lr_scheduler_type",
                           "lr_scheduler_kwargs",
                           "weight_decay",
                           "max_grad_norm",
                           "adam_beta1",
                           "adam_beta2",
                           "adam_epsilon",
                           "optim",
                           "report_to",
                           "run_name",
                           "push_to_hub",
                           "hub_model_id",
                           "hub_strategy",
                           "overwrite_output_dir",
                           "do_train",
                           "do_eval",
                           "dataloader_num_workers",
                           "dataloader_pin_memory",
                           "remove_unused_columns",
                           "model_init_kwargs",
                           "dataset_num_proc",
                           "eval_packing",
                           "loss_type",
                           "activation_offloading",
                           "use_liger_kernel",
                           "trust_remote_code",
                           "router_aux_loss_coef",
                           "torch_compile",
                           "ddp_find_unused_parameters",
                           "deepspeed",
                           "fsdp",
                           "fsdp_config",
                           "disable_tqdm",
                           "torch_dtype",
                           "label_names",
                           "neftune_noise_alpha"})
    out.push_back(
        frameworkOption(name, OptionKind::Ignored, nullptr, "TrainingArguments field: no effect on the batch"));
}

// The SFT path: SFTConfig's dataset preparation options plus the collator's own fields.
std::vector<OptionInfo> sftOptions(bool v110) {
  std::vector<OptionInfo> o = {
      frameworkOption("pad_token_id", OptionKind::OptionalInt, nullptr,
                      "the collator's pad id; default: tokenizer.pad_token_id (pad_token, else eos_token)", 0,
                      INT32_MAX),
      frameworkOption("eos_token_id", OptionKind::OptionalInt, nullptr,
                      "the EOS id (facts and lint); default: the tokenizer's", 0, INT32_MAX),
      frameworkOption("pad_token", OptionKind::OptionalString, nullptr,
                      "SFTConfig.pad_token (deprecated): the pad token text"),
      frameworkOption("eos_token", OptionKind::OptionalString, nullptr,
                      "SFTConfig.eos_token: appended to text / completion rows; default: tokenizer.eos_token"),
      frameworkOption("padding_free", OptionKind::Bool, false,
                      "flatten the batch into one row with position_ids and no attention_mask"),
      frameworkOption("pad_to_multiple_of", OptionKind::OptionalInt, nullptr, "pad the length up to a multiple of this",
                      1, kMaxPadMultiple),
      frameworkOption(
          "max_length", OptionKind::OptionalInt, 1024,
          v110 ? "truncate rows during preparation (rows left with nothing graded are dropped); packing length"
               : "the collator truncates rows (not when padding_free); packing length",
          1),
      choiceOption("truncation_mode", {"keep_start", "keep_end"}, "which end of a long row to keep"),
      frameworkOption("packing", OptionKind::Bool, false, "pack rows into max_length sequences"),
      choiceOption("packing_strategy", {"bfd", "bfd_split", "wrapped"},
                   "bfd: best-fit decreasing, truncating; bfd_split: splitting; wrapped: cut mid-sequence"),
      frameworkOption(
          "completion_only_loss", OptionKind::Json, nullptr,
          "true/false; null: true for prompt-completion datasets (the first raw row has prompt and completion)"),
      frameworkOption("assistant_only_loss", OptionKind::Bool, false,
                      "grade only {% generation %} spans (return_assistant_tokens_mask)"),
      frameworkOption("dataset_text_field", OptionKind::String, "text", "the text column of language-modeling rows"),
      frameworkOption("dataset_kwargs", OptionKind::Json, nullptr,
                      "{\"skip_prepare_dataset\": true} skips the preparation"),
      frameworkOption("shuffle_dataset", OptionKind::Bool, false, "shuffle (refused: datasets' RNG is not reproduced)"),
      frameworkOption(
          "chat_template_path", OptionKind::OptionalString, nullptr,
          "a chat template (.jinja, tokenizer_config.json or folder) used instead of the tokenizer's, as --template"),
  };
  o.push_back(perDeviceTrainBatchSizeOption());
  addIgnored(o);
  return o;
}

std::vector<OptionInfo> preferenceOptions(bool v018) {
  std::vector<OptionInfo> o = {
      frameworkOption("pad_token_id", OptionKind::OptionalInt, nullptr,
                      "the pad id; default: the tokenizer's pad (else eos)", 0, INT32_MAX),
      frameworkOption("eos_token_id", OptionKind::OptionalInt, nullptr, "the EOS id (facts and lint)", 0, INT32_MAX),
  };
  if (!v018) {
    o.push_back(
        frameworkOption("max_length", OptionKind::OptionalInt, nullptr, "truncate each prompt+completion sequence", 1));
    o.push_back(choiceOption("truncation_mode", {"keep_start", "keep_end"}, "which end of a long sequence to keep"));
    o.push_back(frameworkOption("pad_to_multiple_of", OptionKind::OptionalInt, nullptr,
                                "pad the length up to a multiple of this", 1, kMaxPadMultiple));
  }
  return o;
}

std::vector<OptionInfo> completionOnlyOptions() {
  return {
      frameworkOption(
          "response_template", OptionKind::IdsOrString, nullptr,
          "required: the text (tokenized with --tokenizer, no special tokens) or ids that start a response"),
      frameworkOption("instruction_template", OptionKind::IdsOrString, nullptr,
                      "the text or ids that start a human turn; without it only the last response is graded"),
      frameworkOption("pad_token_id", OptionKind::OptionalInt, nullptr,
                      "tokenizer.pad_token_id; default: --tokenizer's", 0, INT32_MAX),
      frameworkOption("eos_token_id", OptionKind::OptionalInt, nullptr,
                      "tokenizer.eos_token_id; default: --tokenizer's", 0, INT32_MAX),
      frameworkOption("padding_free", OptionKind::Bool, false,
                      "one row with position_ids, cu_seq_lens_q/k and max_length_q/k"),
      frameworkOption("pad_to_multiple_of", OptionKind::OptionalInt, nullptr, "transformers' pad_to_multiple_of", 1,
                      kMaxPadMultiple),
      choiceOption("padding_side", {"right", "left"}, "tokenizer.padding_side (transformers pads by it)"),
      frameworkOption("ignore_index", OptionKind::Int, -100, "the label of ungraded positions", -1000000, 1000000),
      frameworkOption("mlm", OptionKind::Bool, false, "must stay false (masked LM is not a causal fine-tune)"),
      frameworkOption("dataset_text_field", OptionKind::String, "text", "the text column tokenized for text rows"),
      frameworkOption("max_length", OptionKind::OptionalInt, 1024,
                      "SFTConfig 0.18 max_length: tokenizer truncation of text rows", 1),
  };
}

} // namespace

FrameworkInfo catalogue() {
  FrameworkInfo t;
  t.name = "trl";
  t.title = "TRL";
  const CollatorInfo lm110{"DataCollatorForLanguageModeling",
                           "SFTTrainer's collator after its dataset preparation (labels built during preparation)",
                           sftOptions(true)};
  const CollatorInfo lm16{"DataCollatorForLanguageModeling",
                          "SFTTrainer's collator: it applies completion_mask / assistant_masks and truncates itself",
                          sftOptions(false)};
  const CollatorInfo pref110{"DataCollatorForPreference",
                             "DPOTrainer: chosen rows then rejected rows, attention_mask, completion_mask",
                             preferenceOptions(false)};
  const CollatorInfo pref018{"DataCollatorForPreference",
                             "DPOTrainer 0.18: prompt_input_ids left-padded, chosen_*/rejected_* right-padded",
                             preferenceOptions(true)};
  const CollatorInfo completion018{"DataCollatorForCompletionOnlyLM",
                                   "labels -100 up to each response template (transformers' LM collator underneath)",
                                   completionOnlyOptions()};
  t.behaviours = {
      {"labels_built_in_preparation",
       "SFTTrainer builds labels (and truncates, dropping rows left with nothing graded) while preparing the dataset; "
       "the collator only pads. false: the collator applies completion_mask / assistant_masks itself"},
      {"preference_prompt_columns",
       "DPO rows keep prompt_input_ids apart from chosen_input_ids / rejected_input_ids (the 0.x layout)"},
      {"vision_language_collator",
       "rows with images go to DataCollatorForVisionLanguageModeling (messages: every token but padding graded; "
       "prompt-completion: the completion under completion_only_loss; packing, padding_free, assistant_only_loss "
       "and keep_end refused). false: not reproduced, refused"},
  };
  t.versions = {
      {"1.10",
       "huggingface/trl main 1.10.0.dev0 (commit f2cd577)",
       {lm110, pref110},
       {{"labels_built_in_preparation", true},
        {"preference_prompt_columns", false},
        {"vision_language_collator", true}}},
      {"1.6",
       "huggingface/trl v1.6.0",
       {lm16, pref110},
       {{"labels_built_in_preparation", false},
        {"preference_prompt_columns", false},
        {"vision_language_collator", false}}},
      {"0.18",
       "huggingface/trl v0.18.2",
       {completion018, pref018},
       {{"labels_built_in_preparation", false},
        {"preference_prompt_columns", true},
        {"vision_language_collator", false}}},
  };
  return t;
}

} // namespace maskscope::trl
