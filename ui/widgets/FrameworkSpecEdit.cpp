// Framework specs edited one key at a time, as inline JSON the session's setCollator takes.
#include "ui/widgets/FrameworkSpecEdit.h"
#include "core/frameworks/Framework.h"

namespace maskscope {

namespace {

QString dumped(const OrderedJson& j) { return QString::fromStdString(j.dump()); }

// {"framework", "version", "collator", ["type"], the options the spec set, in its order}: what
// frameworkSpecFromJson reads back into the same spec.
OrderedJson givenJson(const FrameworkSpec& spec) {
  OrderedJson j = OrderedJson::object();
  j["framework"] = spec.framework;
  j["version"] = spec.version;
  j["collator"] = spec.collator;
  if (spec.definition && !spec.definition->info.typeKey.empty()) j[spec.definition->info.typeKey] = spec.type;
  for (const auto& name : spec.given) j[name] = spec.value(name);
  return j;
}

const CollatorInfo* findCollator(const FrameworkInfo& info, const std::string& version, const std::string& name) {
  for (const VersionInfo& v : info.versions) {
    if (v.version != version) continue;
    for (const CollatorInfo& c : v.collators)
      if (c.name == name) return &c;
    return v.collators.empty() ? nullptr : &v.collators.front(); // that version's default collator
  }
  return nullptr;
}

bool hasOption(const CollatorInfo* c, const std::string& name) {
  if (!c) return false;
  for (const OptionInfo& o : c->options)
    if (o.name == name && o.kind != OptionKind::Ignored) return true;
  return false;
}

} // namespace

QString frameworkSpecFor(const QString& framework) {
  OrderedJson j = OrderedJson::object();
  j["framework"] = framework.toStdString();
  return dumped(j);
}

QString frameworkOwnTemplateText(const FrameworkSpec& spec) {
  const auto own = frameworkOwnTemplate(spec);
  return own ? QString::fromStdString(own->first + " = " + own->second) : QString();
}

const OptionInfo* frameworkOption(const FrameworkSpec& base, const std::string& name) {
  if (!base.collatorInfo) return nullptr;
  for (const OptionInfo& o : base.collatorInfo->options)
    if (o.name == name) return &o;
  return nullptr;
}

QString frameworkSpecWith(const FrameworkSpec& base, const std::string& key, const OrderedJson& value) {
  OrderedJson j = givenJson(base);
  const FrameworkInfo& info = base.definition->info;
  if (key == "version" || key == "collator") {
    j[key] = value;
    if (key == "version") j.erase("collator"); // the new version's collator of that name, else its default
    const std::string version = j["version"].get<std::string>();
    const std::string collator = j.contains("collator") ? j["collator"].get<std::string>() : base.collator;
    const CollatorInfo* next = findCollator(info, version, collator);
    if (next) j["collator"] = next->name;
    for (const std::string& name : base.given)
      if (!hasOption(next, name)) j.erase(name);
    return dumped(j);
  }
  if (!info.typeKey.empty() && key == info.typeKey) {
    j[key] = value;
    return dumped(j);
  }
  const OptionInfo* o = frameworkOption(base, key);
  if (o && value == o->defaultValue)
    j.erase(key); // back to the framework's default
  else
    j[key] = value;
  return dumped(j);
}

} // namespace maskscope
