// The YAML nesting bound (see YamlDepth.h). Why the bound holds: a nested block collection is
// either more indented than its parent, or a sequence at its mapping key's indentation ("a:\n- b"),
// or a compact one on the same line ("- - b", "- a: b", "? - b"). So each open indentation level
// counts twice (a mapping and a same-indent sequence), each compact indicator once, a key once, and
// each open flow bracket once. The estimate may be up to twice the real depth, never below it.
#include "core/yaml/YamlDepth.h"

#include <vector>

namespace maskscope::yaml {

std::string YamlTooDeep::message() const {
  return "YAML nests deeper than the limit of " + std::to_string(limit) + " levels (refused before parsing)";
}

namespace {

struct Scan {
  std::vector<int> indents;  // open indentation levels
  int flowDepth = 0;         // open [ { brackets
  long flowBase = 0;         // block estimate of the line the outermost bracket opened on
  char quote = 0;            // inside a quoted scalar spanning lines: ' or "
  bool blockScalar = false;  // inside a | or > body
  int blockParentIndent = 0; // ... whose header line had this indentation
};

bool isBlank(std::string_view s) { return s.find_first_not_of(" \t\r") == std::string_view::npos; }

// Whether the line (outside quotes and flow) ends with a block scalar header: | or > plus up to two
// indicator characters (chomping + - and an indentation digit), then only a comment.
bool endsWithBlockScalarHeader(std::string_view line, size_t lastToken) {
  if (lastToken == std::string_view::npos) return false;
  size_t k = lastToken;
  if (line[k] != '|' && line[k] != '>') return false;
  if (k > 0 && line[k - 1] != ' ' && line[k - 1] != '\t') return false;
  size_t j = k + 1, n = 0;
  while (j < line.size() && (line[j] == '+' || line[j] == '-' || (line[j] >= '0' && line[j] <= '9')) && n < 2) ++j, ++n;
  while (j < line.size() && (line[j] == ' ' || line[j] == '\t' || line[j] == '\r')) ++j;
  return j == line.size() || line[j] == '#';
}

} // namespace

std::optional<YamlTooDeep> findYamlTooDeep(std::string_view text, int maxDepth) {
  Scan st;
  long lineNo = 0;
  size_t lineStart = 0;
  while (lineStart <= text.size()) {
    size_t nl = text.find('\n', lineStart);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = text.substr(lineStart, nl - lineStart);
    ++lineNo;
    lineStart = nl + 1;
    size_t indent = 0;
    while (indent < line.size() && line[indent] == ' ') ++indent;
    if (st.blockScalar) {
      if (isBlank(line) || int(indent) > st.blockParentIndent) continue;
      st.blockScalar = false;
    }
    size_t pos = 0;
    long base = st.flowBase;
    if (st.flowDepth == 0 && st.quote == 0) {
      if (isBlank(line) || line[indent] == '#') continue;
      while (!st.indents.empty() && st.indents.back() >= int(indent)) st.indents.pop_back();
      st.indents.push_back(int(indent));
      base = 2 * long(st.indents.size()) + 1; // + 1: the line may hold a key
      pos = indent;
      // compact indicators: "- - x", "? - x", ": - x"
      while (pos < line.size() && (line[pos] == '-' || line[pos] == '?' || line[pos] == ':') &&
             (pos + 1 == line.size() || line[pos + 1] == ' ' || line[pos + 1] == '\r')) {
        ++base;
        ++pos;
        while (pos < line.size() && line[pos] == ' ') ++pos;
      }
      if (base > maxDepth) return YamlTooDeep{lineNo, long(pos) + 1, maxDepth};
    }
    size_t lastToken = std::string_view::npos;
    char prev = 0; // the previous non-blank character on this line (0: none yet)
    for (size_t i = pos; i < line.size(); ++i) {
      const char c = line[i];
      // A quote or bracket opens something only where a scalar may start: after an indicator (or at
      // the start); inside a plain scalar ("it's", "x[0") it is text.
      const bool scalarStart = prev == 0 || prev == ':' || prev == '-' || prev == '?' ||
                               (st.flowDepth > 0 && (prev == '[' || prev == '{' || prev == ','));
      const bool afterBlank = i == pos || line[i - 1] == ' ' || line[i - 1] == '\t' ||
                              (st.flowDepth > 0 && (prev == '[' || prev == '{' || prev == ','));
      if (st.quote == '\'') {
        if (c == '\'') {
          if (i + 1 < line.size() && line[i + 1] == '\'')
            ++i;
          else
            st.quote = 0;
        }
        continue;
      }
      if (st.quote == '"') {
        if (c == '\\')
          ++i;
        else if (c == '"')
          st.quote = 0;
        continue;
      }
      if (c == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) break;
      if (c == ' ' || c == '\t' || c == '\r') continue;
      lastToken = i;
      const bool opens = scalarStart && afterBlank;
      if ((c == '&' || c == '!') && opens) {
        // an anchor or tag ("&base [a]", "!!seq [a]"): what follows it may still open a collection
        while (i + 1 < line.size() && line[i + 1] != ' ' && line[i + 1] != '\t' &&
               !(st.flowDepth > 0 && (line[i + 1] == ',' || line[i + 1] == '[' || line[i + 1] == '{')))
          ++i;
        continue;
      }
      if ((c == '\'' || c == '"') && opens) {
        st.quote = c;
      } else if ((c == '[' || c == '{') && (opens || st.flowDepth > 0)) {
        if (st.flowDepth == 0) st.flowBase = base;
        ++st.flowDepth;
        if (st.flowBase + st.flowDepth > maxDepth) return YamlTooDeep{lineNo, long(i) + 1, maxDepth};
      } else if ((c == ']' || c == '}') && st.flowDepth > 0) {
        --st.flowDepth;
      }
      prev = c;
    }
    if (st.flowDepth == 0 && st.quote == 0 && endsWithBlockScalarHeader(line, lastToken)) {
      st.blockScalar = true;
      st.blockParentIndent = int(indent);
    }
    if (nl == text.size()) break;
  }
  return std::nullopt;
}

} // namespace maskscope::yaml
