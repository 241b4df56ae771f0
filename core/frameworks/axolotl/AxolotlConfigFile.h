// An Axolotl config file (the YAML `axolotl train config.yml` reads, with yaml.safe_load) as a
// framework spec: {"framework": "axolotl", "type": "chat_template", ...} holding the first
// `datasets:` entry's keys (less where the data lives: path, split, data_files, ...) and the
// top-level keys that shape the batch (sequence_len, sample_packing, chat_template, train_on_inputs,
// eot_tokens, special_tokens, ...). Top-level keys that change the batch in ways maskscope does not
// reproduce (batch_flattening, rl, pretraining_dataset, tokens, ...) are refused by name; training
// hyperparameters (learning_rate, micro_batch_size, ...) do not change a batch and are left out.
#pragma once
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace maskscope::axolotl {

// True when the parsed YAML looks like an Axolotl config (a `datasets:` list, or base_model without
// LLaMA-Factory's `stage` / `template`).
bool looksLikeAxolotlConfig(const nlohmann::ordered_json& yaml);

// The spec object; Error naming the file and key when the config cannot be reproduced (no datasets,
// a dataset type other than chat_template, a refused top-level key).
nlohmann::ordered_json axolotlSpecFromConfig(const nlohmann::ordered_json& yaml, const std::string& path);

// readConfig for the registry: nullopt when path is not YAML or not an Axolotl config.
std::optional<nlohmann::ordered_json> readAxolotlConfig(const std::string& path, const std::string& text);

} // namespace maskscope::axolotl
