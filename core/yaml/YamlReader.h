// Reading a YAML config file (an Axolotl or LLaMA-Factory config) into JSON, through yaml-cpp, with
// the caps every reader of untrusted input has:
// - file size (kMaxYamlBytes, checked before reading),
// - nesting depth, bounded by a line scan before yaml-cpp parses (it recurses per level),
// - alias expansion: aliases are shared nodes in yaml-cpp but copies in the JSON (and in Python),
//   so every value written counts, and a "billion laughs" file stops at kMaxYamlValues,
// - errors name the file, line and column (yaml-cpp's own messages, and ours).
// Scalars resolve as the framework's Python loader resolves them (YamlScalars.h); a single
// document is required, as yaml.safe_load requires; mapping keys must be scalars and become
// strings; "<<" merge keys merge as PyYAML's SafeLoader merges them.
#pragma once
#include "core/yaml/YamlScalars.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace maskscope::yaml {

inline constexpr int64_t kMaxYamlBytes = int64_t(4) << 20; // a config is a few KiB
inline constexpr int kMaxYamlDepth = 64;                   // nesting levels (configs use fewer than 8)
inline constexpr int64_t kMaxYamlValues = 100000;          // values written, aliases expanded

// Throws Error at "file:line:column" on any problem. source names the input in errors.
nlohmann::ordered_json parseYaml(std::string_view text, const std::string& source, Dialect dialect);
nlohmann::ordered_json readYamlFile(const std::string& path, Dialect dialect);

// Whether path names a YAML file by its extension (.yml, .yaml).
bool isYamlPath(const std::string& path);

} // namespace maskscope::yaml
