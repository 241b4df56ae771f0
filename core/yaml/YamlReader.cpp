// YAML config files -> JSON (see YamlReader.h): the depth scan, yaml-cpp's parse, and a capped
// conversion that counts every value it writes, so aliases cannot expand past the cap.
#include "core/yaml/YamlReader.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"
#include "core/util/Utf8.h"
#include "core/yaml/YamlDepth.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <set>
#include <utility>
#include <vector>

namespace maskscope::yaml {

namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kTagPrefix = "tag:yaml.org,2002:";

struct Converter {
  std::string source;
  Dialect dialect;
  int64_t values = 0;

  SourceLocation at(const YAML::Mark& m) const {
    SourceLocation loc{source};
    if (!m.is_null()) {
      loc.line = m.line + 1;
      loc.column = m.column + 1;
      loc.byteOffset = m.pos;
    }
    return loc;
  }

  void count(const YAML::Node& node, int depth) {
    if (++values > kMaxYamlValues)
      throw Error("YAML expands to more than " + std::to_string(kMaxYamlValues) +
                      " values (each use of an alias counts): refused",
                  at(node.Mark()));
    if (depth > kMaxYamlDepth)
      throw Error("YAML nests deeper than the limit of " + std::to_string(kMaxYamlDepth) +
                      " levels (an alias may refer to itself)",
                  at(node.Mark()));
  }

  Json scalar(const YAML::Node& node) const {
    const std::string& tag = node.Tag();
    const std::string& text = node.Scalar();
    if (tag == "?") return resolvePlainScalar(text, dialect);
    if (tag == "!" || tag == std::string(kTagPrefix) + "str") return text;
    if (tag.rfind(kTagPrefix, 0) == 0) {
      const std::string kind = tag.substr(std::string(kTagPrefix).size());
      Json v = resolvePlainScalar(text, dialect);
      if ((kind == "int" && v.is_number_integer()) || (kind == "float" && v.is_number()) ||
          (kind == "bool" && v.is_boolean()) || (kind == "null" && v.is_null()))
        return kind == "float" ? Json(v.get<double>()) : v;
    }
    throw Error("unsupported YAML tag '" + tag + "' on the value '" + utf8::sanitize(text.substr(0, 80)) +
                    "' (yaml.safe_load refuses it too)",
                at(node.Mark()));
  }

  std::string keyText(const YAML::Node& key) const {
    if (key.IsNull()) return "null";
    if (!key.IsScalar()) throw Error("a YAML mapping key must be a plain value, not a collection", at(key.Mark()));
    return key.Scalar();
  }

  // A mapping's entries in the order Python's dict ends up with: "<<" merge sources first (PyYAML's
  // flatten_mapping: the later of several merged maps first, then earlier ones), then its own keys.
  void mergeEntries(const YAML::Node& map, std::vector<std::pair<YAML::Node, YAML::Node>>& out, int depth) {
    std::vector<std::pair<YAML::Node, YAML::Node>> own, merged;
    std::set<std::string> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const YAML::Node key = it->first, value = it->second;
      const bool isMerge = key.IsScalar() && key.Tag() == "?" && key.Scalar() == "<<";
      if (!isMerge) {
        const std::string k = keyText(key);
        if (dialect == Dialect::OmegaConf && !seen.insert(k).second)
          throw Error("found duplicate key " + k + " (OmegaConf.load refuses it)", at(key.Mark()));
        own.emplace_back(key, value);
        continue;
      }
      count(value, depth + 1);
      std::vector<YAML::Node> sources;
      if (value.IsMap())
        sources.push_back(value);
      else if (value.IsSequence())
        for (auto s = value.begin(); s != value.end(); ++s) {
          if (!s->IsMap()) throw Error("a YAML merge key (<<) takes mappings only", at(s->Mark()));
          sources.push_back(*s);
        }
      else
        throw Error("a YAML merge key (<<) takes a mapping or a list of mappings", at(value.Mark()));
      std::vector<std::vector<std::pair<YAML::Node, YAML::Node>>> parts;
      for (const auto& s : sources) {
        parts.emplace_back();
        mergeEntries(s, parts.back(), depth + 1);
      }
      for (auto p = parts.rbegin(); p != parts.rend(); ++p) merged.insert(merged.end(), p->begin(), p->end());
    }
    out.insert(out.end(), merged.begin(), merged.end());
    out.insert(out.end(), own.begin(), own.end());
  }

  // A collection may carry no tag or its own standard one; anything else (!!python/object, !!set,
  // !!omap) is a type JSON cannot hold or yaml.safe_load would not build.
  void checkCollectionTag(const YAML::Node& node, const char* kind) const {
    const std::string& tag = node.Tag();
    if (tag == "?" || tag == "!" || tag == std::string(kTagPrefix) + kind) return;
    throw Error("unsupported YAML tag '" + tag +
                    "' on a collection (yaml.safe_load refuses it or builds a type "
                    "JSON cannot hold)",
                at(node.Mark()));
  }

  Json convert(const YAML::Node& node, int depth) {
    count(node, depth);
    switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      return scalar(node);
    case YAML::NodeType::Sequence: {
      checkCollectionTag(node, "seq");
      Json out = Json::array();
      for (auto it = node.begin(); it != node.end(); ++it) out.push_back(convert(*it, depth + 1));
      return out;
    }
    case YAML::NodeType::Map: {
      checkCollectionTag(node, "map");
      std::vector<std::pair<YAML::Node, YAML::Node>> entries;
      mergeEntries(node, entries, depth);
      Json out = Json::object();
      for (const auto& [k, v] : entries) out[keyText(k)] = convert(v, depth + 1); // a later key wins, in place
      return out;
    }
    }
    return nullptr;
  }
};

} // namespace

Json parseYaml(std::string_view text, const std::string& source, Dialect dialect) {
  if (int64_t(text.size()) > kMaxYamlBytes)
    throw Error("YAML text is " + std::to_string(text.size()) + " bytes, over the limit of " +
                    std::to_string(kMaxYamlBytes) + " bytes",
                SourceLocation{source});
  if (int64_t bad = utf8::firstInvalid(text); bad >= 0) {
    SourceLocation loc{source};
    loc.byteOffset = bad;
    throw Error("YAML file is not valid UTF-8", loc);
  }
  if (auto deep = findYamlTooDeep(text, kMaxYamlDepth)) {
    SourceLocation loc{source};
    loc.line = deep->line;
    loc.column = deep->column;
    throw Error(deep->message(), loc);
  }
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(std::string(text));
  } catch (const YAML::Exception& e) {
    SourceLocation loc{source};
    if (!e.mark.is_null()) {
      loc.line = e.mark.line + 1;
      loc.column = e.mark.column + 1;
    }
    throw Error("invalid YAML: " + e.msg, loc);
  }
  if (docs.size() > 1) throw Error("holds more than one YAML document (yaml.safe_load reads exactly one)", {source});
  if (docs.empty()) return nullptr;
  Converter c{source, dialect};
  return c.convert(docs[0], 0);
}

Json readYamlFile(const std::string& path, Dialect dialect) {
  return parseYaml(readFileCapped(path, kMaxYamlBytes), path, dialect);
}

bool isYamlPath(const std::string& path) { return path.ends_with(".yml") || path.ends_with(".yaml"); }

} // namespace maskscope::yaml
