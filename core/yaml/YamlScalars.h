// How a plain (unquoted) YAML scalar becomes a value, as the Python loaders the frameworks use
// resolve it: PyYAML's yaml.safe_load (Axolotl; YAML 1.1: yes/no/on/off are booleans, 0o12 is not
// an int but 012 is octal, 1e-5 is a string because the exponent needs a dot) and OmegaConf.load
// (LLaMA-Factory: PyYAML plus a float rule that reads 1e-5 as a float, and no timestamps).
#pragma once
#include <nlohmann/json.hpp>

#include <string_view>

namespace maskscope::yaml {

enum class Dialect { PyYaml, OmegaConf };

// The value of plain scalar text (null, bool, int, float or string). Integers beyond int64 and
// timestamps stay strings (Python would make a big int or a datetime).
nlohmann::ordered_json resolvePlainScalar(std::string_view text, Dialect dialect);

} // namespace maskscope::yaml
