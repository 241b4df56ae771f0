// PCRE2 wrapper: compile once, match from any thread with per-thread match data and JIT stack.
#define PCRE2_CODE_UNIT_WIDTH 8
#include "core/tokenizer/hf/Regex.h"

#include "core/util/Utf8.h"

#include <pcre2.h>
#include <stdexcept>

namespace maskscope::hf {
namespace {

// Per-thread matching state shared by every pattern: only the overall match is read, so match
// data with one pair suffices for any pattern.
struct ThreadMatchState {
  pcre2_match_data* data = pcre2_match_data_create(1, nullptr);
  pcre2_match_context* context = pcre2_match_context_create(nullptr);
  pcre2_jit_stack* stack = pcre2_jit_stack_create(64 * 1024, 8 * 1024 * 1024, nullptr);
  ThreadMatchState() {
    if (context && stack) pcre2_jit_stack_assign(context, nullptr, stack);
  }
  ~ThreadMatchState() {
    pcre2_match_data_free(data);
    pcre2_match_context_free(context);
    if (stack) pcre2_jit_stack_free(stack);
  }
};

ThreadMatchState& threadState() {
  thread_local ThreadMatchState state;
  return state;
}

} // namespace

Regex::Regex(const std::string& pattern) : pattern_(pattern) {
  int err = 0;
  PCRE2_SIZE errOffset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                   PCRE2_UTF | PCRE2_UCP | PCRE2_NO_UTF_CHECK, &err, &errOffset, nullptr);
  if (!code) {
    PCRE2_UCHAR buf[256];
    pcre2_get_error_message(err, buf, sizeof buf);
    throw std::invalid_argument("regex does not compile at offset " + std::to_string(errOffset) + ": " +
                                reinterpret_cast<const char*>(buf));
  }
  code_ = code;
  jit_ = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
}

Regex::~Regex() { pcre2_code_free(static_cast<pcre2_code*>(code_)); }

void Regex::forEachMatch(std::string_view text, const std::function<void(size_t, size_t)>& f) const {
  auto* code = static_cast<pcre2_code*>(code_);
  ThreadMatchState& st = threadState();
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t pos = 0;
  while (pos <= text.size()) {
    int rc = jit_ ? pcre2_jit_match(code, subject, text.size(), pos, 0, st.data, st.context)
                  : pcre2_match(code, subject, text.size(), pos, PCRE2_NO_UTF_CHECK, st.data, st.context);
    if (rc == PCRE2_ERROR_NOMATCH) return;
    if (rc < 0) {
      PCRE2_UCHAR buf[256];
      pcre2_get_error_message(rc, buf, sizeof buf);
      throw RegexMatchError("the pattern \"" + pattern_.substr(0, 80) + (pattern_.size() > 80 ? "..." : "") +
                            "\" gives up on this text: " + reinterpret_cast<const char*>(buf) +
                            " (catastrophic backtracking)");
    }
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(st.data);
    size_t b = ov[0], e = ov[1];
    if (e < b || e > text.size()) return; // \K tricks; not in tokenizer patterns
    f(b, e);
    if (e > pos)
      pos = e;
    else {
      if (pos >= text.size()) return;
      pos += size_t(utf8::sequenceLength(static_cast<unsigned char>(text[pos])));
    }
  }
}

std::string Regex::quote(std::string_view literal) {
  std::string out = "\\Q";
  for (size_t i = 0; i < literal.size(); ++i) {
    if (literal.compare(i, 2, "\\E") == 0) {
      out += "\\E\\\\E\\Q";
      ++i;
    } else
      out += literal[i];
  }
  return out + "\\E";
}

} // namespace maskscope::hf
