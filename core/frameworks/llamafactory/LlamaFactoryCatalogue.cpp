// LLaMA-Factory's versions and options with its own argument names and defaults (DataArguments,
// ModelArguments, the training arguments run_sft reads), and the keys of its YAML configs that do not
// change the batch (accepted and listed as ignored).
#include "core/frameworks/llamafactory/LlamaFactory.h"

namespace maskscope::llamafactory {

namespace {

// Keys of LLaMA-Factory's example configs (examples/**/*.yaml) and arguments that do not change the
// SFT batch of text models: model loading, the optimizer and schedule, logging, saving, adapters.
constexpr const char* kIgnored[] = {
    "model_name_or_path",
    "adapter_name_or_path",
    "trust_remote_code",
    "finetuning_type",
    "lora_target",
    "lora_rank",
    "lora_alpha",
    "lora_dropout",
    "additional_target",
    "use_dora",
    "use_rslora",
    "pissa_init",
    "pissa_iter",
    "pissa_convert",
    "loraplus_lr_ratio",
    "freeze_trainable_layers",
    "freeze_trainable_modules",
    "freeze_extra_modules",
    "freeze_vision_tower",
    "freeze_multi_modal_projector",
    "freeze_language_model",
    "quantization_bit",
    "quantization_method",
    "double_quantization",
    "quantization_type",
    "dataset",
    "eval_dataset",
    "dataset_dir",
    "media_dir",
    "output_dir",
    "overwrite_output_dir",
    "overwrite_cache",
    "preprocessing_num_workers",
    "preprocessing_batch_size",
    "dataloader_num_workers",
    "learning_rate",
    "num_train_epochs",
    "max_steps",
    "per_device_eval_batch_size",
    "gradient_accumulation_steps",
    "lr_scheduler_type",
    "warmup_ratio",
    "warmup_steps",
    "weight_decay",
    "max_grad_norm",
    "optim",
    "logging_steps",
    "save_steps",
    "save_strategy",
    "save_total_limit",
    "save_only_model",
    "plot_loss",
    "report_to",
    "run_name",
    "ddp_timeout",
    "resume_from_checkpoint",
    "eval_strategy",
    "eval_steps",
    "do_eval",
    "do_predict",
    "seed",
    "deepspeed",
    "fsdp",
    "fsdp_config",
    "gradient_checkpointing",
    "disable_gradient_checkpointing",
    "use_reentrant_gc",
    "upcast_layernorm",
    "upcast_lmhead_output",
    "use_unsloth",
    "use_liger_kernel",
    "enable_liger_kernel",
    "rope_scaling",
    "infer_backend",
    "max_new_tokens",
    "temperature",
    "top_p",
    "top_k",
    "export_dir",
    "export_size",
    "export_device",
    "export_legacy_format",
    "tokenized_path",
    "buffer_size",
    "mix_strategy",
    "interleave_probs",
    "use_fast_tokenizer",
    "resize_vocab",
    "new_special_tokens",
    "model_revision",
    "cache_dir",
    "hf_hub_token",
    "low_cpu_mem_usage",
    "video_max_pixels",
    "video_fps",
    "video_maxlen",
    "pref_beta",
    "pref_loss",
    "use_badam",
    "use_galore",
    "use_apollo",
    "use_adam_mini",
    "use_llama_pro",
    "use_asft_loss",
    "use_dft_loss",
    "use_eaft_loss",
    "compute_accuracy",
    "include_num_input_tokens_seen",
    "eval_num_beams",
    "eval_on_each_dataset",
    "data_shared_file_system",
};

void addIgnored(std::vector<OptionInfo>& out) {
  for (const char* name : kIgnored)
    out.push_back(frameworkOption(name, OptionKind::Ignored, nullptr, "no effect on the batch of a text model"));
}

std::vector<OptionInfo> options() {
  std::vector<OptionInfo> o = {
      frameworkOption("stage", OptionKind::String, "sft",
                      "the training stage: sft (the others build other batches; refused)"),
      frameworkOption("template", OptionKind::OptionalString, nullptr,
                      "the chat template by LLaMA-Factory's name; null: parse the tokenizer's own (parse_template)"),
      frameworkOption("cutoff_len", OptionKind::Int, 2048, "the cutoff length of the tokenized inputs", 1),
      frameworkOption("train_on_prompt", OptionKind::Bool, false, "disable the mask on the prompt"),
      frameworkOption("mask_history", OptionKind::Bool, false, "train on the last turn only"),
      frameworkOption("packing", OptionKind::Json, nullptr, "pack sequences (null: only in pre-training)"),
      frameworkOption("neat_packing", OptionKind::Bool, false, "packing without cross-attention (implies packing)"),
      frameworkOption("enable_thinking", OptionKind::Json, true, "reasoning templates: true, false or null"),
      frameworkOption("preserve_thinking", OptionKind::Bool, false, "keep the thoughts of historical turns"),
      frameworkOption("default_system", OptionKind::OptionalString, nullptr,
                      "override the template's default system message"),
      frameworkOption("tool_format", OptionKind::OptionalString, nullptr,
                      "function-call format of function_call turns and the tools column (null: the template's "
                      "own); every format of tool_utils.py is reproduced"),
      frameworkOption("tool_date", OptionKind::OptionalString, nullptr,
                      "(maskscope) the \"Today Date\" of the llama3 tool prompt, as \"26 Jul 2024\" "
                      "(LLaMA-Factory writes the day of preparation; null: today)"),
      frameworkOption("image_max_pixels", OptionKind::Int, 768 * 768,
                      "images above this many pixels are scaled down before the processor (qwen2_vl)", 1),
      frameworkOption("image_min_pixels", OptionKind::Int, 32 * 32,
                      "images below this many pixels are scaled up before the processor (qwen2_vl)", 1),
      frameworkOption("image_do_pan_and_scan", OptionKind::Bool, false,
                      "Gemma 3's pan-and-scan crops (gemma3; true is refused for rows with images: not reproduced)"),
      frameworkOption("ignore_pad_token_for_loss", OptionKind::Bool, true,
                      "labels padded with -100 (false: with the pad id)"),
      frameworkOption("max_samples", OptionKind::OptionalInt, nullptr, "keep the first N rows of the dataset", 1),
      frameworkOption("val_size", OptionKind::Json, 0, "a validation split (a random split: refused unless 0)"),
      frameworkOption("streaming", OptionKind::Bool, false, "dataset streaming (refused: it shuffles with a buffer)"),
      frameworkOption("formatting", OptionKind::OptionalString, nullptr,
                      "dataset_info.json formatting: alpaca, sharegpt or openai (null: from the first row's shape)"),
      frameworkOption("columns", OptionKind::Json, nullptr,
                      "dataset_info.json columns (prompt, query, response, messages, ...)"),
      frameworkOption("tags", OptionKind::Json, nullptr,
                      "dataset_info.json tags (role_tag, content_tag, user_tag, ...)"),
      frameworkOption("split_special_tokens", OptionKind::Bool, false, "tokenize special-token text as plain text"),
      choiceOption("flash_attn", {"auto", "disabled", "sdpa", "fa2", "fa3"},
                   "attention: auto (transformers' default: sdpa), disabled (eager), sdpa, fa2, fa3"),
      frameworkOption("do_train", OptionKind::Bool, true, "training: the collator pads to a multiple of 8"),
      frameworkOption("predict_with_generate", OptionKind::Bool, false, "generation eval (no pad to a multiple of 8)"),
      frameworkOption("bf16", OptionKind::Bool, false, "compute dtype bfloat16 (the 4-D mask's dtype)"),
      frameworkOption("pure_bf16", OptionKind::Bool, false, "compute dtype bfloat16"),
      frameworkOption("fp16", OptionKind::Bool, false, "compute dtype float16"),
      frameworkOption("pad_token_id", OptionKind::OptionalInt, nullptr,
                      "the pad id; default: --tokenizer's after LLaMA-Factory's fixes", 0, INT32_MAX),
      frameworkOption("eos_token_id", OptionKind::OptionalInt, nullptr,
                      "the EOS id; default: --tokenizer's after the fixes", 0, INT32_MAX),
  };
  o.push_back(perDeviceTrainBatchSizeOption());
  addIgnored(o);
  return o;
}

} // namespace

FrameworkInfo catalogue() {
  const char* files = "src/llamafactory/data/{template,formatter,converter,collator}.py, data/processor/"
                      "{supervised,processor_utils}.py, hparams/{data,model}_args.py";
  const CollatorInfo collator{"SFTDataCollatorWith4DAttentionMask",
                              "right padding to a multiple of 8; neat_packing: the 4-D mask, or FA2 varlen", options()};
  FrameworkInfo t;
  t.name = "llamafactory";
  t.title = "LLaMA-Factory";
  t.behaviours = {{"pads_position_ids",
                   "the collator right-pads position_ids to the batch length on the non-FA2 path (0.9.5 leaves "
                   "them at the row's length)"}};
  t.versions = {{"0.9.5",
                 std::string("hiyouga/LLaMA-Factory v0.9.5 (7af9095): ") + files,
                 {collator},
                 {{"pads_position_ids", false}}},
                {"0.9.6.dev0",
                 std::string("hiyouga/LLaMA-Factory main at ff6d4d1 (0.9.6.dev0; position_ids padded to the "
                             "batch length on the non-FA2 path): ") +
                     files,
                 {collator},
                 {{"pads_position_ids", true}}}};
  return t;
}

} // namespace maskscope::llamafactory
