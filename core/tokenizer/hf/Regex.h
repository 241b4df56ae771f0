// A PCRE2 pattern compiled the way tokenizer.json patterns (written for Oniguruma) expect: UTF,
// Unicode properties for \s \w \d (UCP), JIT when available. Matching is const and thread-safe
// (match data and the JIT stack are per thread).
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace maskscope::hf {

// A match PCRE2 gave up on: its match or depth limit (catastrophic backtracking in a hostile
// pattern such as "(a+)+$"), or the JIT stack. The tokenizer turns it into an error naming its file.
class RegexMatchError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class Regex {
public:
  // Throws std::invalid_argument with PCRE2's message when the pattern does not compile.
  explicit Regex(const std::string& pattern);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  // Calls f(begin, end) for each successive non-overlapping match in text (valid UTF-8).
  // An empty match is reported and the search resumes one character later. Throws RegexMatchError
  // when PCRE2 gives up (PCRE2's default match limit: 10 million backtracking steps per search).
  void forEachMatch(std::string_view text, const std::function<void(size_t, size_t)>& f) const;
  // Escapes a literal string for use inside a pattern.
  static std::string quote(std::string_view literal);
  const std::string& pattern() const { return pattern_; }

private:
  std::string pattern_;
  void* code_ = nullptr; // pcre2_code_8*
  bool jit_ = false;
};

} // namespace maskscope::hf
