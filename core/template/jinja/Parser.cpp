// jinja2.parser, restricted to what chat templates use: the statements of the core language
// (plus loopcontrols and transformers' {% generation %}) and the full expression grammar.
#include "core/template/jinja/Parser.h"

#include <algorithm>
#include <initializer_list>

namespace maskscope::jinja {

namespace {

class Parser {
public:
  Parser(const std::vector<Token>& t, Symbols& s) : t_(t), sym_(s) {}

  NodeList parseRoot() {
    std::string which;
    NodeList body = parseBody({}, which);
    return body;
  }

private:
  struct DepthGuard {
    explicit DepthGuard(Parser& p) : p_(p) {
      if (++p_.depth_ > kMaxParseDepth)
        p_.fail("template nested too deeply (more than " + std::to_string(kMaxParseDepth) + " levels)");
    }
    ~DepthGuard() { --p_.depth_; }
    Parser& p_;
  };
  // A left-associative chain (x|f|g, x.a.b, a + b + c, f()()) is parsed by a loop but builds a tree
  // as deep as the chain is long, which evaluation and destruction walk recursively: every link
  // counts as one level of nesting.
  struct ChainGuard {
    explicit ChainGuard(Parser& p) : p_(p) {}
    void link() {
      ++links_;
      if (++p_.depth_ > kMaxParseDepth)
        p_.fail("template nested too deeply (more than " + std::to_string(kMaxParseDepth) + " levels)");
    }
    ~ChainGuard() { p_.depth_ -= links_; }
    Parser& p_;
    int links_ = 0;
  };

  [[noreturn]] void fail(const std::string& msg) const { throw ParseError{msg, cur().pos}; }
  [[noreturn]] void failAt(const std::string& msg, uint32_t pos) const { throw ParseError{msg, pos}; }

  const Token& cur() const { return t_[std::min(i_, t_.size() - 1)]; }
  const Token& peek(size_t k = 1) const { return t_[std::min(i_ + k, t_.size() - 1)]; }
  const Token& next() {
    const Token& t = cur();
    if (i_ < t_.size() - 1) ++i_;
    return t;
  }
  bool isOp(const char* op) const { return cur().kind == Tok::Op && cur().text == op; }
  bool isName(const char* name) const { return cur().kind == Tok::Name && cur().text == name; }
  bool skipOp(const char* op) {
    if (!isOp(op)) return false;
    next();
    return true;
  }
  bool skipName(const char* name) {
    if (!isName(name)) return false;
    next();
    return true;
  }
  static std::string describe(const Token& t) {
    switch (t.kind) {
    case Tok::Eof:
      return "end of template";
    case Tok::VarEnd:
      return "'}}'";
    case Tok::BlockEnd:
      return "'%}'";
    case Tok::Data:
      return "template data";
    case Tok::String:
      return "string";
    case Tok::Int:
    case Tok::Float:
      return "number";
    default:
      return "'" + t.text + "'";
    }
  }
  void expectOp(const char* op) {
    if (!skipOp(op)) fail(std::string("expected '") + op + "', got " + describe(cur()));
  }
  void expectBlockEnd() {
    if (cur().kind != Tok::BlockEnd) fail("expected end of statement block, got " + describe(cur()));
    next();
  }
  std::string expectName() {
    if (cur().kind != Tok::Name) fail("expected a name, got " + describe(cur()));
    return next().text;
  }

  // ---------------------------------------------------------------- statements

  NodeList parseBody(std::initializer_list<const char*> ends, std::string& which) {
    NodeList body;
    while (true) {
      const Token& t = cur();
      switch (t.kind) {
      case Tok::Data:
        body.push_back(std::make_unique<OutputNode>(t.pos, t.text));
        next();
        break;
      case Tok::VarBegin: {
        auto e = std::make_unique<EmitNode>(t.pos);
        next();
        e->expr = parseTuple(true);
        if (cur().kind != Tok::VarEnd) fail("expected end of print statement, got " + describe(cur()));
        next();
        body.push_back(std::move(e));
        break;
      }
      case Tok::BlockBegin: {
        const Token& n = peek();
        if (n.kind == Tok::Name) {
          for (const char* e : ends) {
            if (n.text == e) {
              next(); // BlockBegin; leave the name for the caller
              which = n.text;
              return body;
            }
          }
        }
        body.push_back(parseStatement());
        break;
      }
      case Tok::Eof:
        if (ends.size() != 0) {
          std::string expected;
          for (const char* e : ends) expected += std::string(expected.empty() ? "" : " or ") + "'" + e + "'";
          fail("unexpected end of template; expected " + expected);
        }
        return body;
      default:
        fail("unexpected " + describe(t));
      }
    }
  }

  NodePtr parseStatement() {
    DepthGuard g(*this);
    uint32_t pos = next().pos; // BlockBegin
    if (cur().kind != Tok::Name) fail("tag name expected");
    std::string tag = next().text;
    if (tag == "if") return parseIf(pos);
    if (tag == "for") return parseFor(pos);
    if (tag == "set") return parseSet(pos);
    if (tag == "macro") return parseMacro(pos);
    if (tag == "call") return parseCallBlock(pos);
    if (tag == "filter") return parseFilterBlock(pos);
    if (tag == "generation") {
      auto n = std::make_unique<GenerationNode>(pos);
      expectBlockEnd();
      std::string which;
      n->body = parseBody({"endgeneration"}, which);
      next();
      expectBlockEnd();
      return n;
    }
    if (tag == "break" || tag == "continue") {
      if (loopDepth_ == 0) failAt("'" + tag + "' outside of a loop", pos);
      expectBlockEnd();
      return std::make_unique<Node>(tag == "break" ? NodeKind::Break : NodeKind::Continue, pos);
    }
    failAt("Encountered unknown tag '" + tag + "'", pos);
  }

  NodePtr parseIf(uint32_t pos) {
    auto n = std::make_unique<IfNode>(pos);
    NodePtr test = parseTuple(false);
    while (true) {
      expectBlockEnd();
      std::string which;
      NodeList body = parseBody({"elif", "else", "endif"}, which);
      n->branches.emplace_back(std::move(test), std::move(body));
      next(); // the name
      if (which == "elif") {
        test = parseTuple(false);
        continue;
      }
      if (which == "else") {
        expectBlockEnd();
        NodeList elseBody = parseBody({"endif"}, which);
        n->branches.emplace_back(nullptr, std::move(elseBody));
        next();
      }
      expectBlockEnd();
      return n;
    }
  }

  Target parseTarget(bool allowNamespace) {
    Target t;
    bool paren = skipOp("(");
    while (true) {
      std::string name = expectName();
      if (allowNamespace && !paren && t.names.empty() && isOp(".")) {
        next();
        t.attr = expectName();
        t.names.push_back(sym_.intern(name));
        return t;
      }
      t.names.push_back(sym_.intern(name));
      if (!skipOp(",")) break;
      t.tuple = true;
      if (cur().kind != Tok::Name) break; // trailing comma
    }
    if (paren) {
      expectOp(")");
      t.tuple = true;
    }
    return t;
  }

  NodePtr parseFor(uint32_t pos) {
    auto n = std::make_unique<ForNode>(pos);
    n->target = parseTarget(false);
    if (!skipName("in")) fail("expected 'in', got " + describe(cur()));
    n->iter = parseTuple(false, true);
    if (skipName("if")) n->filter = parseExpression();
    if (skipName("recursive")) n->recursive = true;
    expectBlockEnd();
    std::string which;
    ++loopDepth_;
    n->body = parseBody({"endfor", "else"}, which);
    --loopDepth_;
    next();
    if (which == "else") {
      expectBlockEnd();
      n->elseBody = parseBody({"endfor"}, which);
      next();
    }
    expectBlockEnd();
    return n;
  }

  NodePtr parseSet(uint32_t pos) {
    Target target = parseTarget(true);
    if (skipOp("=")) {
      auto n = std::make_unique<SetNode>(pos);
      n->target = std::move(target);
      n->value = parseTuple(true);
      expectBlockEnd();
      return n;
    }
    auto n = std::make_unique<SetBlockNode>(pos);
    n->target = std::move(target);
    while (skipOp("|")) n->filters.push_back(parseFilterCall(nullptr, cur().pos));
    expectBlockEnd();
    std::string which;
    n->body = parseBody({"endset"}, which);
    next();
    expectBlockEnd();
    return n;
  }

  void parseSignature(MacroNode& m) {
    expectOp("(");
    while (!isOp(")")) {
      if (!m.params.empty()) expectOp(",");
      if (isOp(")")) break;
      m.params.push_back(sym_.intern(expectName()));
      if (skipOp("="))
        m.defaults.push_back(parseExpression());
      else if (!m.defaults.empty())
        fail("non-default argument follows default argument");
    }
    expectOp(")");
  }

  NodePtr parseMacro(uint32_t pos) {
    auto n = std::make_unique<MacroNode>(pos);
    n->name = expectName();
    n->sym = sym_.intern(n->name);
    parseSignature(*n);
    expectBlockEnd();
    std::string which;
    int savedLoop = loopDepth_;
    loopDepth_ = 0;
    n->body = parseBody({"endmacro"}, which);
    loopDepth_ = savedLoop;
    next();
    if (cur().kind == Tok::Name) next(); // {% endmacro name %}
    expectBlockEnd();
    return n;
  }

  NodePtr parseCallBlock(uint32_t pos) {
    auto n = std::make_unique<CallBlockNode>(pos);
    n->caller = std::make_unique<MacroNode>(pos);
    n->caller->name = "caller";
    n->caller->sym = sym_.intern("caller");
    if (isOp("(")) parseSignature(*n->caller);
    NodePtr call = parseExpression();
    if (call->kind != NodeKind::Call) failAt("expected call", call->pos);
    n->call.reset(static_cast<CallNode*>(call.release()));
    expectBlockEnd();
    std::string which;
    n->caller->body = parseBody({"endcall"}, which);
    next();
    expectBlockEnd();
    return n;
  }

  NodePtr parseFilterBlock(uint32_t pos) {
    auto n = std::make_unique<FilterBlockNode>(pos);
    do {
      n->filters.push_back(parseFilterCall(nullptr, cur().pos));
    } while (skipOp("|"));
    expectBlockEnd();
    std::string which;
    n->body = parseBody({"endfilter"}, which);
    next();
    expectBlockEnd();
    return n;
  }

  // ---------------------------------------------------------------- expressions

  bool atTupleEnd(bool forIter) const {
    const Token& t = cur();
    if (t.kind == Tok::VarEnd || t.kind == Tok::BlockEnd || t.kind == Tok::Eof) return true;
    if (t.kind == Tok::Op && t.text == ")") return true;
    if (forIter && t.kind == Tok::Name && (t.text == "if" || t.text == "recursive")) return true;
    return false;
  }

  NodePtr parseTuple(bool withCondExpr, bool forIter = false, bool explicitParens = false) {
    uint32_t pos = cur().pos;
    NodeList items;
    bool sawComma = false;
    while (true) {
      if (!items.empty()) {
        if (!skipOp(",")) break;
        sawComma = true;
        if (atTupleEnd(forIter)) break;
      }
      items.push_back(withCondExpr ? parseExpression() : parseOr());
      if (!isOp(",")) break;
    }
    if (items.empty()) {
      if (!explicitParens) fail("expected an expression, got " + describe(cur()));
    } else if (items.size() == 1 && !sawComma) {
      return std::move(items[0]);
    }
    auto tup = std::make_unique<SeqLitNode>(NodeKind::TupleLit, pos);
    tup->items = std::move(items);
    return tup;
  }

  NodePtr parseExpression() {
    DepthGuard g(*this);
    uint32_t pos = cur().pos;
    NodePtr expr = parseOr();
    ChainGuard chain(*this);
    while (isName("if")) {
      chain.link();
      next();
      auto c = std::make_unique<CondExprNode>(pos);
      c->then = std::move(expr);
      c->test = parseOr();
      if (skipName("else")) c->otherwise = parseExpression();
      expr = std::move(c);
    }
    return expr;
  }

  NodePtr parseOr() {
    NodePtr left = parseAnd();
    ChainGuard chain(*this);
    while (isName("or")) {
      chain.link();
      uint32_t pos = next().pos;
      auto n = std::make_unique<LogicNode>(NodeKind::Or, pos);
      n->left = std::move(left);
      n->right = parseAnd();
      left = std::move(n);
    }
    return left;
  }

  NodePtr parseAnd() {
    NodePtr left = parseNot();
    ChainGuard chain(*this);
    while (isName("and")) {
      chain.link();
      uint32_t pos = next().pos;
      auto n = std::make_unique<LogicNode>(NodeKind::And, pos);
      n->left = std::move(left);
      n->right = parseNot();
      left = std::move(n);
    }
    return left;
  }

  NodePtr parseNot() {
    if (isName("not")) {
      DepthGuard g(*this);
      uint32_t pos = next().pos;
      auto n = std::make_unique<UnaryNode>(NodeKind::Not, pos);
      n->operand = parseNot();
      return n;
    }
    return parseCompare();
  }

  NodePtr parseCompare() {
    uint32_t pos = cur().pos;
    NodePtr first = parseMath1();
    std::unique_ptr<CompareNode> cmp;
    while (true) {
      CmpOp op;
      const Token& t = cur();
      if (t.kind == Tok::Op && t.text == "==")
        op = CmpOp::Eq;
      else if (t.kind == Tok::Op && t.text == "!=")
        op = CmpOp::Ne;
      else if (t.kind == Tok::Op && t.text == "<")
        op = CmpOp::Lt;
      else if (t.kind == Tok::Op && t.text == "<=")
        op = CmpOp::Le;
      else if (t.kind == Tok::Op && t.text == ">")
        op = CmpOp::Gt;
      else if (t.kind == Tok::Op && t.text == ">=")
        op = CmpOp::Ge;
      else if (t.kind == Tok::Name && t.text == "in")
        op = CmpOp::In;
      else if (t.kind == Tok::Name && t.text == "not" && peek().kind == Tok::Name && peek().text == "in") {
        next();
        op = CmpOp::NotIn;
      } else
        break;
      next();
      if (!cmp) {
        cmp = std::make_unique<CompareNode>(pos);
        cmp->first = std::move(first);
      }
      cmp->rest.emplace_back(op, parseMath1());
    }
    if (cmp) return cmp;
    return first;
  }

  NodePtr binary(BinOp op, uint32_t pos, NodePtr l, NodePtr r) {
    auto n = std::make_unique<BinaryNode>(pos, op);
    n->left = std::move(l);
    n->right = std::move(r);
    return n;
  }

  NodePtr parseMath1() {
    NodePtr left = parseConcat();
    ChainGuard chain(*this);
    while (isOp("+") || isOp("-")) {
      chain.link();
      const Token& t = next();
      BinOp op = t.text == "+" ? BinOp::Add : BinOp::Sub;
      left = binary(op, t.pos, std::move(left), parseConcat());
    }
    return left;
  }

  NodePtr parseConcat() {
    NodePtr left = parseMath2();
    ChainGuard chain(*this);
    while (isOp("~")) {
      chain.link();
      uint32_t pos = next().pos;
      left = binary(BinOp::Concat, pos, std::move(left), parseMath2());
    }
    return left;
  }

  NodePtr parseMath2() {
    NodePtr left = parsePow();
    ChainGuard chain(*this);
    while (isOp("*") || isOp("/") || isOp("//") || isOp("%")) {
      chain.link();
      const Token& t = next();
      BinOp op = t.text == "*"    ? BinOp::Mul
                 : t.text == "/"  ? BinOp::Div
                 : t.text == "//" ? BinOp::FloorDiv
                                  : BinOp::Mod;
      left = binary(op, t.pos, std::move(left), parsePow());
    }
    return left;
  }

  NodePtr parsePow() {
    NodePtr left = parseUnary(true);
    ChainGuard chain(*this);
    while (isOp("**")) {
      chain.link();
      uint32_t pos = next().pos;
      left = binary(BinOp::Pow, pos, std::move(left), parseUnary(true));
    }
    return left;
  }

  NodePtr parseUnary(bool withFilter) {
    DepthGuard g(*this);
    NodePtr node;
    if (isOp("-") || isOp("+")) {
      const Token& t = next();
      auto n = std::make_unique<UnaryNode>(t.text == "-" ? NodeKind::Neg : NodeKind::Pos, t.pos);
      n->operand = parseUnary(false);
      node = std::move(n);
    } else {
      node = parsePostfix(parsePrimary());
    }
    if (withFilter) node = parseFilterExpr(std::move(node));
    return node;
  }

  NodePtr parsePrimary() {
    DepthGuard g(*this);
    const Token& t = cur();
    switch (t.kind) {
    case Tok::Name: {
      next();
      const std::string& n = t.text;
      if (n == "true" || n == "True") return std::make_unique<LiteralNode>(t.pos, Value::boolean(true));
      if (n == "false" || n == "False") return std::make_unique<LiteralNode>(t.pos, Value::boolean(false));
      if (n == "none" || n == "None") return std::make_unique<LiteralNode>(t.pos, Value::none());
      return std::make_unique<NameNode>(t.pos, sym_.intern(n));
    }
    case Tok::String: {
      uint32_t pos = t.pos;
      std::string s = next().text;
      while (cur().kind == Tok::String) s += next().text;
      return std::make_unique<LiteralNode>(pos, Value::string(std::move(s)));
    }
    case Tok::Int:
      next();
      return std::make_unique<LiteralNode>(t.pos, Value::integer(t.ival));
    case Tok::Float:
      next();
      return std::make_unique<LiteralNode>(t.pos, Value::real(t.fval));
    case Tok::Op:
      if (t.text == "(") {
        next();
        NodePtr inner = parseTuple(true, false, true);
        expectOp(")");
        return inner;
      }
      if (t.text == "[") {
        auto n = std::make_unique<SeqLitNode>(NodeKind::ListLit, t.pos);
        next();
        while (!isOp("]")) {
          if (!n->items.empty()) expectOp(",");
          if (isOp("]")) break;
          n->items.push_back(parseExpression());
        }
        expectOp("]");
        return n;
      }
      if (t.text == "{") {
        auto n = std::make_unique<DictLitNode>(t.pos);
        next();
        while (!isOp("}")) {
          if (!n->items.empty()) expectOp(",");
          if (isOp("}")) break;
          NodePtr k = parseExpression();
          expectOp(":");
          n->items.emplace_back(std::move(k), parseExpression());
        }
        expectOp("}");
        return n;
      }
      break;
    default:
      break;
    }
    fail("unexpected " + describe(t));
  }

  void parseArgs(Args& args) {
    expectOp("(");
    bool first = true;
    while (!isOp(")")) {
      if (!first) expectOp(",");
      first = false;
      if (isOp(")")) break;
      if (cur().kind == Tok::Name && peek().kind == Tok::Op && peek().text == "=") {
        std::string name = next().text;
        next();
        args.named.emplace_back(std::move(name), parseExpression());
      } else {
        if (!args.named.empty()) fail("positional argument follows keyword argument");
        args.positional.push_back(parseExpression());
      }
    }
    expectOp(")");
  }

  NodePtr parsePostfix(NodePtr node) {
    ChainGuard chain(*this);
    while (true) {
      chain.link();
      const Token& t = cur();
      if (t.kind != Tok::Op) break;
      if (t.text == ".") {
        next();
        if (cur().kind == Tok::Name) {
          auto n = std::make_unique<GetAttrNode>(t.pos);
          n->obj = std::move(node);
          n->attr = next().text;
          node = std::move(n);
        } else if (cur().kind == Tok::Int) {
          auto n = std::make_unique<GetItemNode>(t.pos);
          n->obj = std::move(node);
          n->index = std::make_unique<LiteralNode>(cur().pos, Value::integer(cur().ival));
          next();
          node = std::move(n);
        } else {
          fail("expected an attribute name after '.'");
        }
      } else if (t.text == "[") {
        next();
        node = parseSubscript(std::move(node), t.pos);
      } else if (t.text == "(") {
        auto n = std::make_unique<CallNode>(t.pos);
        n->callee = std::move(node);
        parseArgs(n->args);
        node = std::move(n);
      } else {
        break;
      }
    }
    return node;
  }

  NodePtr parseSubscript(NodePtr obj, uint32_t pos) {
    NodePtr start;
    if (!isOp(":")) {
      start = parseExpression();
      if (skipOp("]")) {
        auto n = std::make_unique<GetItemNode>(pos);
        n->obj = std::move(obj);
        n->index = std::move(start);
        return n;
      }
    }
    auto s = std::make_unique<SliceNode>(pos);
    s->obj = std::move(obj);
    s->start = std::move(start);
    expectOp(":");
    if (!isOp("]") && !isOp(":")) s->stop = parseExpression();
    if (skipOp(":")) {
      if (!isOp("]")) s->step = parseExpression();
    }
    expectOp("]");
    return s;
  }

  std::unique_ptr<FilterNode> parseFilterCall(NodePtr operand, uint32_t pos) {
    auto f = std::make_unique<FilterNode>(NodeKind::Filter, pos);
    f->operand = std::move(operand);
    f->name = expectName();
    while (isOp(".")) {
      next();
      f->name += "." + expectName();
    }
    if (isOp("(")) parseArgs(f->args);
    return f;
  }

  NodePtr parseFilterExpr(NodePtr node) {
    ChainGuard chain(*this);
    while (true) {
      chain.link();
      if (isOp("|")) {
        uint32_t pos = next().pos;
        node = parseFilterCall(std::move(node), pos);
      } else if (isName("is")) {
        uint32_t pos = next().pos;
        auto f = std::make_unique<FilterNode>(NodeKind::Test, pos);
        f->operand = std::move(node);
        if (skipName("not")) f->negated = true;
        f->name = expectName();
        while (isOp(".")) {
          next();
          f->name += "." + expectName();
        }
        const Token& a = cur();
        if (isOp("(")) {
          parseArgs(f->args);
        } else if ((a.kind == Tok::Name && a.text != "else" && a.text != "or" && a.text != "and" && a.text != "if" &&
                    a.text != "is" && a.text != "in" && a.text != "not") ||
                   a.kind == Tok::String || a.kind == Tok::Int || a.kind == Tok::Float ||
                   (a.kind == Tok::Op && (a.text == "[" || a.text == "{"))) {
          f->args.positional.push_back(parsePostfix(parsePrimary()));
        }
        node = std::move(f);
      } else if (isOp("(")) {
        auto n = std::make_unique<CallNode>(cur().pos);
        n->callee = std::move(node);
        parseArgs(n->args);
        node = std::move(n);
      } else {
        break;
      }
    }
    return node;
  }

  const std::vector<Token>& t_;
  Symbols& sym_;
  size_t i_ = 0;
  int depth_ = 0;
  int loopDepth_ = 0;
};

} // namespace

NodeList parseTemplate(const std::vector<Token>& tokens, Symbols& symbols) {
  return Parser(tokens, symbols).parseRoot();
}

} // namespace maskscope::jinja
