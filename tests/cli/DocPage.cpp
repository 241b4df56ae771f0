// Parsing of docs/cli.md for the doc-examples test (see DocPage.h).
#include "DocPage.h"

#include <cmath>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace docpage {

namespace {

std::runtime_error failAt(int line, const std::string& what) {
  return std::runtime_error("docs/cli.md:" + std::to_string(line) + ": " + what);
}

std::string trimRight(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

// A ```console block: `$ maskscope ...` lines (a trailing backslash continues the line), then the
// output the page shows, then optionally `(exit status N)`.
void parseConsole(const std::vector<std::string>& lines, int firstLine, std::vector<DocExample>& out) {
  static const std::regex statusLine("^\\(exit status ([0-9]+)\\)$");
  for (size_t i = 0; i < lines.size(); ++i) {
    const int lineNo = firstLine + int(i);
    if (!lines[i].starts_with("$ ")) {
      if (out.empty() || out.back().line < firstLine) throw failAt(lineNo, "console block does not start with `$ `");
      std::smatch m;
      if (std::regex_match(lines[i], m, statusLine))
        out.back().status = std::stoi(m[1].str());
      else if (!lines[i].empty())
        out.back().shownOutput.push_back(lines[i]);
      continue;
    }
    std::string command = lines[i].substr(2);
    while (!command.empty() && command.back() == '\\') {
      command.pop_back();
      if (++i >= lines.size()) throw failAt(lineNo, "continuation line missing");
      command += lines[i];
    }
    DocExample ex;
    ex.line = lineNo;
    ex.args = splitShellWords(command);
    if (ex.args.empty() || ex.args[0] != "maskscope") throw failAt(lineNo, "an example must run maskscope");
    ex.args.erase(ex.args.begin());
    out.push_back(std::move(ex));
  }
}

// Table rows of a command's section whose first cell names options: `--opt VALUE`, `--a`, `--b`.
void collectOptions(const std::string& line, int lineNo, const std::string& command, std::vector<DocOption>& out) {
  if (command.empty() || !line.starts_with("| `--")) return;
  const std::string firstCell = line.substr(1, line.find('|', 1) - 1);
  static const std::regex option("`(--[a-z][a-z-]*)");
  for (auto it = std::sregex_iterator(firstCell.begin(), firstCell.end(), option); it != std::sregex_iterator(); ++it)
    out.push_back({lineNo, command, (*it)[1].str()});
}

} // namespace

std::vector<std::string> splitShellWords(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  bool inWord = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t') {
      if (inWord) words.push_back(word);
      word.clear();
      inWord = false;
      continue;
    }
    inWord = true;
    if (c == '\'') {
      const size_t end = text.find('\'', i + 1);
      if (end == std::string::npos) throw std::runtime_error("unbalanced ' in: " + text);
      word += text.substr(i + 1, end - i - 1);
      i = end;
    } else if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == '"' || text[i + 1] == '\\')) ++i;
        word += text[i];
      }
      if (i >= text.size()) throw std::runtime_error("unbalanced \" in: " + text);
    } else if (c == '\\' && i + 1 < text.size()) {
      word += text[++i];
    } else {
      word += c;
    }
  }
  if (inWord) words.push_back(word);
  return words;
}

DocPage parseDocPage(const std::string& markdown) {
  DocPage page;
  std::istringstream in(markdown);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(trimRight(l));
  static const std::regex commandHeading("^## `maskscope ([a-z-]+)`$");
  static const std::regex fileInfo("^```[a-z]* file=([A-Za-z0-9._-]+)$");
  std::string section; // the command whose section we are in
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    std::smatch m;
    if (line.starts_with("## ")) section = std::regex_match(line, m, commandHeading) ? m[1].str() : std::string();
    collectOptions(line, int(i) + 1, section, page.options);
    if (!line.starts_with("```")) continue;
    const size_t open = i;
    std::vector<std::string> body;
    for (++i; i < lines.size() && lines[i] != "```"; ++i) body.push_back(lines[i]);
    if (i >= lines.size()) throw failAt(int(open) + 1, "unterminated ``` block");
    if (lines[open] == "```console") {
      parseConsole(body, int(open) + 2, page.examples);
    } else if (std::regex_match(lines[open], m, fileInfo)) {
      std::string text;
      for (const auto& b : body) text += b + "\n";
      page.files.push_back({m[1].str(), text});
    }
  }
  return page;
}

bool jsonShownMatches(const nlohmann::json& shown, const nlohmann::json& actual, std::string& why,
                      const std::string& path) {
  const std::string at = path.empty() ? "(top)" : path;
  if (shown.is_object()) {
    if (!actual.is_object()) return why = at + ": not an object", false;
    for (auto it = shown.begin(); it != shown.end(); ++it) {
      if (!actual.contains(it.key())) return why = path + "." + it.key() + ": missing", false;
      if (!jsonShownMatches(it.value(), actual[it.key()], why, path + "." + it.key())) return false;
    }
    return true;
  }
  if (shown.is_array()) {
    if (!actual.is_array() || actual.size() != shown.size())
      return why = at + ": expected a list of " + std::to_string(shown.size()) + ", got " + actual.dump(), false;
    for (size_t k = 0; k < shown.size(); ++k)
      if (!jsonShownMatches(shown[k], actual[k], why, path + "[" + std::to_string(k) + "]")) return false;
    return true;
  }
  if (shown.is_number() && actual.is_number()) {
    const double a = shown.get<double>(), b = actual.get<double>();
    if (std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(a))) return true;
  } else if (shown == actual) {
    return true;
  }
  return why = at + ": page shows " + shown.dump() + ", binary gives " + actual.dump(), false;
}

} // namespace docpage
