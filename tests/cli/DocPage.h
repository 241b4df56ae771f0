// Reads docs/cli.md as the doc-examples test needs it: the example files (```LANG file=NAME blocks),
// the runnable examples (```console blocks of `$ maskscope ...` lines, their shown output and
// `(exit status N)`), and the options each command's table documents.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace docpage {

struct DocFile {
  std::string name;
  std::string text;
};

struct DocExample {
  int line = 0;                  // 1-based line of the `$` in the page
  std::vector<std::string> args; // after `maskscope`
  std::vector<std::string> shownOutput;
  int status = 0; // (exit status N); 0 when the page shows none
};

struct DocOption {
  int line = 0;
  std::string command; // tokenize, render, ...
  std::string option;  // --tokenizer, ...
};

struct DocPage {
  std::vector<DocFile> files;
  std::vector<DocExample> examples;
  std::vector<DocOption> options;
};

// Throws std::runtime_error naming the line on a malformed example (unbalanced quotes, an
// unterminated fence, a `$` line that does not run maskscope).
DocPage parseDocPage(const std::string& markdown);

// POSIX-shell-like word splitting: '...' literal, "..." with \" and \\ escapes, \x outside quotes.
std::vector<std::string> splitShellWords(const std::string& text);

// True when every object key of shown is in actual with a matching value, arrays have the same
// length and match element by element, and numbers agree to 1e-9 relative. why names the first
// difference as a JSON path.
bool jsonShownMatches(const nlohmann::json& shown, const nlohmann::json& actual, std::string& why,
                      const std::string& path = "");

} // namespace docpage
