// The syntax tree the parser builds and the interpreter walks. Names are interned to integer
// symbols at parse time so variable lookup at render time compares ints, not strings.
#pragma once
#include "core/template/jinja/Value.h"

#include <memory>
#include <string>
#include <vector>

namespace maskscope::jinja {

enum class NodeKind : uint8_t {
  // expressions
  Literal,
  Name,
  GetAttr,
  GetItem,
  Slice,
  Call,
  Filter,
  Test,
  Neg,
  Pos,
  Not,
  Binary,
  Compare,
  And,
  Or,
  CondExpr,
  ListLit,
  TupleLit,
  DictLit,
  // statements
  Output,
  Emit,
  If,
  For,
  Set,
  SetBlock,
  Macro,
  CallBlock,
  FilterBlock,
  Break,
  Continue,
  Generation
};

struct Node {
  explicit Node(NodeKind k, uint32_t p) : kind(k), pos(p) {}
  virtual ~Node() = default;
  NodeKind kind;
  uint32_t pos; // byte offset in the normalized source, for error locations
};
using NodePtr = std::unique_ptr<Node>;
using NodeList = std::vector<NodePtr>;

struct LiteralNode : Node {
  LiteralNode(uint32_t p, Value v) : Node(NodeKind::Literal, p), value(std::move(v)) {
    if (value.object()) value.object()->frozen = true;
  }
  Value value;
};
struct NameNode : Node {
  NameNode(uint32_t p, int s) : Node(NodeKind::Name, p), sym(s) {}
  int sym;
};
struct GetAttrNode : Node {
  GetAttrNode(uint32_t p) : Node(NodeKind::GetAttr, p) {}
  NodePtr obj;
  std::string attr;
};
struct GetItemNode : Node {
  GetItemNode(uint32_t p) : Node(NodeKind::GetItem, p) {}
  NodePtr obj, index;
};
struct SliceNode : Node {
  SliceNode(uint32_t p) : Node(NodeKind::Slice, p) {}
  NodePtr obj, start, stop, step; // any may be null
};
struct Args {
  NodeList positional;
  std::vector<std::pair<std::string, NodePtr>> named;
};
struct CallNode : Node {
  CallNode(uint32_t p) : Node(NodeKind::Call, p) {}
  NodePtr callee;
  Args args;
};
struct FilterNode : Node { // also Test
  FilterNode(NodeKind k, uint32_t p) : Node(k, p) {}
  NodePtr operand; // null for a {% filter %} block's chain element
  std::string name;
  Args args;
  bool negated = false; // "is not"
};
struct UnaryNode : Node {
  UnaryNode(NodeKind k, uint32_t p) : Node(k, p) {}
  NodePtr operand;
};
enum class BinOp : uint8_t { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, Concat };
struct BinaryNode : Node {
  BinaryNode(uint32_t p, BinOp o) : Node(NodeKind::Binary, p), op(o) {}
  BinOp op;
  NodePtr left, right;
};
enum class CmpOp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge, In, NotIn };
struct CompareNode : Node {
  CompareNode(uint32_t p) : Node(NodeKind::Compare, p) {}
  NodePtr first;
  std::vector<std::pair<CmpOp, NodePtr>> rest;
};
struct LogicNode : Node { // And, Or
  LogicNode(NodeKind k, uint32_t p) : Node(k, p) {}
  NodePtr left, right;
};
struct CondExprNode : Node {
  CondExprNode(uint32_t p) : Node(NodeKind::CondExpr, p) {}
  NodePtr test, then, otherwise; // otherwise may be null (undefined)
};
struct SeqLitNode : Node { // ListLit, TupleLit
  SeqLitNode(NodeKind k, uint32_t p) : Node(k, p) {}
  NodeList items;
};
struct DictLitNode : Node {
  DictLitNode(uint32_t p) : Node(NodeKind::DictLit, p) {}
  std::vector<std::pair<NodePtr, NodePtr>> items;
};

// ---- statements

struct OutputNode : Node {
  OutputNode(uint32_t p, std::string t) : Node(NodeKind::Output, p), text(std::move(t)) {}
  std::string text;
};
struct EmitNode : Node {
  EmitNode(uint32_t p) : Node(NodeKind::Emit, p) {}
  NodePtr expr;
};
struct IfNode : Node {
  IfNode(uint32_t p) : Node(NodeKind::If, p) {}
  std::vector<std::pair<NodePtr, NodeList>> branches; // test null = else
};
// Assignment target: a name, a tuple of names, or namespace.attr.
struct Target {
  std::vector<int> names; // one name, or the tuple's names
  bool tuple = false;
  std::string attr; // non-empty: names[0].attr (namespace assignment)
};
struct ForNode : Node {
  ForNode(uint32_t p) : Node(NodeKind::For, p) {}
  Target target;
  NodePtr iter, filter;
  NodeList body, elseBody;
  bool recursive = false;
};
struct SetNode : Node {
  SetNode(uint32_t p) : Node(NodeKind::Set, p) {}
  Target target;
  NodePtr value;
};
struct SetBlockNode : Node {
  SetBlockNode(uint32_t p) : Node(NodeKind::SetBlock, p) {}
  Target target;
  NodeList body;
  std::vector<std::unique_ptr<FilterNode>> filters;
};
struct MacroNode : Node {
  MacroNode(uint32_t p) : Node(NodeKind::Macro, p) {}
  std::string name;
  int sym = -1;
  std::vector<int> params;
  std::vector<NodePtr> defaults; // aligned to the last params
  NodeList body;
  bool usesCaller = false;
};
struct CallBlockNode : Node {
  CallBlockNode(uint32_t p) : Node(NodeKind::CallBlock, p) {}
  std::unique_ptr<CallNode> call;
  std::unique_ptr<MacroNode> caller; // the body as a macro named "caller"
};
struct FilterBlockNode : Node {
  FilterBlockNode(uint32_t p) : Node(NodeKind::FilterBlock, p) {}
  std::vector<std::unique_ptr<FilterNode>> filters;
  NodeList body;
};
struct GenerationNode : Node {
  GenerationNode(uint32_t p) : Node(NodeKind::Generation, p) {}
  NodeList body;
};

} // namespace maskscope::jinja
