// Statement execution and expression evaluation with jinja2's scoping: for-loop bodies get a fresh
// scope per iteration, if-blocks share their parent's, macros close over the scope they were
// defined in (falling back to the template's top level if that scope is gone).
#include "core/template/jinja/Interpreter.h"
#include "core/template/jinja/Builtins.h"
#include "core/template/jinja/Operators.h"
#include "core/template/jinja/PyString.h"

#include <cmath>

namespace maskscope::jinja {

void throwUndefined(const Value& v) {
  const UndefinedObj* u = v.undefinedObj();
  if (u && u->security) throw JinjaError("SecurityError", u->hint);
  throw JinjaError("UndefinedError", u && !u->hint.empty() ? u->hint : std::string("value is undefined"));
}

Interpreter::Interpreter(const Template& t, const RenderSettings& s) : t_(t), settings_(s), globals_(t.globals()) {
  const Symbols& sy = t.symbols();
  callerSym_ = sy.find("caller");
  varargsSym_ = sy.find("varargs");
  kwargsSym_ = sy.find("kwargs");
  loopSym_ = sy.find("loop");
}

RenderOutput Interpreter::run(const Variables& variables) {
  RenderOutput result;
  out_ = &result.text;
  deadline_ = std::chrono::steady_clock::now() + std::chrono::microseconds(int64_t(settings_.limits.maxSeconds * 1e6));
  Frame root(nullptr);
  root_ = &root;
  if (settings_.trackedItems) tracked_.assign(settings_.trackedItems->size(), {-1, -1});
  for (const auto& [name, value] : variables) {
    int sym = t_.symbols().find(name);
    if (sym >= 0) root.set(sym, value);
  }
  try {
    exec(t_.body(), root);
  } catch (const JinjaError& e) {
    failAt(pos_, e.kind, e.what());
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) { // anything else a builtin let through still gets a location
    failAt(pos_, "RuntimeError", e.what());
  }
  root_ = nullptr;
  result.generationSpans = std::move(spans_);
  result.trackedSpans = std::move(tracked_);
  return result;
}

void Interpreter::failAt(uint32_t pos, const std::string& kind, const std::string& msg) const {
  SourceLocation loc = t_.location(pos);
  if (kind == "TemplateError") throw Error(msg, loc); // raise_exception: the template's own words
  if (kind == "LimitError" || kind == "OverflowError") throw TemplateLimitError(kind + ": " + msg, loc);
  throw Error(kind + ": " + msg, loc);
}

void Interpreter::tick() {
  if ((++ticks_ & 63) == 0 && std::chrono::steady_clock::now() > deadline_) {
    char b[64];
    std::snprintf(b, sizeof b, "%.3g", settings_.limits.maxSeconds);
    throw JinjaError("LimitError", std::string("template took longer than ") + b + " s to render");
  }
}

void Interpreter::countIterations(int64_t n) {
  iterations_ += n;
  if (iterations_ > settings_.limits.maxLoopIterations)
    throw JinjaError("LimitError", "template ran more than " + std::to_string(settings_.limits.maxLoopIterations) +
                                       " loop iterations");
  tick();
}

void Interpreter::checkStringSize(size_t bytes) const {
  if (int64_t(bytes) > settings_.limits.maxOutputBytes)
    throw JinjaError("LimitError", "string of " + std::to_string(bytes) + " bytes exceeds the output limit of " +
                                       std::to_string(settings_.limits.maxOutputBytes) + " bytes");
}

void Interpreter::emit(const Value& v) {
  v.appendStr(*out_);
  if (int64_t(out_->size()) > settings_.limits.maxOutputBytes)
    throw JinjaError("LimitError", "rendered output exceeds the limit of " +
                                       std::to_string(settings_.limits.maxOutputBytes) + " bytes");
}

std::string Interpreter::capture(const NodeList& body, Frame& f) {
  std::string buf;
  std::string* saved = out_;
  out_ = &buf;
  ++captureDepth_;
  try {
    exec(body, f);
  } catch (...) {
    out_ = saved;
    --captureDepth_;
    throw;
  }
  out_ = saved;
  --captureDepth_;
  return buf;
}

Interpreter::Flow Interpreter::exec(const NodeList& body, Frame& f) {
  for (const auto& n : body) {
    Flow fl = execNode(n.get(), f);
    if (fl != Flow::Normal) return fl;
  }
  return Flow::Normal;
}

Interpreter::Flow Interpreter::execNode(const Node* n, Frame& f) {
  switch (n->kind) {
  case NodeKind::Output: {
    const auto* o = static_cast<const OutputNode*>(n);
    out_->append(o->text);
    if (int64_t(out_->size()) > settings_.limits.maxOutputBytes) {
      pos_ = n->pos;
      throw JinjaError("LimitError", "rendered output exceeds the limit of " +
                                         std::to_string(settings_.limits.maxOutputBytes) + " bytes");
    }
    return Flow::Normal;
  }
  case NodeKind::Emit: {
    Value v = eval(static_cast<const EmitNode*>(n)->expr.get(), f);
    pos_ = n->pos;
    emit(v);
    return Flow::Normal;
  }
  case NodeKind::If: {
    for (const auto& [test, body] : static_cast<const IfNode*>(n)->branches) {
      if (!test || eval(test.get(), f).truthy()) return exec(body, f);
    }
    return Flow::Normal;
  }
  case NodeKind::For:
    execFor(static_cast<const ForNode*>(n), f);
    return Flow::Normal;
  case NodeKind::Set: {
    const auto* s = static_cast<const SetNode*>(n);
    Value v = eval(s->value.get(), f);
    pos_ = n->pos;
    bindTarget(s->target, v, f);
    return Flow::Normal;
  }
  case NodeKind::SetBlock: {
    const auto* s = static_cast<const SetBlockNode*>(n);
    Value v = Value::string(capture(s->body, f));
    for (const auto& flt : s->filters) {
      CallArgs args;
      evalArgs(flt->args, f, args);
      pos_ = flt->pos;
      v = applyFilter(flt->name, v, args);
    }
    pos_ = n->pos;
    bindTarget(s->target, v, f);
    return Flow::Normal;
  }
  case NodeKind::Macro: {
    const auto* m = static_cast<const MacroNode*>(n);
    f.set(m->sym, makeMacro(m, f));
    return Flow::Normal;
  }
  case NodeKind::CallBlock: {
    const auto* c = static_cast<const CallBlockNode*>(n);
    Value caller = makeMacro(c->caller.get(), f);
    Value callee = eval(c->call->callee.get(), f);
    CallArgs args;
    evalArgs(c->call->args, f, args);
    args.named.emplace_back("caller", caller);
    pos_ = n->pos;
    emit(callValue(callee, args));
    return Flow::Normal;
  }
  case NodeKind::FilterBlock: {
    const auto* fb = static_cast<const FilterBlockNode*>(n);
    Value v = Value::string(capture(fb->body, f));
    for (const auto& flt : fb->filters) {
      CallArgs args;
      evalArgs(flt->args, f, args);
      pos_ = flt->pos;
      v = applyFilter(flt->name, v, args);
    }
    emit(v);
    return Flow::Normal;
  }
  case NodeKind::Generation: {
    // transformers' AssistantTracker: the span of what the block rendered in the final output.
    const auto* g = static_cast<const GenerationNode*>(n);
    int64_t begin = int64_t(out_->size());
    Flow fl = exec(g->body, f);
    if (captureDepth_ == 0) spans_.emplace_back(begin, int64_t(out_->size()));
    return fl;
  }
  case NodeKind::Break:
    return Flow::Break;
  case NodeKind::Continue:
    return Flow::Continue;
  default: {
    Value v = eval(n, f);
    (void)v;
    return Flow::Normal;
  }
  }
}

Interpreter::~Interpreter() {
  for (auto& ns : namespaces_) {
    std::vector<std::pair<std::string, Value>> entries = std::move(ns->entries);
    ns->entries.clear();
    Value::releaseNested(entries);
  }
}

void Interpreter::bindTarget(const Target& t, const Value& v, Frame& f) {
  if (!t.attr.empty()) {
    Value* ns = f.find(t.names[0]);
    if (!ns || ns->type() != Type::Namespace)
      throw JinjaError("TemplateRuntimeError", "cannot assign attribute on non-namespace object");
    ns->mutableDict().set(t.attr, v);
    return;
  }
  if (!t.tuple) {
    f.set(t.names[0], v);
    return;
  }
  std::vector<Value> items = iterate(v);
  if (items.size() != t.names.size())
    throw JinjaError("ValueError", items.size() > t.names.size()
                                       ? "too many values to unpack (expected " + std::to_string(t.names.size()) + ")"
                                       : "not enough values to unpack (expected " + std::to_string(t.names.size()) +
                                             ", got " + std::to_string(items.size()) + ")");
  for (size_t i = 0; i < items.size(); ++i) f.set(t.names[i], items[i]);
}

void Interpreter::execFor(const ForNode* n, Frame& f) {
  Value seq = eval(n->iter.get(), f);
  pos_ = n->iter->pos;
  if (n->recursive) throw JinjaError("TemplateError", "recursive loops are not supported");
  // Lists are iterated in place (no copy); other iterables are materialized.
  std::vector<Value> owned;
  const std::vector<Value>* items;
  if (seq.isList())
    items = &seq.listObj().items;
  else {
    owned = iterate(seq);
    items = &owned;
  }
  std::vector<Value> filtered;
  if (n->filter) {
    for (const auto& item : *items) {
      countIterations(1);
      Frame tf(&f);
      bindTarget(n->target, item, tf);
      if (eval(n->filter.get(), tf).truthy()) filtered.push_back(item);
    }
    items = &filtered;
  }
  if (items->empty()) {
    exec(n->elseBody, f);
    return;
  }
  auto loop = std::make_shared<LoopObj>();
  loop->items = items;
  Value loopValue = Value::loop(loop);
  for (size_t i = 0; i < items->size(); ++i) {
    countIterations(1);
    loop->index0 = int64_t(i);
    Frame body(&f);
    body.vars.reserve(4);
    pos_ = n->pos;
    bindTarget(n->target, (*items)[i], body);
    if (loopSym_ >= 0) body.set(loopSym_, loopValue);
    long tracked = -1;
    const int64_t begin = int64_t(out_->size());
    if (settings_.trackedItems && captureDepth_ == 0) tracked = findTracked((*items)[i]);
    Flow fl = exec(n->body, body);
    // The first iteration over the item that printed something (Qwen3 first walks the messages
    // backwards printing nothing); an empty one is kept only until a printing one comes.
    if (tracked >= 0) {
      auto& span = tracked_[size_t(tracked)];
      if (span.first < 0 || (span.first == span.second && int64_t(out_->size()) > begin))
        span = {begin, int64_t(out_->size())};
    }
    if (fl == Flow::Break) break;
  }
  loop->items = nullptr; // the vector dies with this call; a kept `loop` reads as empty
}

long Interpreter::findTracked(const Value& item) {
  const void* p = item.object().get();
  if (!p) return -1;
  const auto& t = *settings_.trackedItems;
  // messages are usually visited in order: try the one after the last hit first
  for (size_t k = 0; k < t.size(); ++k) {
    size_t j = (trackHint_ + k) % t.size();
    if (t[j] == p) {
      trackHint_ = j + 1;
      return long(j);
    }
  }
  return -1;
}

Value Interpreter::lookup(int sym, Frame& f) {
  if (Value* v = f.find(sym)) return *v;
  if (!globals_[size_t(sym)].isUndefined()) return globals_[size_t(sym)];
  return Value::undefined("'" + t_.symbols().names[size_t(sym)] + "' is undefined");
}

Value Interpreter::makeMacro(const MacroNode* m, Frame& f) {
  if (!f.alive) f.alive = std::make_shared<bool>(true);
  auto c = std::make_shared<CallableObj>();
  c->name = m->name;
  Frame* closure = &f;
  std::shared_ptr<bool> alive = f.alive;
  c->fn = [this, m, closure, alive](Interpreter&, CallArgs& args) { return callMacro(m, closure, alive, args); };
  return Value::callable(std::move(c));
}

Value Interpreter::callMacro(const MacroNode* m, Frame* closure, const std::shared_ptr<bool>& alive, CallArgs& args) {
  if (callDepth_ >= settings_.limits.maxCallDepth)
    throw JinjaError("LimitError", "macro calls nested more than " + std::to_string(settings_.limits.maxCallDepth) +
                                       " deep (runaway recursion?)");
  tick();
  Frame frame((alive && *alive) ? closure : root_);
  const size_t np = m->params.size();
  std::vector<bool> bound(np, false);
  std::vector<Value> extra;
  for (size_t i = 0; i < args.positional.size(); ++i) {
    if (i < np) {
      frame.set(m->params[i], args.positional[i]);
      bound[i] = true;
    } else {
      extra.push_back(args.positional[i]);
    }
  }
  auto kw = std::make_shared<DictObj>();
  for (auto& [name, value] : args.named) {
    if (name == "caller") {
      if (callerSym_ >= 0) frame.set(callerSym_, value);
      continue;
    }
    bool found = false;
    for (size_t i = 0; i < np; ++i) {
      if (t_.symbols().names[size_t(m->params[i])] == name) {
        frame.set(m->params[i], value);
        bound[i] = true;
        found = true;
        break;
      }
    }
    if (!found) kw->set(name, value);
  }
  const size_t firstDefault = np - m->defaults.size();
  for (size_t i = 0; i < np; ++i) {
    if (bound[i]) continue;
    if (i >= firstDefault)
      frame.set(m->params[i], eval(m->defaults[i - firstDefault].get(), frame));
    else
      frame.set(m->params[i],
                Value::undefined("parameter '" + t_.symbols().names[size_t(m->params[i])] + "' was not provided"));
  }
  if (varargsSym_ >= 0) frame.set(varargsSym_, Value::list(std::move(extra)));
  if (kwargsSym_ >= 0) frame.set(kwargsSym_, Value::dict(kw));
  ++callDepth_;
  std::string text;
  try {
    text = capture(m->body, frame);
  } catch (...) {
    --callDepth_;
    throw;
  }
  --callDepth_;
  return Value::string(std::move(text));
}

void Interpreter::evalArgs(const Args& a, Frame& f, CallArgs& out) {
  out.positional.reserve(a.positional.size());
  for (const auto& p : a.positional) out.positional.push_back(eval(p.get(), f));
  for (const auto& [name, e] : a.named) out.named.emplace_back(name, eval(e.get(), f));
}

Value Interpreter::callValue(const Value& callee, CallArgs& args) {
  switch (callee.type()) {
  case Type::Callable:
    return callee.callableObj().fn(*this, args);
  case Type::Undefined:
    throwUndefined(callee);
  default:
    throw JinjaError("TypeError", "'" + callee.typeName() + "' object is not callable");
  }
}

Value Interpreter::evalCall(const CallNode* n, Frame& f) {
  if (n->callee->kind == NodeKind::GetAttr) {
    const auto* ga = static_cast<const GetAttrNode*>(n->callee.get());
    Value obj = eval(ga->obj.get(), f);
    CallArgs args;
    evalArgs(n->args, f, args);
    pos_ = n->pos;
    Value result;
    if (callMethod(*this, obj, ga->attr, args, result)) return result;
    return callValue(getAttr(obj, ga->attr), args);
  }
  Value callee = eval(n->callee.get(), f);
  CallArgs args;
  evalArgs(n->args, f, args);
  pos_ = n->pos;
  return callValue(callee, args);
}

Value Interpreter::getAttr(const Value& obj, const std::string& name) {
  switch (obj.type()) {
  case Type::Undefined:
    throwUndefined(obj);
  case Type::Dict: {
    Value m = boundMethod(obj, name);
    if (!m.isUndefined() || m.undefinedObj()) return m;
    if (const Value* v = obj.dictObj().find(name)) return *v;
    return Value::undefined("'dict object' has no attribute '" + name + "'");
  }
  case Type::Namespace: {
    if (const Value* v = obj.dictObj().find(name)) return *v;
    return Value::undefined("'Namespace' object has no attribute '" + name + "'");
  }
  case Type::Loop: {
    const LoopObj& l = obj.loopObj();
    const int64_t len = l.items ? int64_t(l.items->size()) : 0;
    const int64_t i = l.index0;
    if (name == "index") return Value::integer(i + 1);
    if (name == "index0") return Value::integer(i);
    if (name == "first") return Value::boolean(i == 0);
    if (name == "last") return Value::boolean(i == len - 1);
    if (name == "length") return Value::integer(len);
    if (name == "revindex") return Value::integer(len - i);
    if (name == "revindex0") return Value::integer(len - i - 1);
    if (name == "depth") return Value::integer(l.depth0 + 1);
    if (name == "depth0") return Value::integer(l.depth0);
    if (name == "previtem")
      return i > 0 && l.items ? (*l.items)[size_t(i - 1)] : Value::undefined("there is no previous item");
    if (name == "nextitem")
      return i + 1 < len && l.items ? (*l.items)[size_t(i + 1)] : Value::undefined("there is no next item");
    if (name == "cycle") {
      auto c = std::make_shared<CallableObj>();
      c->name = "cycle";
      c->fn = [i](Interpreter&, CallArgs& a) -> Value {
        if (a.positional.empty()) throw JinjaError("TypeError", "no items for cycling given");
        return a.positional[size_t(i) % a.positional.size()];
      };
      return Value::callable(std::move(c));
    }
    return Value::undefined("'LoopContext' object has no attribute '" + name + "'");
  }
  case Type::None:
    return Value::undefined("'None' has no attribute '" + name + "'");
  default: {
    if (!name.empty() && name[0] == '_')
      return Value::unsafe("access to attribute '" + name + "' of '" + obj.typeName() + "' object is unsafe.");
    Value m = boundMethod(obj, name);
    if (!m.isUndefined() || m.undefinedObj()) return m;
    return Value::undefined("'" + obj.typeName() + " object' has no attribute '" + name + "'");
  }
  }
}

Value Interpreter::getItem(const Value& obj, const Value& key) {
  switch (obj.type()) {
  case Type::Undefined:
    throwUndefined(obj);
  case Type::Dict:
  case Type::Namespace:
    if (key.isString()) {
      if (obj.type() == Type::Dict) {
        if (const Value* v = obj.dictObj().find(key.str())) return *v;
        Value m = boundMethod(obj, key.str());
        if (!m.isUndefined()) return m;
        return Value::undefined("'dict object' has no attribute '" + key.str() + "'");
      }
      return getAttr(obj, key.str());
    }
    return Value::undefined("'dict object' has no attribute '" + key.toStr() + "'");
  case Type::List:
    if (key.type() == Type::Int || key.type() == Type::Bool) {
      const auto& items = obj.listObj().items;
      int64_t i = key.asInt();
      if (i < 0) i += int64_t(items.size());
      if (i < 0 || i >= int64_t(items.size()))
        return Value::undefined(obj.typeName() + " object has no element " + key.toStr());
      return items[size_t(i)];
    }
    if (key.isString()) return getAttr(obj, key.str());
    throw JinjaError("TypeError", "list indices must be integers or slices, not " + key.typeName());
  case Type::String:
    if (key.type() == Type::Int || key.type() == Type::Bool) {
      const std::string& s = obj.str();
      int64_t i = key.asInt();
      if (py::isAscii(s)) {
        if (i < 0) i += int64_t(s.size());
        if (i < 0 || i >= int64_t(s.size())) return Value::undefined("string index out of range");
        return Value::string(std::string(1, s[size_t(i)]));
      }
      auto off = py::codePointOffsets(s);
      int64_t n = int64_t(off.size()) - 1;
      if (i < 0) i += n;
      if (i < 0 || i >= n) return Value::undefined("string index out of range");
      return Value::string(s.substr(off[size_t(i)], off[size_t(i) + 1] - off[size_t(i)]));
    }
    if (key.isString()) return getAttr(obj, key.str());
    throw JinjaError("TypeError", "string indices must be integers");
  case Type::Loop:
    if (key.isString()) return getAttr(obj, key.str());
    [[fallthrough]];
  default:
    return Value::undefined("'" + obj.typeName() + "' object is not subscriptable");
  }
}

namespace {

// Python slice index normalization (slice.indices).
void sliceIndices(int64_t len, const Value& start, const Value& stop, const Value& step, int64_t& b, int64_t& e,
                  int64_t& st) {
  auto asIndex = [](const Value& v, const char* what) -> std::optional<int64_t> {
    if (v.isUndefined() || v.isNone()) return std::nullopt;
    if (v.type() != Type::Int && v.type() != Type::Bool)
      throw JinjaError("TypeError", std::string("slice ") + what + " must be an integer or None");
    return v.asInt();
  };
  auto s = asIndex(step, "step");
  st = s.value_or(1);
  if (st == 0) throw JinjaError("ValueError", "slice step cannot be zero");
  auto clamp = [&](std::optional<int64_t> v, int64_t def) -> int64_t {
    if (!v) return def;
    int64_t x = *v;
    if (x < 0) {
      x += len;
      if (x < 0) x = st < 0 ? -1 : 0;
    } else if (x >= len) {
      x = st < 0 ? len - 1 : len;
    }
    return x;
  };
  b = clamp(asIndex(start, "start"), st < 0 ? len - 1 : 0);
  e = clamp(asIndex(stop, "stop"), st < 0 ? -1 : len);
}

} // namespace

// obj[start:stop:step] on a list, tuple or string (strings slice by code point, as Python does).
Value Interpreter::evalSlice(const SliceNode* s, Frame& f) {
  Value obj = eval(s->obj.get(), f);
  Value start = s->start ? eval(s->start.get(), f) : Value::none();
  Value stop = s->stop ? eval(s->stop.get(), f) : Value::none();
  Value step = s->step ? eval(s->step.get(), f) : Value::none();
  pos_ = s->pos;
  if (obj.isUndefined()) throwUndefined(obj);
  int64_t b, e, st;
  if (obj.isList()) {
    const auto& items = obj.listObj().items;
    sliceIndices(int64_t(items.size()), start, stop, step, b, e, st);
    auto l = std::make_shared<ListObj>();
    l->tuple = obj.listObj().tuple;
    for (int64_t i = b; st > 0 ? i < e : i > e; i += st) l->items.push_back(items[size_t(i)]);
    return Value::list(std::move(l));
  }
  if (obj.isString()) {
    const std::string& str = obj.str();
    std::string r;
    if (py::isAscii(str)) {
      sliceIndices(int64_t(str.size()), start, stop, step, b, e, st);
      if (st == 1) return Value::string(b < e ? str.substr(size_t(b), size_t(e - b)) : std::string());
      for (int64_t i = b; st > 0 ? i < e : i > e; i += st) r.push_back(str[size_t(i)]);
      return Value::string(std::move(r));
    }
    auto off = py::codePointOffsets(str);
    sliceIndices(int64_t(off.size()) - 1, start, stop, step, b, e, st);
    for (int64_t i = b; st > 0 ? i < e : i > e; i += st)
      r.append(str, off[size_t(i)], off[size_t(i) + 1] - off[size_t(i)]);
    return Value::string(std::move(r));
  }
  throw JinjaError("TypeError", "'" + obj.typeName() + "' object is not subscriptable");
}

// a < b <= c ...: Python's chained comparison, stopping at the first false link.
Value Interpreter::evalCompare(const CompareNode* c, Frame& f) {
  Value left = eval(c->first.get(), f);
  for (const auto& [op, expr] : c->rest) {
    Value right = eval(expr.get(), f);
    pos_ = c->pos;
    bool ok;
    switch (op) {
    case CmpOp::Eq:
      ok = pyEquals(left, right);
      break;
    case CmpOp::Ne:
      ok = !pyEquals(left, right);
      break;
    case CmpOp::Lt:
      ok = pyCompare(left, right, "<") < 0;
      break;
    case CmpOp::Le:
      ok = pyCompare(left, right, "<=") <= 0;
      break;
    case CmpOp::Gt:
      ok = pyCompare(left, right, ">") > 0;
      break;
    case CmpOp::Ge:
      ok = pyCompare(left, right, ">=") >= 0;
      break;
    case CmpOp::In:
      ok = pyContains(right, left);
      break;
    case CmpOp::NotIn:
      ok = !pyContains(right, left);
      break;
    default:
      ok = false;
    }
    if (!ok) return Value::boolean(false);
    left = std::move(right);
  }
  return Value::boolean(true);
}

// Unary minus and plus.
Value Interpreter::evalSign(const UnaryNode* u, Frame& f) {
  Value v = eval(u->operand.get(), f);
  pos_ = u->pos;
  if (v.isUndefined()) throwUndefined(v);
  if (!v.isNumber())
    throw JinjaError("TypeError", std::string("bad operand type for unary ") + (u->kind == NodeKind::Neg ? "-" : "+") +
                                      ": '" + v.typeName() + "'");
  if (u->kind == NodeKind::Pos) return v.type() == Type::Bool ? Value::integer(v.asInt()) : v;
  if (v.type() == Type::Float) return Value::real(-v.asFloat());
  if (v.asInt() == std::numeric_limits<int64_t>::min()) throw JinjaError("LimitError", "integer overflow");
  return Value::integer(-v.asInt());
}

Value Interpreter::eval(const Node* n, Frame& f) {
  switch (n->kind) {
  case NodeKind::Literal:
    return static_cast<const LiteralNode*>(n)->value;
  case NodeKind::Name:
    return lookup(static_cast<const NameNode*>(n)->sym, f);
  case NodeKind::GetAttr: {
    const auto* g = static_cast<const GetAttrNode*>(n);
    Value obj = eval(g->obj.get(), f);
    pos_ = n->pos;
    return getAttr(obj, g->attr);
  }
  case NodeKind::GetItem: {
    const auto* g = static_cast<const GetItemNode*>(n);
    Value obj = eval(g->obj.get(), f);
    Value key = eval(g->index.get(), f);
    pos_ = n->pos;
    return getItem(obj, key);
  }
  case NodeKind::Slice:
    return evalSlice(static_cast<const SliceNode*>(n), f);
  case NodeKind::Call:
    return evalCall(static_cast<const CallNode*>(n), f);
  case NodeKind::Filter: {
    const auto* fl = static_cast<const FilterNode*>(n);
    Value v = eval(fl->operand.get(), f);
    CallArgs args;
    evalArgs(fl->args, f, args);
    pos_ = n->pos;
    return applyFilter(fl->name, v, args);
  }
  case NodeKind::Test: {
    const auto* fl = static_cast<const FilterNode*>(n);
    Value v = eval(fl->operand.get(), f);
    CallArgs args;
    evalArgs(fl->args, f, args);
    pos_ = n->pos;
    bool r = applyTest(fl->name, v, args);
    return Value::boolean(fl->negated ? !r : r);
  }
  case NodeKind::Neg:
  case NodeKind::Pos:
    return evalSign(static_cast<const UnaryNode*>(n), f);
  case NodeKind::Not:
    return Value::boolean(!eval(static_cast<const UnaryNode*>(n)->operand.get(), f).truthy());
  case NodeKind::Binary: {
    const auto* b = static_cast<const BinaryNode*>(n);
    Value l = eval(b->left.get(), f);
    Value r = eval(b->right.get(), f);
    pos_ = n->pos;
    return pyBinary(*this, b->op, l, r);
  }
  case NodeKind::Compare:
    return evalCompare(static_cast<const CompareNode*>(n), f);
  case NodeKind::And: {
    const auto* l = static_cast<const LogicNode*>(n);
    Value a = eval(l->left.get(), f);
    if (!a.truthy()) return a;
    return eval(l->right.get(), f);
  }
  case NodeKind::Or: {
    const auto* l = static_cast<const LogicNode*>(n);
    Value a = eval(l->left.get(), f);
    if (a.truthy()) return a;
    return eval(l->right.get(), f);
  }
  case NodeKind::CondExpr: {
    const auto* c = static_cast<const CondExprNode*>(n);
    if (eval(c->test.get(), f).truthy()) return eval(c->then.get(), f);
    if (c->otherwise) return eval(c->otherwise.get(), f);
    return Value::undefined("the inline if-expression evaluated to false and no else section was defined");
  }
  case NodeKind::ListLit:
  case NodeKind::TupleLit: {
    const auto* s = static_cast<const SeqLitNode*>(n);
    auto l = std::make_shared<ListObj>();
    l->tuple = n->kind == NodeKind::TupleLit;
    l->items.reserve(s->items.size());
    for (const auto& e : s->items) l->items.push_back(eval(e.get(), f));
    return Value::list(std::move(l));
  }
  case NodeKind::DictLit: {
    const auto* d = static_cast<const DictLitNode*>(n);
    auto obj = std::make_shared<DictObj>();
    for (const auto& [k, v] : d->items) {
      Value key = eval(k.get(), f);
      pos_ = k->pos;
      if (!key.isString()) throw JinjaError("TypeError", "only string keys are supported in dict literals");
      obj->set(key.str(), eval(v.get(), f));
    }
    return Value::dict(std::move(obj));
  }
  default:
    throw JinjaError("TemplateError", "statement used as an expression");
  }
}

Value Interpreter::applyFilter(const std::string& name, const Value& operand, CallArgs& args) {
  tick();
  return filterValue(*this, name, operand, args);
}

bool Interpreter::applyTest(const std::string& name, const Value& operand, CallArgs& args) {
  return testValue(*this, name, operand, args);
}

} // namespace maskscope::jinja
