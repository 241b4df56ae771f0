// A parsed Jinja template: parse once, render many times. Renders as transformers'
// ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True) with loopcontrols and the
// {% generation %} extension, within hard limits on time, output, loops and recursion.
#pragma once
#include "core/template/jinja/Ast.h"
#include "core/template/jinja/Parser.h"
#include "core/util/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace maskscope::jinja {

// A render stopped by a sandbox limit (time, loop iterations, output size, recursion, range size):
// the template's fault, not the conversation's, so callers that try several renders (probes,
// prefixes) stop at the first instead of paying the limit again for each.
class TemplateLimitError : public Error {
public:
  using Error::Error;
};

struct Limits {
  int64_t maxSourceBytes = int64_t(1) << 20;  // 1 MiB of template text
  int64_t maxOutputBytes = int64_t(16) << 20; // 16 MiB rendered (also caps any one string)
  int64_t maxLoopIterations = 1'000'000;      // over the whole render
  int maxCallDepth = 200;                     // nested macro calls (stacks: core/util/StackSizes.h)
  double maxSeconds = 1.0;                    // wall clock per render
};

struct RenderSettings {
  std::optional<std::string> now; // "YYYY-MM-DD" seen by strftime_now; local time when empty
  Limits limits;
  // Objects (message dicts) whose for-loop iterations to record in RenderOutput::trackedSpans.
  const std::vector<const void*>* trackedItems = nullptr;
};

struct RenderOutput {
  std::string text;
  // Byte ranges [begin, end) of what each {% generation %} block rendered, in order.
  std::vector<std::pair<int64_t, int64_t>> generationSpans;
  // Per tracked item: output bytes written by the first top-level loop iteration over it, {-1,-1} if none.
  std::vector<std::pair<int64_t, int64_t>> trackedSpans;
};

using Variables = std::vector<std::pair<std::string, Value>>;

class Template {
public:
  // Throws maskscope::Error with the template's name, line and column.
  static std::shared_ptr<const Template> parse(const std::string& source, const std::string& name,
                                               const Limits& limits = {});

  // Throws maskscope::Error (raise_exception, undefined access, limits, type errors).
  RenderOutput render(const Variables& variables, const RenderSettings& settings = {}) const;

  bool hasGeneration() const { return hasGeneration_; }
  const std::string& name() const { return name_; }
  const std::string& source() const { return source_; }
  const Symbols& symbols() const { return symbols_; }
  const NodeList& body() const { return body_; }
  SourceLocation location(uint32_t pos) const;
  // Builtin globals (range, namespace, ...) by symbol, Undefined where the name is not a builtin.
  const std::vector<Value>& globals() const { return globals_; }

private:
  std::vector<Value> globals_;
  std::string name_;
  std::string source_; // normalized
  std::vector<uint32_t> lineStarts_;
  Symbols symbols_;
  NodeList body_;
  bool hasGeneration_ = false;
};

} // namespace maskscope::jinja
