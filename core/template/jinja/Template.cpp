// Template: normalize, lex and parse once; render through a fresh Interpreter each time.
#include "core/template/jinja/Template.h"

#include "core/template/jinja/Builtins.h"
#include "core/util/Utf8.h"

#include <algorithm>

namespace maskscope::jinja {

namespace {
bool containsGeneration(const NodeList& body);

bool nodeHasGeneration(const Node* n) {
  switch (n->kind) {
  case NodeKind::Generation:
    return true;
  case NodeKind::If:
    for (const auto& b : static_cast<const IfNode*>(n)->branches)
      if (containsGeneration(b.second)) return true;
    return false;
  case NodeKind::For: {
    const auto* f = static_cast<const ForNode*>(n);
    return containsGeneration(f->body) || containsGeneration(f->elseBody);
  }
  case NodeKind::SetBlock:
    return containsGeneration(static_cast<const SetBlockNode*>(n)->body);
  case NodeKind::Macro:
    return containsGeneration(static_cast<const MacroNode*>(n)->body);
  case NodeKind::CallBlock:
    return containsGeneration(static_cast<const CallBlockNode*>(n)->caller->body);
  case NodeKind::FilterBlock:
    return containsGeneration(static_cast<const FilterBlockNode*>(n)->body);
  default:
    return false;
  }
}

bool containsGeneration(const NodeList& body) {
  return std::any_of(body.begin(), body.end(), [](const NodePtr& n) { return nodeHasGeneration(n.get()); });
}
} // namespace

std::shared_ptr<const Template> Template::parse(const std::string& source, const std::string& name,
                                                const Limits& limits) {
  if (int64_t(source.size()) > limits.maxSourceBytes)
    throw Error("template is " + std::to_string(source.size()) + " bytes, over the limit of " +
                    std::to_string(limits.maxSourceBytes),
                SourceLocation{name});
  auto t = std::shared_ptr<Template>(new Template());
  t->name_ = name;
  t->source_ = normalizeSource(source);
  t->lineStarts_.push_back(0);
  for (size_t i = 0; i < t->source_.size(); ++i)
    if (t->source_[i] == '\n') t->lineStarts_.push_back(uint32_t(i + 1));
  // A template is text: transformers reads it as UTF-8 (a .jinja file, or a JSON string), so invalid
  // UTF-8 or a raw NUL byte means a binary or corrupted file, refused where it starts.
  if (const int64_t bad = utf8::firstInvalid(t->source_); bad >= 0)
    throw Error("TemplateSyntaxError: the template is not valid UTF-8 (byte " + std::to_string(bad) + ")",
                t->location(uint32_t(bad)));
  if (const size_t nul = t->source_.find('\0'); nul != std::string::npos)
    throw Error("TemplateSyntaxError: the template contains a NUL byte (byte " + std::to_string(nul) + ")",
                t->location(uint32_t(nul)));
  try {
    std::vector<Token> tokens = lex(t->source_);
    t->body_ = parseTemplate(tokens, t->symbols_);
  } catch (const LexError& e) {
    throw Error("TemplateSyntaxError: " + e.message, t->location(e.pos));
  } catch (const ParseError& e) {
    throw Error("TemplateSyntaxError: " + e.message, t->location(e.pos));
  }
  t->hasGeneration_ = containsGeneration(t->body_);
  t->globals_.reserve(t->symbols_.names.size());
  for (const auto& n : t->symbols_.names) t->globals_.push_back(makeGlobal(n));
  return t;
}

SourceLocation Template::location(uint32_t pos) const {
  SourceLocation loc;
  loc.file = name_;
  auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), pos);
  size_t line = size_t(it - lineStarts_.begin()); // 1-based
  if (line == 0) line = 1;
  uint32_t start = lineStarts_[line - 1];
  loc.line = long(line);
  // 1-based column in code points
  long col = 1;
  for (uint32_t i = start; i < pos && i < source_.size(); ++i)
    if ((static_cast<unsigned char>(source_[i]) & 0xC0) != 0x80) ++col;
  loc.column = col;
  loc.byteOffset = long(pos);
  return loc;
}

RenderOutput Template::render(const Variables& variables, const RenderSettings& settings) const {
  Interpreter in(*this, settings);
  return in.run(variables);
}

} // namespace maskscope::jinja
