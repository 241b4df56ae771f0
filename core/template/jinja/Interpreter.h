// The tree-walking evaluator behind Template::render: scopes, statements, expressions and the
// limits. Python operator semantics are Operators.h; builtins (filters, tests, methods, globals) are
// Builtins.h and call back into it.
#pragma once
#include "core/template/jinja/Template.h"

#include <chrono>
#include <stdexcept>

namespace maskscope::jinja {

// What builtins throw; the interpreter adds the template location.
struct JinjaError : std::runtime_error {
  JinjaError(std::string kind, const std::string& message) : std::runtime_error(message), kind(std::move(kind)) {}
  std::string kind; // "UndefinedError", "TypeError", "SecurityError", "TemplateError", "LimitError"
};

[[noreturn]] void throwUndefined(const Value& v);

// Python's int(x) for a float, as far as 64 bits go: converting a double outside int64's range is
// undefined behaviour in C++, so such values (and NaN, infinities) raise OverflowError instead.
inline int64_t floatToInt(double d) {
  if (!(d > -9223372036854775808.0 && d < 9223372036854775808.0))
    throw JinjaError("OverflowError", "cannot convert float to a 64-bit integer");
  return int64_t(d);
}

struct Frame {
  explicit Frame(Frame* p) : parent(p) {}
  ~Frame() {
    if (alive) *alive = false;
  }
  Frame(const Frame&) = delete;
  Frame& operator=(const Frame&) = delete;
  Value* find(int sym) {
    for (Frame* f = this; f; f = f->parent)
      for (auto& v : f->vars)
        if (v.first == sym) return &v.second;
    return nullptr;
  }
  void set(int sym, Value v) {
    for (auto& e : vars)
      if (e.first == sym) {
        e.second = std::move(v);
        return;
      }
    vars.emplace_back(sym, std::move(v));
  }
  Frame* parent;
  std::vector<std::pair<int, Value>> vars;
  std::shared_ptr<bool> alive; // set when a macro closes over this frame
};

class Interpreter {
public:
  Interpreter(const Template& t, const RenderSettings& s);

  RenderOutput run(const Variables& variables);

  // Used by builtins.
  Value callValue(const Value& callee, CallArgs& args);
  Value getAttr(const Value& obj, const std::string& name);
  Value getItem(const Value& obj, const Value& key);
  Value applyFilter(const std::string& name, const Value& operand, CallArgs& args);
  bool applyTest(const std::string& name, const Value& operand, CallArgs& args);
  void tick(); // counts work against the time limit
  void countIterations(int64_t n);
  void checkStringSize(size_t bytes) const;
  const RenderSettings& settings() const { return settings_; }
  // Namespaces are the only mutable values, so only they can form reference cycles
  // ({% set ns.x = ns %}); every one made during the render is emptied when the render ends.
  void trackNamespace(std::shared_ptr<DictObj> ns) { namespaces_.push_back(std::move(ns)); }
  ~Interpreter();

private:
  std::vector<std::shared_ptr<DictObj>> namespaces_;
  enum class Flow { Normal, Break, Continue };
  Flow exec(const NodeList& body, Frame& f);
  Flow execNode(const Node* n, Frame& f);
  void execFor(const ForNode* n, Frame& f);
  void bindTarget(const Target& t, const Value& v, Frame& f);
  Value eval(const Node* n, Frame& f);
  Value evalCall(const CallNode* n, Frame& f);
  Value evalSlice(const SliceNode* s, Frame& f);
  Value evalCompare(const CompareNode* c, Frame& f);
  Value evalSign(const UnaryNode* u, Frame& f);
  void evalArgs(const Args& a, Frame& f, CallArgs& out);
  Value lookup(int sym, Frame& f);
  long findTracked(const Value& item);
  Value makeMacro(const MacroNode* m, Frame& f);
  Value callMacro(const MacroNode* m, Frame* closure, const std::shared_ptr<bool>& alive, CallArgs& args);
  std::string capture(const NodeList& body, Frame& f);
  void emit(const Value& v);
  [[noreturn]] void failAt(uint32_t pos, const std::string& kind, const std::string& msg) const;

  const Template& t_;
  const RenderSettings& settings_;
  std::string* out_ = nullptr;
  int captureDepth_ = 0;
  int callDepth_ = 0;
  int64_t iterations_ = 0;
  uint32_t ticks_ = 0;
  uint32_t pos_ = 0; // node being evaluated, for error locations
  std::chrono::steady_clock::time_point deadline_;
  std::vector<std::pair<int64_t, int64_t>> spans_;
  std::vector<std::pair<int64_t, int64_t>> tracked_;
  size_t trackHint_ = 0;
  const std::vector<Value>& globals_; // by symbol
  Frame* root_ = nullptr;
  int callerSym_ = -1, varargsSym_ = -1, kwargsSym_ = -1, loopSym_ = -1;
};

} // namespace maskscope::jinja
