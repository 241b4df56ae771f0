// A parsed framework spec: which framework, version and collator, and every option of that
// collator (the value given, else the framework's default), validated against the registry.
// Read from `--collator SPEC.json`, an inline JSON object, or a framework's own config file.
#pragma once
#include "core/frameworks/FrameworkInfo.h"

#include <optional>
#include <string>
#include <vector>

namespace maskscope {

struct FrameworkDefinition;

struct FrameworkSpec {
  std::string framework;            // "trl"
  std::string version;              // "1.10" (the default filled in)
  std::string collator;             // "DataCollatorForLanguageModeling" (the default filled in)
  std::string type;                 // Axolotl's "type"; empty when the framework has none
  OrderedJson options;              // object: every option of the collator, in registry order
  std::vector<std::string> given;   // option names the spec set, in its order
  std::vector<std::string> ignored; // keys accepted and ignored (OptionKind::Ignored) that the spec set
  std::string source;               // the file, or "inline"
  const FrameworkDefinition* definition = nullptr;
  const CollatorInfo* collatorInfo = nullptr;
  const VersionInfo* versionInfo = nullptr;

  bool isGiven(const std::string& name) const;
  // Set by the spec or config, as an option or as a key accepted and ignored (a filled-in default is not).
  bool isSet(const std::string& name) const;
  const OrderedJson& value(const std::string& name) const; // Error when the collator has no such option
  bool flag(const std::string& name) const;
  int64_t integer(const std::string& name) const;
  std::optional<int64_t> optionalInteger(const std::string& name) const;
  std::string string(const std::string& name) const;
  std::optional<std::string> optionalString(const std::string& name) const;
  // The version's behaviour switch name (VersionInfo::behaviour); Error when the catalogue row
  // does not state it (a code path asking a switch its framework never declared).
  bool behaves(const std::string& name) const;
  // "trl 1.10 DataCollatorForLanguageModeling (padding_free=true, max_length=8)": the given options.
  std::string describe() const;
  // {"framework", "version", "collator", ["type"], every option}: the spec with defaults filled in.
  OrderedJson toJson() const;
};

// True when SPEC is a framework spec rather than a collator preset: an inline JSON object, a JSON
// file whose object has "framework", or a file some framework's readConfig claims (YAML configs).
bool isFrameworkSpec(const std::string& spec);
// Parses SPEC (inline object or file); throws Error naming the file and key.
FrameworkSpec parseFrameworkSpec(const std::string& spec);
// Validates object against the registry; source names it in errors.
FrameworkSpec frameworkSpecFromJson(const OrderedJson& object, const std::string& source);

} // namespace maskscope
