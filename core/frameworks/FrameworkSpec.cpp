// Framework specs: parsing (inline JSON, a JSON file, a framework's own config file), validation
// against the registry (unknown framework, version, collator, option or value: Error listing the
// known ones), and the typed getters the implementations read options with.
#include "core/frameworks/FrameworkSpec.h"
#include "core/frameworks/Framework.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"
#include "core/util/JsonParse.h"

#include <algorithm>

namespace maskscope {

namespace {

constexpr int64_t kMaxSpecFileBytes = int64_t(4) << 20; // a config file is a few KiB

std::string joinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

SourceLocation at(const std::string& source, const std::string& key) { return {source, -1, -1, -1, key}; }

// Checks one option value against its kind; Error naming the key.
void checkValue(const OptionInfo& o, const OrderedJson& v, const std::string& source) {
  auto bad = [&](const std::string& want) {
    std::string shown = v.dump();
    if (shown.size() > 80) shown = shown.substr(0, 77) + "...";
    throw Error("option \"" + o.name + "\" must be " + want + ", got " + shown, at(source, o.name));
  };
  auto checkInt = [&] {
    if (!v.is_number_integer()) bad("an integer");
    const int64_t n = v.get<int64_t>();
    if (n < o.min || n > o.max)
      bad("an integer from " + std::to_string(o.min) + " to " + std::to_string(o.max) + " (larger is refused, " +
          "never allocated)");
  };
  switch (o.kind) {
  case OptionKind::Bool:
    if (!v.is_boolean()) bad("true or false");
    return;
  case OptionKind::Int:
    checkInt();
    return;
  case OptionKind::OptionalInt:
    if (!v.is_null()) checkInt();
    return;
  case OptionKind::String:
    if (!v.is_string()) bad("a string");
    return;
  case OptionKind::OptionalString:
    if (!v.is_null() && !v.is_string()) bad("a string or null");
    return;
  case OptionKind::Choice:
    if (!v.is_string() || std::find(o.choices.begin(), o.choices.end(), v.get<std::string>()) == o.choices.end())
      bad("one of " + joinNames(o.choices));
    return;
  case OptionKind::IdsOrString:
  case OptionKind::IdList:
    if (o.kind == OptionKind::IdsOrString && (v.is_string() || v.is_null())) return;
    if (!v.is_array()) bad(o.kind == OptionKind::IdList ? "a list of token ids" : "a string or a list of token ids");
    if (v.size() > size_t(kMaxFrameworkLength)) bad("a list of at most 2^20 ids");
    for (const auto& e : v)
      if (!e.is_number_integer() || e.get<int64_t>() < 0 || e.get<int64_t>() > INT32_MAX)
        bad("token ids (0 .. 2^31-1)");
    return;
  case OptionKind::Json:
  case OptionKind::Ignored:
    return;
  }
}

const VersionInfo& findVersion(const FrameworkInfo& info, const std::string& version, const std::string& source) {
  std::vector<std::string> known;
  for (const auto& v : info.versions) {
    if (v.version == version) return v;
    known.push_back(v.version);
  }
  throw Error("unknown " + info.name + " version \"" + version + "\" (known: " + joinNames(known) + ")",
              at(source, "version"));
}

const CollatorInfo& findCollator(const FrameworkInfo& info, const VersionInfo& v, const std::string& name,
                                 const std::string& source) {
  std::vector<std::string> known;
  for (const auto& c : v.collators) {
    if (c.name == name) return c;
    known.push_back(c.name);
  }
  throw Error("unknown " + info.name + " " + v.version + " collator \"" + name + "\" (known: " + joinNames(known) + ")",
              at(source, "collator"));
}

std::string stringField(const OrderedJson& object, const char* key, const std::string& source) {
  if (!object.contains(key) || object[key].is_null()) return {};
  if (!object[key].is_string()) throw Error(std::string("\"") + key + "\" must be a string", at(source, key));
  return object[key].get<std::string>();
}

bool isReservedKey(const std::string& key, const FrameworkInfo& info) {
  return key == "framework" || key == "version" || key == "collator" || (!info.typeKey.empty() && key == info.typeKey);
}

// Fills spec.type from the object (frameworks with a type key, e.g. Axolotl's "type").
void readType(FrameworkSpec& spec, const FrameworkInfo& info, const OrderedJson& object, const std::string& source) {
  if (info.typeKey.empty()) return;
  spec.type = stringField(object, info.typeKey.c_str(), source);
  if (spec.type.empty() && !info.typeValues.empty()) spec.type = info.typeValues.front();
  if (!info.typeValues.empty() &&
      std::find(info.typeValues.begin(), info.typeValues.end(), spec.type) == info.typeValues.end())
    throw Error("unknown " + info.name + " " + info.typeKey + " \"" + spec.type +
                    "\" (known: " + joinNames(info.typeValues) + ")",
                at(source, info.typeKey));
}

// Every other key must be an option of the collator; values are checked, defaults filled in.
void readOptions(FrameworkSpec& spec, const OrderedJson& object, const std::string& source) {
  const FrameworkInfo& info = spec.definition->info;
  spec.options = OrderedJson::object();
  for (const OptionInfo& o : spec.collatorInfo->options) spec.options[o.name] = o.defaultValue;
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (isReservedKey(it.key(), info)) continue;
    const auto& opts = spec.collatorInfo->options;
    auto o = std::find_if(opts.begin(), opts.end(), [&](const OptionInfo& x) { return x.name == it.key(); });
    if (o == opts.end()) {
      std::vector<std::string> known;
      for (const auto& x : opts)
        if (x.kind != OptionKind::Ignored) known.push_back(x.name);
      throw Error("unknown option \"" + it.key() + "\" for " + info.name + " " + spec.version + " " + spec.collator +
                      " (its options: " + joinNames(known) + ")",
                  at(source, it.key()));
    }
    checkValue(*o, it.value(), source);
    spec.options[o->name] = it.value();
    (o->kind == OptionKind::Ignored ? spec.ignored : spec.given).push_back(o->name);
  }
}

bool isYamlPath(const std::string& spec) { return spec.ends_with(".yml") || spec.ends_with(".yaml"); }

} // namespace

bool FrameworkSpec::isGiven(const std::string& name) const {
  return std::find(given.begin(), given.end(), name) != given.end();
}

bool FrameworkSpec::isSet(const std::string& name) const {
  return isGiven(name) || std::find(ignored.begin(), ignored.end(), name) != ignored.end();
}

const OrderedJson& FrameworkSpec::value(const std::string& name) const {
  auto it = options.find(name);
  if (it == options.end())
    throw Error("internal: " + framework + " " + collator + " reads option \"" + name + "\" it does not declare");
  return *it;
}

bool FrameworkSpec::flag(const std::string& name) const { return value(name).get<bool>(); }
int64_t FrameworkSpec::integer(const std::string& name) const { return value(name).get<int64_t>(); }
std::optional<int64_t> FrameworkSpec::optionalInteger(const std::string& name) const {
  const auto& v = value(name);
  return v.is_null() ? std::nullopt : std::optional<int64_t>(v.get<int64_t>());
}
std::string FrameworkSpec::string(const std::string& name) const { return value(name).get<std::string>(); }
std::optional<std::string> FrameworkSpec::optionalString(const std::string& name) const {
  const auto& v = value(name);
  return v.is_string() ? std::optional<std::string>(v.get<std::string>()) : std::nullopt;
}

bool FrameworkSpec::behaves(const std::string& name) const {
  if (versionInfo)
    if (auto it = versionInfo->behaviour.find(name); it != versionInfo->behaviour.end()) return it->second;
  throw Error("internal: the " + framework + " " + version + " catalogue row states no behaviour \"" + name + "\"",
              {source, -1, -1, -1, "version"});
}

void setCollatorFactories(FrameworkInfo& info, const std::map<std::string, CollatorFactory>& factories) {
  for (VersionInfo& v : info.versions)
    for (CollatorInfo& c : v.collators)
      if (auto it = factories.find(c.name); it != factories.end()) c.make = it->second;
}

std::string FrameworkSpec::describe() const {
  std::string out = framework + " " + version + " " + collator;
  if (!type.empty()) out += " (" + definition->info.typeKey + "=" + type + ")";
  std::string opts;
  for (const auto& name : given) {
    std::string v = value(name).dump();
    if (v.size() > 60) v = v.substr(0, 57) + "...";
    opts += (opts.empty() ? "" : ", ") + name + "=" + v;
  }
  out += opts.empty() ? " (defaults)" : " (" + opts + ")";
  return out;
}

OrderedJson FrameworkSpec::toJson() const {
  OrderedJson j = OrderedJson::object();
  j["framework"] = framework;
  j["version"] = version;
  j["collator"] = collator;
  if (definition && !definition->info.typeKey.empty()) j[definition->info.typeKey] = type;
  for (auto it = options.begin(); it != options.end(); ++it) j[it.key()] = it.value();
  return j;
}

FrameworkSpec frameworkSpecFromJson(const OrderedJson& object, const std::string& source) {
  if (!object.is_object()) throw Error("a framework spec is a JSON object", {source});
  const std::string name = stringField(object, "framework", source);
  if (name.empty()) {
    std::vector<std::string> known;
    for (const auto& d : frameworkDefinitions()) known.push_back(d.info.name);
    throw Error("a framework spec needs \"framework\" (one of " + joinNames(known) + ")", at(source, "framework"));
  }
  FrameworkSpec spec;
  spec.source = source;
  try {
    spec.definition = &frameworkDefinition(name);
  } catch (const Error& e) {
    throw Error(e.message(), at(source, "framework"));
  }
  const FrameworkInfo& info = spec.definition->info;
  spec.framework = info.name;
  spec.version = stringField(object, "version", source);
  if (spec.version.empty()) spec.version = info.versions.front().version;
  spec.versionInfo = &findVersion(info, spec.version, source);
  spec.collator = stringField(object, "collator", source);
  if (spec.collator.empty()) spec.collator = spec.versionInfo->collators.front().name;
  spec.collatorInfo = &findCollator(info, *spec.versionInfo, spec.collator, source);
  readType(spec, info, object, source);
  readOptions(spec, object, source);
  return spec;
}

bool isFrameworkSpec(const std::string& spec) {
  const size_t first = spec.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && spec[first] == '{') return true;
  if (isYamlPath(spec)) return true;
  if (!spec.ends_with(".json") || !fileExists(spec)) return false;
  // A collator JSON file (presets) has no "framework" key; a framework spec or SFTConfig has one.
  std::string error;
  const auto j = parseOrderedJsonOrExplain(readFileCapped(spec, kMaxSpecFileBytes), &error);
  return error.empty() && j.is_object() && j.contains("framework");
}

FrameworkSpec parseFrameworkSpec(const std::string& spec) {
  const size_t first = spec.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && spec[first] == '{')
    return frameworkSpecFromJson(parseOrderedJsonOrThrow(spec, {"--collator"}), "inline");
  const std::string text = readFileCapped(spec, kMaxSpecFileBytes);
  if (!isYamlPath(spec)) {
    const OrderedJson object = parseOrderedJsonOrThrow(text, {spec});
    if (object.is_object() && !object.contains("framework"))
      throw Error("not a framework spec: the object has no \"framework\" key", {spec});
    return frameworkSpecFromJson(object, spec);
  }
  std::vector<std::string> readers;
  for (const auto& d : frameworkDefinitions()) {
    if (!d.readConfig) continue;
    readers.push_back(d.info.name);
    if (auto object = d.readConfig(spec, text)) return frameworkSpecFromJson(*object, spec);
  }
  throw Error(readers.empty() ? "no framework in this build reads YAML config files"
                              : "no framework recognises this config file (readers: " + joinNames(readers) + ")",
              {spec});
}

const FrameworkDefinition& frameworkDefinition(const std::string& name) {
  std::vector<std::string> known;
  for (const auto& d : frameworkDefinitions()) {
    if (d.info.name == name) return d;
    known.push_back(d.info.name);
  }
  throw Error("unknown framework \"" + name + "\" (known: " + joinNames(known) + ")", {"", -1, -1, -1, "framework"});
}

std::optional<std::pair<std::string, std::string>> frameworkOwnTemplate(const FrameworkSpec& spec) {
  if (!spec.definition || !spec.definition->ownTemplate) return std::nullopt;
  return spec.definition->ownTemplate(spec);
}

const char* optionKindName(OptionKind kind) {
  switch (kind) {
  case OptionKind::Bool:
    return "bool";
  case OptionKind::Int:
    return "int";
  case OptionKind::OptionalInt:
    return "int or null";
  case OptionKind::String:
    return "string";
  case OptionKind::OptionalString:
    return "string or null";
  case OptionKind::Choice:
    return "choice";
  case OptionKind::IdsOrString:
    return "string or token ids";
  case OptionKind::IdList:
    return "token ids";
  case OptionKind::Json:
    return "JSON";
  case OptionKind::Ignored:
    return "ignored";
  }
  return "?";
}

} // namespace maskscope
