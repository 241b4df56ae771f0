// JinjaTemplateAnalyzer's message variables over maskscope's Jinja syntax tree (see
// TemplateMessageVars.h): every node is visited, as _visit_node visits every child.
#include "core/frameworks/axolotl/TemplateMessageVars.h"

namespace maskscope::axolotl {

namespace {

using namespace maskscope::jinja;

struct Walker {
  int message = -1; // the symbol of the name "message"
  std::set<std::string> out;

  // _get_base_name: the Name at the root of a chain of attribute and item accesses.
  bool rootIsMessage(const Node* n) const {
    while (n) {
      if (n->kind == NodeKind::Name) return static_cast<const NameNode*>(n)->sym == message;
      if (n->kind == NodeKind::GetAttr)
        n = static_cast<const GetAttrNode*>(n)->obj.get();
      else if (n->kind == NodeKind::GetItem)
        n = static_cast<const GetItemNode*>(n)->obj.get();
      else
        return false;
    }
    return false;
  }

  void list(const NodeList& nodes) {
    for (const auto& n : nodes) visit(n.get());
  }
  void args(const Args& a) {
    list(a.positional);
    for (const auto& [name, v] : a.named) visit(v.get());
  }

  void expression(const Node* n) {
    switch (n->kind) {
    case NodeKind::GetAttr: {
      auto* g = static_cast<const GetAttrNode*>(n);
      if (rootIsMessage(g->obj.get())) out.insert(g->attr);
      visit(g->obj.get());
      return;
    }
    case NodeKind::GetItem: {
      auto* g = static_cast<const GetItemNode*>(n);
      if (rootIsMessage(g->obj.get()) && g->index && g->index->kind == NodeKind::Literal) {
        const Value& v = static_cast<const LiteralNode*>(g->index.get())->value;
        if (v.isString()) out.insert(v.str());
      }
      visit(g->obj.get());
      visit(g->index.get());
      return;
    }
    case NodeKind::Slice: {
      auto* s = static_cast<const SliceNode*>(n);
      for (const Node* c : {s->obj.get(), s->start.get(), s->stop.get(), s->step.get()}) visit(c);
      return;
    }
    case NodeKind::Call: {
      auto* c = static_cast<const CallNode*>(n);
      visit(c->callee.get());
      args(c->args);
      return;
    }
    case NodeKind::Filter:
    case NodeKind::Test: {
      auto* f = static_cast<const FilterNode*>(n);
      visit(f->operand.get());
      args(f->args);
      return;
    }
    case NodeKind::Neg:
    case NodeKind::Pos:
    case NodeKind::Not:
      visit(static_cast<const UnaryNode*>(n)->operand.get());
      return;
    case NodeKind::Binary:
      visit(static_cast<const BinaryNode*>(n)->left.get());
      visit(static_cast<const BinaryNode*>(n)->right.get());
      return;
    case NodeKind::Compare: {
      auto* c = static_cast<const CompareNode*>(n);
      visit(c->first.get());
      for (const auto& [op, r] : c->rest) visit(r.get());
      return;
    }
    case NodeKind::And:
    case NodeKind::Or:
      visit(static_cast<const LogicNode*>(n)->left.get());
      visit(static_cast<const LogicNode*>(n)->right.get());
      return;
    case NodeKind::CondExpr: {
      auto* c = static_cast<const CondExprNode*>(n);
      for (const Node* x : {c->test.get(), c->then.get(), c->otherwise.get()}) visit(x);
      return;
    }
    case NodeKind::ListLit:
    case NodeKind::TupleLit:
      list(static_cast<const SeqLitNode*>(n)->items);
      return;
    case NodeKind::DictLit:
      for (const auto& [k, v] : static_cast<const DictLitNode*>(n)->items) {
        visit(k.get());
        visit(v.get());
      }
      return;
    default:
      return;
    }
  }

  void visit(const Node* n) {
    if (!n) return;
    switch (n->kind) {
    case NodeKind::Emit:
      visit(static_cast<const EmitNode*>(n)->expr.get());
      return;
    case NodeKind::If:
      for (const auto& [test, body] : static_cast<const IfNode*>(n)->branches) {
        visit(test.get());
        list(body);
      }
      return;
    case NodeKind::For: {
      auto* f = static_cast<const ForNode*>(n);
      visit(f->iter.get());
      visit(f->filter.get());
      list(f->body);
      list(f->elseBody);
      return;
    }
    case NodeKind::Set:
      visit(static_cast<const SetNode*>(n)->value.get());
      return;
    case NodeKind::SetBlock: {
      auto* s = static_cast<const SetBlockNode*>(n);
      list(s->body);
      for (const auto& f : s->filters) visit(f.get());
      return;
    }
    case NodeKind::Macro: {
      auto* m = static_cast<const MacroNode*>(n);
      for (const auto& d : m->defaults) visit(d.get());
      list(m->body);
      return;
    }
    case NodeKind::CallBlock: {
      auto* c = static_cast<const CallBlockNode*>(n);
      visit(c->call.get());
      visit(c->caller.get());
      return;
    }
    case NodeKind::FilterBlock: {
      auto* f = static_cast<const FilterBlockNode*>(n);
      for (const auto& x : f->filters) visit(x.get());
      list(f->body);
      return;
    }
    case NodeKind::Generation:
      list(static_cast<const GenerationNode*>(n)->body);
      return;
    default:
      expression(n);
    }
  }
};

} // namespace

std::set<std::string> templateMessageVariables(const jinja::Template& compiled) {
  Walker w;
  w.message = compiled.symbols().find("message");
  if (w.message < 0) return {};
  w.list(compiled.body());
  return w.out;
}

} // namespace maskscope::axolotl
