// Recursive-descent parser from tokens to the syntax tree, following jinja2.parser's grammar and
// operator precedence. Nesting is bounded so "((((...))))" bombs fail cleanly.
#pragma once
#include "core/template/jinja/Ast.h"
#include "core/template/jinja/Lexer.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace maskscope::jinja {

struct Symbols {
  std::unordered_map<std::string, int> ids;
  std::vector<std::string> names;
  int intern(const std::string& name) {
    auto [it, inserted] = ids.emplace(name, int(names.size()));
    if (inserted) names.push_back(name);
    return it->second;
  }
  int find(const std::string& name) const {
    auto it = ids.find(name);
    return it == ids.end() ? -1 : it->second;
  }
};

struct ParseError {
  std::string message;
  uint32_t pos;
};

// Worker threads get kWorkerStackBytes (core/util/StackSizes.h), sized for this cap and maxCallDepth.
inline constexpr int kMaxParseDepth = 100;

// Throws ParseError.
NodeList parseTemplate(const std::vector<Token>& tokens, Symbols& symbols);

} // namespace maskscope::jinja
