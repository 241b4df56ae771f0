// Writes docs/frameworks.md from the catalogue rows (see FrameworkCatalogueMarkdown.h): one section
// per framework, a version table with each behaviour switch, then per collator its options.
#include "core/frameworks/FrameworkCatalogueMarkdown.h"

#include "core/frameworks/Framework.h"

#include <sstream>

namespace maskscope {

namespace {

// A table cell: pipes escaped, so help text with `a | b` cannot split the row.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string code(const std::string& text) { return "`" + cell(text) + "`"; }

std::string defaultText(const OptionInfo& o) {
  if (o.defaultValue.is_null()) return "null";
  return code(o.defaultValue.dump());
}

std::string kindText(const OptionInfo& o) {
  std::string kind = optionKindName(o.kind);
  if (o.kind == OptionKind::Choice) {
    kind += ":";
    for (size_t i = 0; i < o.choices.size(); ++i) kind += (i ? ", " : " ") + code(o.choices[i]);
  }
  if ((o.kind == OptionKind::Int || o.kind == OptionKind::OptionalInt) &&
      (o.min != 0 || o.max != kMaxFrameworkLength)) {
    kind += " in [" + std::to_string(o.min) + ", " + std::to_string(o.max) + "]";
  }
  return kind;
}

void writeVersions(std::ostream& out, const FrameworkInfo& info) {
  out << "| version | read from | collators (the first is the default) |";
  for (const BehaviourInfo& b : info.behaviours) out << " " << code(b.name) << " |";
  out << "\n| --- | --- | --- |";
  for (size_t i = 0; i < info.behaviours.size(); ++i) out << " --- |";
  out << "\n";
  for (const VersionInfo& v : info.versions) {
    out << "| " << code(v.version) << " | " << cell(v.readFrom) << " | ";
    for (size_t i = 0; i < v.collators.size(); ++i) out << (i ? ", " : "") << code(v.collators[i].name);
    out << " |";
    for (const BehaviourInfo& b : info.behaviours) {
      const auto it = v.behaviour.find(b.name);
      out << " " << (it == v.behaviour.end() ? "?" : it->second ? "yes" : "no") << " |";
    }
    out << "\n";
  }
  if (!info.behaviours.empty()) {
    out << "\nBehaviour switches (what \"yes\" means):\n\n";
    for (const BehaviourInfo& b : info.behaviours) out << "- " << code(b.name) << ": " << b.meaning << "\n";
  }
}

// A collator's options once per distinct (collator name, option list): versions that share them
// are named together instead of repeating the table.
void writeCollators(std::ostream& out, const FrameworkInfo& info) {
  std::vector<std::pair<const CollatorInfo*, std::vector<std::string>>> seen;
  for (const VersionInfo& v : info.versions) {
    for (const CollatorInfo& c : v.collators) {
      bool merged = false;
      for (auto& [known, versions] : seen) {
        if (known->name != c.name || known->summary != c.summary || known->options.size() != c.options.size()) continue;
        bool same = true;
        for (size_t i = 0; i < c.options.size() && same; ++i) {
          const OptionInfo &a = known->options[i], &b = c.options[i];
          same = a.name == b.name && a.kind == b.kind && a.defaultValue == b.defaultValue && a.help == b.help &&
                 a.choices == b.choices && a.min == b.min && a.max == b.max;
        }
        if (same) {
          versions.push_back(v.version);
          merged = true;
          break;
        }
      }
      if (!merged) seen.push_back({&c, {v.version}});
    }
  }
  for (const auto& [c, versions] : seen) {
    out << "\n#### " << code(c->name) << " (";
    for (size_t i = 0; i < versions.size(); ++i) out << (i ? ", " : "") << versions[i];
    out << ")\n\n" << c->summary << "\n\n";
    if (c->options.empty()) {
      out << "No options.\n";
      continue;
    }
    out << "| option | kind | default | meaning |\n| --- | --- | --- | --- |\n";
    std::vector<const OptionInfo*> ignored;
    for (const OptionInfo& o : c->options) {
      if (o.kind == OptionKind::Ignored) {
        ignored.push_back(&o);
        continue;
      }
      out << "| " << code(o.name) << " | " << kindText(o) << " | " << defaultText(o) << " | " << cell(o.help) << " |\n";
    }
    // Accepted so that a saved config works as a spec, but they do not change the batch: one line.
    if (!ignored.empty()) {
      out << "\nAccepted and ignored (the text form lists them as ignored):";
      for (size_t i = 0; i < ignored.size(); ++i) out << (i ? ", " : " ") << code(ignored[i]->name);
      out << ".\n";
    }
  }
}

} // namespace

std::string frameworkCatalogueMarkdown() {
  std::ostringstream out;
  out << "# Framework catalogue\n\n"
         "<!-- Generated from the catalogue rows in core/frameworks (frameworkCatalogueMarkdown()); do not\n"
         "     edit. Regenerate: MASKSCOPE_REGENERATE=1 build/tests/frameworks/test_framework_core catalogueDocInSync "
         "-->\n\n"
         "Every framework a `--collator` framework spec can name, every version maskscope reproduces (with\n"
         "the upstream source it was read from), the behaviour switches that differ between versions, and\n"
         "every collator's options with their kinds and defaults, exactly as the spec parser checks them. An\n"
         "option not listed for the collator exits 2. How each framework prepares and collates rows is\n"
         "described in [cli.md, Frameworks](cli.md#frameworks).\n";
  for (const FrameworkDefinition& def : frameworkDefinitions()) {
    const FrameworkInfo& info = def.info;
    out << "\n## " << info.title << " (`\"framework\": \"" << info.name << "\"`)\n\n";
    if (!info.typeKey.empty()) {
      out << "The spec key " << code(info.typeKey) << " takes:";
      for (size_t i = 0; i < info.typeValues.size(); ++i) out << (i ? ", " : " ") << code(info.typeValues[i]);
      out << ".\n\n";
    }
    writeVersions(out, info);
    writeCollators(out, info);
  }
  return out.str();
}

} // namespace maskscope
