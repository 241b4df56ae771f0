// `--collator llamafactory.yaml`: a LLaMA-Factory training config (the file `llamafactory-cli train`
// reads with OmegaConf) as a spec object. Its keys are LLaMA-Factory's argument names, which are the
// spec's option names; keys that do not change the batch are accepted and listed as ignored.
#include "core/frameworks/llamafactory/LlamaFactory.h"

#include "core/util/Error.h"
#include "core/yaml/YamlReader.h"

namespace maskscope::llamafactory {

std::optional<OrderedJson> readConfig(const std::string& path, const std::string& text) {
  if (!yaml::isYamlPath(path)) return std::nullopt;
  OrderedJson config = yaml::parseYaml(text, path, yaml::Dialect::OmegaConf);
  if (!config.is_object()) return std::nullopt;
  // LLaMA-Factory's train configs name a stage, or a model with its template / cutoff / finetuning type;
  // Axolotl's name base_model and datasets.
  const bool ours =
      config.contains("stage") ||
      (config.contains("model_name_or_path") &&
       (config.contains("template") || config.contains("cutoff_len") || config.contains("finetuning_type")));
  if (!ours || config.contains("base_model")) return std::nullopt;
  OrderedJson spec = OrderedJson::object();
  spec["framework"] = "llamafactory";
  for (auto it = config.begin(); it != config.end(); ++it) {
    if (it.key() == "framework" || it.key() == "version" || it.key() == "collator")
      throw Error("key \"" + it.key() + "\" is not a LLaMA-Factory argument", {path, -1, -1, -1, it.key()});
    spec[it.key()] = it.value();
  }
  return spec;
}

} // namespace maskscope::llamafactory
