// How markers are placed. Inside every for-loop over messages (a loop whose body reads
// `<var>.content`), outputs are scanned in template order with a two-state machine: idle until an
// output operand reads the content (a `content` attribute, item or variable, or anything printed in
// a loop over the content), then "in reply" until an operand prints the closing token (a string
// literal holding it, or `eos_token`). Each touched output `{{ a + b + content + '<|im_end|>\n' }}`
// becomes `{{ '' }}{% if var['role'] == 'assistant' %}{{ a + b }}{% generation %}{{ content +
// '<|im_end|>' }}{% endgeneration %}{{ '\n' }}{% else %}{{ original }}{% endif %}{{ '' }}`, keeping
// the original whitespace control on the outer `{{`/`}}`. A reply that spans several outputs gets
// several adjacent generation blocks. Branches of an if that test the role against other roles only
// are skipped; branches that only raise are ignored; branches that disagree leave the reply open.
// A literal just before the content that opens a <think> block is cut so the reasoning block is part
// of the reply. A turn built in a variable (`{% set X = header + content + closing %}` ... `{{ X }}`,
// with only `set X = bos + X` in between) is split into X and maskscope_reply for the assistant.
#include "core/template/TrainingTemplateMarkers.h"

#include "core/template/jinja/Lexer.h"
#include "core/util/Error.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

namespace maskscope {

namespace {

using namespace jinja;

enum class State { Idle, InReply };

void forEachChild(const Node* n, const std::function<void(const Node*)>& f) {
  auto args = [&](const Args& a) {
    for (const auto& p : a.positional) f(p.get());
    for (const auto& p : a.named) f(p.second.get());
  };
  switch (n->kind) {
  case NodeKind::GetAttr:
    f(static_cast<const GetAttrNode*>(n)->obj.get());
    break;
  case NodeKind::GetItem:
    f(static_cast<const GetItemNode*>(n)->obj.get());
    f(static_cast<const GetItemNode*>(n)->index.get());
    break;
  case NodeKind::Slice: {
    const auto* s = static_cast<const SliceNode*>(n);
    for (const Node* c : {s->obj.get(), s->start.get(), s->stop.get(), s->step.get()})
      if (c) f(c);
    break;
  }
  case NodeKind::Call:
    f(static_cast<const CallNode*>(n)->callee.get());
    args(static_cast<const CallNode*>(n)->args);
    break;
  case NodeKind::Filter:
  case NodeKind::Test:
    if (static_cast<const FilterNode*>(n)->operand) f(static_cast<const FilterNode*>(n)->operand.get());
    args(static_cast<const FilterNode*>(n)->args);
    break;
  case NodeKind::Neg:
  case NodeKind::Pos:
  case NodeKind::Not:
    f(static_cast<const UnaryNode*>(n)->operand.get());
    break;
  case NodeKind::Binary:
    f(static_cast<const BinaryNode*>(n)->left.get());
    f(static_cast<const BinaryNode*>(n)->right.get());
    break;
  case NodeKind::Compare:
    f(static_cast<const CompareNode*>(n)->first.get());
    for (const auto& r : static_cast<const CompareNode*>(n)->rest) f(r.second.get());
    break;
  case NodeKind::And:
  case NodeKind::Or:
    f(static_cast<const LogicNode*>(n)->left.get());
    f(static_cast<const LogicNode*>(n)->right.get());
    break;
  case NodeKind::CondExpr: {
    const auto* c = static_cast<const CondExprNode*>(n);
    for (const Node* x : {c->test.get(), c->then.get(), c->otherwise.get()})
      if (x) f(x);
    break;
  }
  case NodeKind::ListLit:
  case NodeKind::TupleLit:
    for (const auto& i : static_cast<const SeqLitNode*>(n)->items) f(i.get());
    break;
  case NodeKind::DictLit:
    for (const auto& [k, v] : static_cast<const DictLitNode*>(n)->items) {
      f(k.get());
      f(v.get());
    }
    break;
  default:
    break;
  }
}

bool anyNode(const Node* n, const std::function<bool(const Node*)>& pred) {
  if (!n) return false;
  if (pred(n)) return true;
  bool found = false;
  forEachChild(n, [&](const Node* c) { found = found || anyNode(c, pred); });
  return found;
}

bool isStringLiteral(const Node* n, const char* text = nullptr) {
  if (n->kind != NodeKind::Literal) return false;
  const Value& v = static_cast<const LiteralNode*>(n)->value;
  return v.isString() && (!text || v.str() == text);
}

struct Operand {
  const Node* node;
  uint32_t begin, end; // source extent, whitespace trimmed
};

struct EmitEdit {
  const EmitNode* emit = nullptr;
  uint32_t open = 0, exprBegin = 0, exprEnd = 0, closeEnd = 0;
  std::vector<Operand> ops;
  int first = -1, last = -1; // operands [first, last] go inside the generation block
  size_t split = 0;          // > 0: the last operand is a literal cut after this many bytes
  size_t headSplit = 0;      // > 0: the first operand is a literal whose first bytes stay outside
  std::string loopVar;
};

struct TextEdit {
  uint32_t begin = 0, end = 0; // source bytes replaced
  std::string text;
  std::string wrapped; // what goes inside the generation block
};

class Planner {
public:
  Planner(const Template& t, std::string closing, std::string eos)
      : t_(t), src_(t.source()), closing_(std::move(closing)), eos_(std::move(eos)) {
    for (const Token& k : lex(src_))
      if (k.kind == Tok::VarEnd || k.kind == Tok::BlockEnd)
        (k.kind == Tok::VarEnd ? varEnds_ : blockEnds_).push_back(k.pos);
  }

  std::vector<EmitEdit> plan() {
    findLoops(t_.body());
    if (edits_.empty() && setEdits_.empty())
      throw Error("found no output of an assistant message's content inside a loop over the messages");
    return std::move(edits_);
  }

  std::string name(int sym) const { return t_.symbols().names.at(size_t(sym)); }
  std::vector<TextEdit> takeSetEdits() { return std::move(setEdits_); }

private:
  bool readsContent(const Node* n) const {
    return anyNode(n, [&](const Node* c) {
      if (c->kind == NodeKind::GetAttr) return static_cast<const GetAttrNode*>(c)->attr == "content";
      if (c->kind == NodeKind::GetItem)
        return isStringLiteral(static_cast<const GetItemNode*>(c)->index.get(), "content");
      if (c->kind == NodeKind::Name) {
        const std::string& n = name(static_cast<const NameNode*>(c)->sym);
        return n == "content" || n == "reasoning_content";
      }
      return false;
    });
  }

  // Where the closing token ends inside operand n: 0 when it is not there.
  size_t closingEnd(const Node* n) const {
    if (isStringLiteral(n)) {
      const std::string& s = static_cast<const LiteralNode*>(n)->value.str();
      auto at = s.find(closing_);
      return at == std::string::npos ? 0 : at + closing_.size();
    }
    if (n->kind == NodeKind::Name && !eos_.empty() && eos_ == closing_ &&
        name(static_cast<const NameNode*>(n)->sym) == "eos_token")
      return std::string::npos; // the whole operand
    return 0;
  }

  void findLoops(const NodeList& body) {
    for (const auto& n : body) {
      if (n->kind == NodeKind::For) {
        const auto* f = static_cast<const ForNode*>(n.get());
        if (isMessageLoop(f)) {
          loopVar_ = name(f->target.names[0]);
          if (walkList(f->body, State::Idle) != State::Idle)
            throw Error("a reply is opened but never closed by \"" + closing_ +
                            "\" within one iteration of the message loop (is the turn built in a variable?)",
                        t_.location(f->pos));
        } else {
          findLoops(f->body);
        }
      } else if (n->kind == NodeKind::If) {
        for (const auto& b : static_cast<const IfNode*>(n.get())->branches) findLoops(b.second);
      }
    }
  }

  // A loop whose body reads `<var>.content` or `<var>['content']` anywhere (outputs, sets, tests).
  bool isMessageLoop(const ForNode* f) const {
    if (f->target.tuple || f->target.names.size() != 1 || !f->target.attr.empty()) return false;
    const int var = f->target.names[0];
    auto readsVarContent = [&](const Node* e) {
      return anyNode(e, [&](const Node* c) {
        const Node* obj = nullptr;
        if (c->kind == NodeKind::GetAttr && static_cast<const GetAttrNode*>(c)->attr == "content")
          obj = static_cast<const GetAttrNode*>(c)->obj.get();
        if (c->kind == NodeKind::GetItem && isStringLiteral(static_cast<const GetItemNode*>(c)->index.get(), "content"))
          obj = static_cast<const GetItemNode*>(c)->obj.get();
        return obj && obj->kind == NodeKind::Name && static_cast<const NameNode*>(obj)->sym == var;
      });
    };
    bool found = false;
    std::function<void(const NodeList&)> scan = [&](const NodeList& list) {
      for (const auto& s : list) {
        if (found) return;
        if (s->kind == NodeKind::Emit) found = readsVarContent(static_cast<const EmitNode*>(s.get())->expr.get());
        if (s->kind == NodeKind::Set) found = readsVarContent(static_cast<const SetNode*>(s.get())->value.get());
        if (s->kind == NodeKind::If)
          for (const auto& b : static_cast<const IfNode*>(s.get())->branches) {
            found = found || (b.first && readsVarContent(b.first.get()));
            scan(b.second);
          }
        if (s->kind == NodeKind::For) scan(static_cast<const ForNode*>(s.get())->body);
      }
    };
    scan(f->body);
    return found;
  }

  State walkList(const NodeList& list, State s) {
    for (size_t i = 0; i < list.size(); ++i) {
      const NodePtr& n = list[i];
      if (s == State::Idle && n->kind == NodeKind::Set && trySetSplit(list, i)) continue;
      if (std::find(handled_.begin(), handled_.end(), n.get()) != handled_.end()) continue;
      if (n->kind == NodeKind::Output && s == State::InReply &&
          static_cast<const OutputNode*>(n.get())->text.find(closing_) != std::string::npos)
        throw Error("the reply's closing token \"" + closing_ +
                        "\" is plain template text here; only {{ ... }} outputs can be wrapped (write it as {{ '" +
                        closing_ + "' }})",
                    t_.location(n->pos));
      if (n->kind == NodeKind::Emit)
        s = walkEmit(static_cast<const EmitNode*>(n.get()), s);
      else if (n->kind == NodeKind::If)
        s = walkIf(static_cast<const IfNode*>(n.get()), s);
      else if (n->kind == NodeKind::For)
        s = walkFor(static_cast<const ForNode*>(n.get()), s);
      else if (n->kind == NodeKind::Macro || n->kind == NodeKind::CallBlock || n->kind == NodeKind::FilterBlock ||
               n->kind == NodeKind::SetBlock)
        if (s == State::InReply)
          throw Error("cannot place a generation block across a macro, call, filter or set block", t_.location(n->pos));
    }
    return s;
  }

  // Non-assistant: the test compares the role with other roles only (and never negates that).
  bool otherRolesOnly(const Node* test) const {
    bool roleEq = false, other = false;
    anyNode(test, [&](const Node* c) {
      if (isStringLiteral(c, "assistant")) other = true;
      if (c->kind == NodeKind::Not && anyNode(static_cast<const UnaryNode*>(c)->operand.get(),
                                              [](const Node* d) { return d->kind == NodeKind::Compare; }))
        other = true;
      if (c->kind == NodeKind::Compare) {
        const auto* cmp = static_cast<const CompareNode*>(c);
        for (const auto& r : cmp->rest) {
          if (r.first != CmpOp::Eq) other = true;
          const bool isRole = anyNode(cmp->first.get(), [](const Node* d) {
            return (d->kind == NodeKind::GetAttr && static_cast<const GetAttrNode*>(d)->attr == "role") ||
                   (d->kind == NodeKind::GetItem &&
                    isStringLiteral(static_cast<const GetItemNode*>(d)->index.get(), "role"));
          });
          if (isRole && r.first == CmpOp::Eq && isStringLiteral(r.second.get())) roleEq = true;
        }
      }
      return false;
    });
    return roleEq && !other;
  }

  static bool raisesOnly(const NodeList& body) {
    bool raises = false;
    for (const auto& n : body) {
      if (n->kind == NodeKind::Output) continue;
      if (n->kind != NodeKind::Emit) return false;
      raises = raises || anyNode(static_cast<const EmitNode*>(n.get())->expr.get(), [](const Node* c) {
                 return c->kind == NodeKind::Call && static_cast<const CallNode*>(c)->callee->kind == NodeKind::Name;
               });
    }
    return raises;
  }

  // Branches that disagree (an if that prints the content only when there is some) merge to "in
  // reply": the outputs after it up to the closing token are then wrapped in either case.
  State walkIf(const IfNode* n, State in) {
    bool hasElse = false, reply = false;
    for (const auto& [test, body] : n->branches) {
      if (!test) hasElse = true;
      if (test && otherRolesOnly(test.get())) continue;
      if (raisesOnly(body)) continue;
      if (walkList(body, in) == State::InReply) reply = true; // every branch is walked
    }
    if (!hasElse) reply = reply || in == State::InReply;
    return reply ? State::InReply : State::Idle;
  }

  State walkFor(const ForNode* n, State in) {
    const bool contentLoop = readsContent(n->iter.get());
    const bool saved = inContentLoop_;
    inContentLoop_ = inContentLoop_ || contentLoop;
    State out = walkList(n->body, in);
    inContentLoop_ = saved;
    if (out != in && !(contentLoop && in == State::Idle))
      throw Error("this loop opens or closes the reply in each iteration", t_.location(n->pos));
    return out;
  }

  State walkEmit(const EmitNode* e, State s) {
    EmitEdit ed = describe(e);
    for (int i = 0; i < int(ed.ops.size()); ++i) {
      const Node* op = ed.ops[size_t(i)].node;
      if (s == State::Idle && (inContentLoop_ || readsContent(op))) {
        if (ed.first >= 0) throw Error("this output prints two replies; cannot split it", t_.location(e->pos));
        ed.first = i;
        s = State::InReply;
        // A reasoning block opened by the literal just before the content belongs to the reply.
        if (i > 0 && isStringLiteral(ed.ops[size_t(i) - 1].node)) {
          const std::string& lit = static_cast<const LiteralNode*>(ed.ops[size_t(i) - 1].node)->value.str();
          if (auto at = lit.find("<think>"); at != std::string::npos) {
            ed.first = i - 1;
            ed.headSplit = at;
          }
        }
      }
      if (s != State::InReply) continue;
      if (ed.first < 0) ed.first = i;
      ed.last = i;
      if (size_t end = closingEnd(op)) {
        if (end != std::string::npos && end < static_cast<const LiteralNode*>(op)->value.str().size()) ed.split = end;
        s = State::Idle;
        break;
      }
    }
    if (ed.first >= 0) edits_.push_back(std::move(ed));
    return s;
  }

  bool readsName(const Node* n, int var) const {
    return anyNode(
        n, [&](const Node* c) { return c->kind == NodeKind::Name && static_cast<const NameNode*>(c)->sym == var; });
  }

  // Statements between `set var = ...` and `{{ var }}` may only prepend to var (`set var = x + var`).
  bool onlyPrepends(const Node* n, int var) const {
    if (n->kind == NodeKind::Output) return true;
    if (n->kind == NodeKind::If) {
      for (const auto& [test, body] : static_cast<const IfNode*>(n)->branches) {
        if (test && readsName(test.get(), var)) return false;
        for (const auto& c : body)
          if (!onlyPrepends(c.get(), var)) return false;
      }
      return true;
    }
    if (n->kind != NodeKind::Set) return false;
    const auto* st = static_cast<const SetNode*>(n);
    const bool target =
        !st->target.tuple && st->target.attr.empty() && st->target.names.size() == 1 && st->target.names[0] == var;
    if (!target) return !readsName(st->value.get(), var);
    const Node* v = st->value.get();
    if (v->kind != NodeKind::Binary) return false;
    const auto* b = static_cast<const BinaryNode*>(v);
    return (b->op == BinOp::Add || b->op == BinOp::Concat) && b->right->kind == NodeKind::Name &&
           static_cast<const NameNode*>(b->right.get())->sym == var && !readsName(b->left.get(), var);
  }

  // A turn built in a variable: `{% set X = header + content + '<|eot_id|>' %}` ... `{{ X }}`. For the
  // assistant, X keeps the header and maskscope_reply the rest, printed in a generation block after X.
  bool trySetSplit(const NodeList& list, size_t at) {
    const auto* st = static_cast<const SetNode*>(list[at].get());
    if (st->target.tuple || !st->target.attr.empty() || st->target.names.size() != 1) return false;
    const int var = st->target.names[0];
    EmitEdit ed;
    ed.exprBegin = uint32_t(src_.find('=', st->pos) + 1);
    auto end = std::upper_bound(blockEnds_.begin(), blockEnds_.end(), st->pos);
    if (end == blockEnds_.end() || ed.exprBegin == 0 || ed.exprBegin > *end) return false;
    ed.exprEnd = *end;
    flatten(ed, st->value.get());
    int first = -1;
    for (int i = 0; i < int(ed.ops.size()) && first < 0; ++i)
      if (readsContent(ed.ops[size_t(i)].node)) first = i;
    const Node* lastOp = ed.ops.back().node;
    const size_t close = closingEnd(lastOp);
    if (first < 0 || readsName(st->value.get(), var) ||
        !(close == std::string::npos ||
          (close > 0 && close == static_cast<const LiteralNode*>(lastOp)->value.str().size())))
      return false;
    size_t j = at + 1;
    for (; j < list.size(); ++j) {
      const Node* n = list[j].get();
      if (n->kind == NodeKind::Emit && static_cast<const EmitNode*>(n)->expr->kind == NodeKind::Name &&
          static_cast<const NameNode*>(static_cast<const EmitNode*>(n)->expr.get())->sym == var)
        break;
      if (!onlyPrepends(n, var)) return false;
    }
    if (j == list.size()) return false;
    const std::string x = name(var);
    const uint32_t openEnd = st->pos + 2 + ((src_[st->pos + 2] == '-' || src_[st->pos + 2] == '+') ? 1 : 0);
    const uint32_t closeEnd = uint32_t(src_.find("%}", ed.exprEnd) + 2);
    const std::string expr = src_.substr(ed.ops.front().begin, ed.ops.back().end - ed.ops.front().begin);
    const std::string pre =
        first > 0 ? src_.substr(ed.ops[0].begin, ed.ops[size_t(first) - 1].end - ed.ops[0].begin) : "''";
    const std::string mid = src_.substr(ed.ops[size_t(first)].begin, ed.ops.back().end - ed.ops[size_t(first)].begin);
    const std::string guard = "if " + loopVar_ + "['role'] == 'assistant' %}";
    setEdits_.push_back({st->pos, closeEnd,
                         src_.substr(st->pos, openEnd - st->pos) + " " + guard + "{% set " + x + " = " + pre +
                             " %}{% set maskscope_reply = " + mid + " %}{% else %}{% set " + x + " = " + expr +
                             " %}{% endif " + src_.substr(ed.exprEnd, closeEnd - ed.exprEnd),
                         mid});
    const auto* out = static_cast<const EmitNode*>(list[j].get());
    EmitEdit oe = describe(out);
    setEdits_.push_back({oe.open,
                         oe.closeEnd,
                         src_.substr(oe.open, oe.exprBegin - oe.open) + " '' }}{{ " + x + " }}{% " + guard +
                             "{% generation %}{{ maskscope_reply }}{% endgeneration %}{% endif %}{{ '' " +
                             src_.substr(oe.exprEnd, oe.closeEnd - oe.exprEnd),
                         {}});
    handled_.push_back(out);
    return true;
  }

  EmitEdit describe(const EmitNode* e) const {
    EmitEdit ed;
    ed.emit = e;
    ed.loopVar = loopVar_;
    ed.open = e->pos;
    ed.exprBegin = e->pos + 2;
    if (ed.exprBegin < src_.size() && (src_[ed.exprBegin] == '-' || src_[ed.exprBegin] == '+')) ++ed.exprBegin;
    auto it = std::upper_bound(varEnds_.begin(), varEnds_.end(), e->pos);
    if (it == varEnds_.end()) throw Error("cannot find the end of this output", t_.location(e->pos));
    ed.exprEnd = *it;
    ed.closeEnd = uint32_t(src_.find("}}", ed.exprEnd) + 2);
    flatten(ed, e->expr.get());
    return ed;
  }

  // Fills ed.ops from expr, whose source is [ed.exprBegin, ed.exprEnd).
  void flatten(EmitEdit& ed, const Node* expr) const {
    // Flatten the left spine of + and ~ (a right operand that is itself a sum was parenthesized).
    std::vector<const Node*> leaves;
    std::vector<uint32_t> opPos;
    const Node* cur = expr;
    while (cur->kind == NodeKind::Binary && (static_cast<const BinaryNode*>(cur)->op == BinOp::Add ||
                                             static_cast<const BinaryNode*>(cur)->op == BinOp::Concat)) {
      const auto* b = static_cast<const BinaryNode*>(cur);
      leaves.push_back(b->right.get());
      opPos.push_back(b->pos);
      cur = b->left.get();
    }
    leaves.push_back(cur);
    std::reverse(leaves.begin(), leaves.end());
    std::reverse(opPos.begin(), opPos.end());
    for (size_t i = 0; i < leaves.size(); ++i) {
      uint32_t b = i == 0 ? ed.exprBegin : opPos[i - 1] + 1;
      uint32_t en = i + 1 < leaves.size() ? opPos[i] : ed.exprEnd;
      while (b < en && isspace(static_cast<unsigned char>(src_[b]))) ++b;
      while (en > b && isspace(static_cast<unsigned char>(src_[en - 1]))) --en;
      ed.ops.push_back({leaves[i], b, en});
    }
  }

  const Template& t_;
  const std::string& src_;
  std::string closing_, eos_;
  std::vector<uint32_t> varEnds_, blockEnds_;
  std::vector<TextEdit> setEdits_;   // turns built in a variable (see trySetSplit)
  std::vector<const Node*> handled_; // outputs those edits already rewrite
  std::vector<EmitEdit> edits_;
  std::string loopVar_;
  bool inContentLoop_ = false;
};

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\\' || c == '\'') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "'";
}

// Operand i's text, or the part [from, to) of its literal when it is cut.
std::string piece(const std::string& src, const EmitEdit& ed, int i, size_t from, size_t to) {
  const Operand& o = ed.ops[size_t(i)];
  if (from == 0 && to == std::string::npos) return src.substr(o.begin, o.end - o.begin);
  const std::string& lit = static_cast<const LiteralNode*>(o.node)->value.str();
  return quote(lit.substr(from, to == std::string::npos ? std::string::npos : to - from));
}

// Appends operand text to a group, with the operator that precedes operand i in the source.
void append(std::string& group, const std::string& src, const EmitEdit& ed, int i, const std::string& text) {
  if (text == "''") return;
  if (!group.empty())
    group += src.substr(ed.ops[size_t(i) - 1].end, ed.ops[size_t(i)].begin - ed.ops[size_t(i) - 1].end);
  group += text;
}

std::string rewrite(const std::string& src, const EmitEdit& ed) {
  const auto& o = ed.ops;
  std::string pre, mid, post;
  for (int i = 0; i < int(o.size()); ++i) {
    const size_t head = i == ed.first ? ed.headSplit : 0;
    const size_t tail = i == ed.last && ed.split > 0 ? ed.split : std::string::npos;
    if (i < ed.first) {
      append(pre, src, ed, i, piece(src, ed, i, 0, std::string::npos));
    } else if (i > ed.last) {
      append(post, src, ed, i, piece(src, ed, i, 0, std::string::npos));
    } else {
      if (head > 0) append(pre, src, ed, i, piece(src, ed, i, 0, head));
      append(mid, src, ed, i, piece(src, ed, i, head, tail));
      if (tail != std::string::npos) append(post, src, ed, i, piece(src, ed, i, tail, std::string::npos));
    }
  }
  std::string open = src.substr(ed.open, ed.exprBegin - ed.open);
  std::string close = src.substr(ed.exprEnd, ed.closeEnd - ed.exprEnd);
  std::string expr = src.substr(o.front().begin, o.back().end - o.front().begin);
  std::string r = open + " '' }}{% if " + ed.loopVar + "['role'] == 'assistant' %}";
  if (!pre.empty()) r += "{{ " + pre + " }}";
  r += "{% generation %}{{ " + mid + " }}{% endgeneration %}";
  if (!post.empty()) r += "{{ " + post + " }}";
  r += "{% else %}{{ " + expr + " }}{% endif %}{{ '' " + close;
  return r;
}

} // namespace

MarkedSource insertGenerationMarkers(const jinja::Template& compiled, const std::string& closingToken,
                                     const std::string& eosToken) {
  if (compiled.hasGeneration()) throw Error("the template already has {% generation %} markers");
  if (closingToken.empty()) throw Error("no closing token to end the replies with");
  Planner planner(compiled, closingToken, eosToken);
  std::vector<EmitEdit> edits = planner.plan();
  const std::string& src = compiled.source();
  std::vector<TextEdit> all = planner.takeSetEdits();
  for (const EmitEdit& ed : edits)
    all.push_back(
        {ed.open, ed.closeEnd, rewrite(src, ed),
         src.substr(ed.ops[size_t(ed.first)].begin, ed.ops[size_t(ed.last)].end - ed.ops[size_t(ed.first)].begin)});
  std::sort(all.begin(), all.end(), [](const TextEdit& a, const TextEdit& b) { return a.begin > b.begin; });
  MarkedSource out;
  out.source = src;
  for (const TextEdit& e : all) out.source.replace(e.begin, e.end - e.begin, e.text);
  for (auto it = all.rbegin(); it != all.rend(); ++it)
    if (!it->wrapped.empty())
      out.wrapped.push_back("line " + std::to_string(compiled.location(it->begin).line) + ": " + it->wrapped);
  return out;
}

} // namespace maskscope
