// Axolotl's registry entry: version 0.18 (v0.18.0), `type: chat_template`, the options with
// Axolotl's names and the defaults its StrategyLoader and schema give them, and the YAML reader.
#include "core/frameworks/FrameworkList.h"
#include "core/frameworks/axolotl/Axolotl.h"
#include "core/frameworks/axolotl/AxolotlConfigFile.h"

namespace maskscope {

namespace {

std::vector<OptionInfo> chatTemplateOptions() {
  using K = OptionKind;
  std::vector<OptionInfo> o = {
      frameworkOption("chat_template", K::String, "tokenizer_default",
                      "a template Axolotl bundles (llama3, chatml, qwen3, gemma3, ...), tokenizer_default, "
                      "tokenizer_default_fallback_NAME, or jinja"),
      frameworkOption("chat_template_jinja", K::OptionalString, nullptr,
                      "custom jinja chat template, or a path to a jinja file"),
      frameworkOption("chat_template_kwargs", K::Json, OrderedJson::object(),
                      "additional kwargs to pass to the chat template"),
      frameworkOption("train_on_inputs", K::Bool, false, "train on every turn, not only roles_to_train"),
      frameworkOption("roles_to_train", K::Json, OrderedJson::array({"assistant"}),
                      "roles whose content is trained (null with train_on_eos null: the legacy last-turn path)"),
      frameworkOption("train_on_eos", K::Json, "turn", "which EOS tokens to train on: all, turn, last, none"),
      frameworkOption("train_on_eot", K::Json, nullptr,
                      "which EOT tokens to train on; defaults to the train_on_eos setting"),
      frameworkOption("eot_tokens", K::Json, nullptr, "end-of-turn tokens (default: the tokenizer's eos_token)"),
      frameworkOption("field_messages", K::String, "messages", "key containing the messages"),
      frameworkOption("field_thinking", K::String, "reasoning_content", "key containing the reasoning trace"),
      frameworkOption("template_thinking_key", K::String, "reasoning_content",
                      "the key the chat template expects for the reasoning trace"),
      frameworkOption("message_property_mappings", K::Json, nullptr,
                      "mapping of template keys to dataset keys ({role: from, content: value})"),
      frameworkOption("message_field_role", K::OptionalString, nullptr, "deprecated: message_property_mappings.role"),
      frameworkOption("message_field_content", K::OptionalString, nullptr,
                      "deprecated: message_property_mappings.content"),
      frameworkOption("message_field_training", K::OptionalString, nullptr,
                      "message key saying whether to train a turn"),
      frameworkOption("message_field_training_detail", K::OptionalString, nullptr,
                      "message key with character spans and train flags"),
      frameworkOption("roles", K::Json, nullptr, "roles mapping {target_role: [source_roles]}"),
      frameworkOption("drop_system_message", K::Bool, false, "drop the system turn from the dataset"),
      frameworkOption("split_thinking", K::Bool, false, "split <think>...</think> out of the assistant content"),
      frameworkOption("sequence_len", K::Int, 512, "the maximum length of an input to train with"),
      frameworkOption("excess_length_strategy", K::Choice, "drop", "a row over sequence_len: drop, truncate or raise"),
      frameworkOption("min_sample_len", K::OptionalInt, nullptr, "rows shorter than this are dropped (default 2)"),
      frameworkOption("pad_to_sequence_len", K::Json, nullptr,
                      "pad every batch to sequence_len (rounded to pad_to_multiple_of)"),
      frameworkOption("pad_to_multiple_of", K::OptionalInt, nullptr,
                      "pad each batch to a multiple of this value (default 64)"),
      frameworkOption("sample_packing", K::Bool, false, "multipack rows into sequence_len bins"),
      frameworkOption("special_tokens", K::Json, nullptr, "override bos_token, eos_token, pad_token, unk_token"),
      frameworkOption("micro_batch_size", K::Int, 1,
                      "rows per step; with sample_packing, one bin of micro_batch_size x "
                      "sequence_len tokens"),
      frameworkOption("multipack_real_batches", K::Bool, false,
                      "sample_packing: micro_batch_size bins of sequence_len each"),
      frameworkOption("sample_packing_bin_size", K::Int, 200, "the most rows packed into one sequence"),
      frameworkOption("sample_packing_group_size", K::Int, 100000, "rows packed together per group"),
      frameworkOption("sample_packing_sequentially", K::Bool, false, "pack rows strictly in order"),
      frameworkOption("curriculum_sampling", K::Bool, false,
                      "sequential sampler (maskscope packs in file order either way)"),
  };
  for (auto& x : o)
    if (x.name == "excess_length_strategy")
      x.choices = {"drop", "truncate", "raise"};
    else if (x.name == "pad_to_multiple_of")
      x.min = 1, x.max = kMaxPadMultiple;
    else if (x.name == "sequence_len")
      x.min = 1;
    else if (x.name == "min_sample_len")
      x.min = 0;
    else if (x.name == "micro_batch_size")
      x.min = 1, x.max = 4096;
    else if (x.name == "sample_packing_bin_size")
      x.min = 1;
    else if (x.name == "sample_packing_group_size")
      x.min = 1, x.max = int64_t(1) << 30;
  return o;
}

} // namespace

FrameworkDefinition axolotlFramework() {
  FrameworkDefinition d;
  d.info.name = "axolotl";
  d.info.title = "Axolotl";
  d.info.typeKey = "type";
  d.info.typeValues = {"chat_template"};
  VersionInfo v;
  v.version = "0.18";
  v.readFrom = axolotl::kReadFrom;
  v.collators = {{"DataCollatorForSeq2Seq",
                  "type: chat_template rows (only each trained turn's content, EOT/EOS per train_on_eos/eot), "
                  "padded by Axolotl's DataCollatorForSeq2Seq",
                  chatTemplateOptions()},
                 {"MultiModalChatDataCollator",
                  "processor_type set: rows rendered and expanded by the processor, labels from the processing "
                  "strategy's role boundaries (Qwen2-VL, Gemma 3) with pad and image tokens -100",
                  axolotl::multimodalOptions()}};
  d.info.versions = {v};
  setCollatorFactories(
      d.info, {{"DataCollatorForSeq2Seq",
                [](const FrameworkSpec& spec) { return axolotl::makeChatTemplate(spec.flag("sample_packing")); }},
               {"MultiModalChatDataCollator", [](const FrameworkSpec&) { return axolotl::makeMultimodal(); }}});
  d.readConfig = [](const std::string& path, const std::string& text) {
    return axolotl::readAxolotlConfig(path, text);
  };
  // chat_template: chatml renders with Axolotl's own copy; tokenizer_default(_fallback_*) with the
  // tokenizer's; jinja with chat_template_jinja.
  d.ownTemplate = [](const FrameworkSpec& spec) -> std::optional<std::pair<std::string, std::string>> {
    const auto given = [&spec](const char* name) {
      const auto it = spec.options.find(name);
      return it != spec.options.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    std::string option = "chat_template", value = given("chat_template");
    if (value.starts_with("tokenizer_default")) return std::nullopt;
    if (value == "jinja") option = "chat_template_jinja", value = given("chat_template_jinja");
    if (value.empty()) return std::nullopt;
    return std::pair{option, value};
  };
  return d;
}

} // namespace maskscope
