#include "sandbox/cel/parser.hpp"

#include <charconv>
#include <set>

#include "sandbox/cel/lexer.hpp"
#include "sandbox/cel/text.hpp"

namespace respool::sandbox::cel {
namespace {

struct Abort {};

const char* kExpectExpr =
    "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, "
    "STRING, BYTES, IDENTIFIER}";

const std::set<std::string, std::less<>> kReserved = {
    "as",  "break", "const",   "continue",  "else",   "for", "function", "if",   "import",
    "let", "loop",  "package", "namespace", "return", "var", "void",     "while"};

// Functions whose names carry a namespace: `strings.quote(x)` is the global `strings.quote`.
const std::set<std::string, std::less<>> kNamespaced = {"strings.quote",
                                                        "optional.of",
                                                        "optional.none",
                                                        "optional.ofNonZeroValue",
                                                        "sets.contains",
                                                        "sets.equivalent",
                                                        "sets.intersects",
                                                        "ip.isCanonical",
                                                        "math.greatest",
                                                        "math.least",
                                                        "base64.encode",
                                                        "base64.decode",
                                                        "format.named",
                                                        "format.dns1123Label",
                                                        "format.dns1123Subdomain",
                                                        "format.dns1035Label",
                                                        "format.qualifiedName",
                                                        "format.dns1123LabelPrefix",
                                                        "format.dns1123SubdomainPrefix",
                                                        "format.dns1035LabelPrefix",
                                                        "format.labelValue",
                                                        "format.uri",
                                                        "format.uuid",
                                                        "format.byte",
                                                        "format.date",
                                                        "format.datetime"};

ExprPtr node(ExprKind kind, std::int32_t pos) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->pos = pos;
  return e;
}

// "a.b.c" for a chain of identifiers and selections, else "".
std::string qualified_name(const Expr& e) {
  if (e.kind == ExprKind::Ident) return e.name;
  if (e.kind == ExprKind::Select && !e.test_only && !e.optional && e.target) {
    std::string prefix = qualified_name(*e.target);
    return prefix.empty() ? "" : prefix + "." + e.name;
  }
  return "";
}

class Parser {
 public:
  explicit Parser(std::string_view src) : src_(src), toks_(tokenize(src)) {}

  ParseResult run() {
    ParseResult r;
    try {
      if (toks_.back().tok == Tok::Error) fail(toks_.back().pos, toks_.back().text);
      ExprPtr e = expr();
      if (peek().tok != Tok::End) fail(peek().pos, mismatch(peek(), "<EOF>"));
      r.expr = std::move(e);
    } catch (const Abort&) {
      r.issues = std::move(issues_);
    }
    return r;
  }

 private:
  std::string_view src_;
  std::vector<Token> toks_;
  std::size_t i_ = 0;
  int depth_ = 0;
  std::vector<Issue> issues_;

  [[noreturn]] void fail(std::int32_t pos, std::string message) {
    issues_.push_back({pos, std::move(message)});
    throw Abort{};
  }

  static std::string display(const Token& t) { return t.tok == Tok::End ? "<EOF>" : t.text; }
  std::string mismatch(const Token& t, const std::string& expecting) const {
    return "Syntax error: mismatched input '" + display(t) + "' expecting " + expecting;
  }

  const Token& peek(std::size_t k = 0) const {
    std::size_t at = i_ + k;
    return at < toks_.size() ? toks_[at] : toks_.back();
  }
  bool punct(const char* p, std::size_t k = 0) const {
    return peek(k).tok == Tok::Punct && peek(k).text == p;
  }
  const Token& take() { return toks_[i_ < toks_.size() - 1 ? i_++ : i_]; }
  void expect(const char* p) {
    if (!punct(p))
      fail(peek().pos,
           "Syntax error: missing '" + std::string(p) + "' at '" + display(peek()) + "'");
    take();
  }

  struct Depth {
    Parser& p;
    explicit Depth(Parser& parser) : p(parser) {
      if (++p.depth_ > kMaxRecursionDepth) {
        p.fail(p.peek().pos,
               "expression recursion limit exceeded: " + std::to_string(kMaxRecursionDepth));
      }
    }
    ~Depth() { --p.depth_; }
  };

  ExprPtr call(std::int32_t pos, std::string name, std::vector<ExprPtr> args,
               ExprPtr target = nullptr) {
    auto e = node(ExprKind::Call, pos);
    e->name = std::move(name);
    e->args = std::move(args);
    e->target = std::move(target);
    return e;
  }

  ExprPtr binary(std::int32_t pos, const std::string& fn, ExprPtr a, ExprPtr b) {
    std::vector<ExprPtr> args;
    args.push_back(std::move(a));
    args.push_back(std::move(b));
    return call(pos, fn, std::move(args));
  }

  ExprPtr expr() {
    Depth d(*this);
    ExprPtr cond = logical("||");
    if (!punct("?")) return cond;
    std::int32_t pos = take().pos;
    ExprPtr yes = logical("||");
    expect(":");
    ExprPtr no = expr();
    std::vector<ExprPtr> args;
    args.push_back(std::move(cond));
    args.push_back(std::move(yes));
    args.push_back(std::move(no));
    return call(pos, "_?_:_", std::move(args));
  }

  ExprPtr logical(const char* op) {
    bool is_or = std::string_view(op) == "||";
    ExprPtr left = is_or ? logical("&&") : relation();
    while (punct(op)) {
      std::int32_t pos = take().pos;
      ExprPtr right = is_or ? logical("&&") : relation();
      left = binary(pos, is_or ? "_||_" : "_&&_", std::move(left), std::move(right));
    }
    return left;
  }

  ExprPtr relation() {
    ExprPtr left = additive();
    for (;;) {
      const Token& t = peek();
      std::string fn;
      if (t.tok == Tok::In) {
        fn = "@in";
      } else if (t.tok == Tok::Punct) {
        if (t.text == "<") fn = "_<_";
        if (t.text == "<=") fn = "_<=_";
        if (t.text == ">") fn = "_>_";
        if (t.text == ">=") fn = "_>=_";
        if (t.text == "==") fn = "_==_";
        if (t.text == "!=") fn = "_!=_";
      }
      if (fn.empty()) return left;
      std::int32_t pos = take().pos;
      left = binary(pos, fn, std::move(left), additive());
    }
  }

  ExprPtr additive() {
    ExprPtr left = multiplicative();
    while (punct("+") || punct("-")) {
      const Token& t = take();
      std::string fn = t.text == "+" ? "_+_" : "_-_";
      left = binary(t.pos, fn, std::move(left), multiplicative());
    }
    return left;
  }

  ExprPtr multiplicative() {
    ExprPtr left = unary();
    while (punct("*") || punct("/") || punct("%")) {
      const Token& t = take();
      std::string fn = "_" + t.text + "_";
      left = binary(t.pos, fn, std::move(left), unary());
    }
    return left;
  }

  ExprPtr unary() {
    Depth d(*this);
    if (punct("!") || punct("-")) {
      std::string op = peek().text;
      // A single '-' before a number is part of the literal (-9223372036854775808 is valid).
      if (op == "-" && (peek(1).tok == Tok::Int || peek(1).tok == Tok::Double) &&
          !(punct("-", 1))) {
        std::int32_t pos = take().pos;
        return member(literal(take(), true, pos));
      }
      std::int32_t pos = peek().pos;
      int count = 0;
      while (punct(op.c_str()))
        take(), ++count;
      ExprPtr operand = member(primary());
      if (count % 2 == 0) return operand;
      std::vector<ExprPtr> args;
      args.push_back(std::move(operand));
      return call(pos, op == "!" ? "!_" : "-_", std::move(args));
    }
    return member(primary());
  }

  ExprPtr literal(const Token& t, bool negative, std::int32_t pos) {
    auto e = node(ExprKind::Literal, pos);
    if (t.tok == Tok::Int) {
      std::string_view text = t.text;
      bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
      if (hex) text.remove_prefix(2);
      unsigned long long u = 0;
      auto r = std::from_chars(text.data(), text.data() + text.size(), u, hex ? 16 : 10);
      bool ok = r.ec == std::errc() &&
                (negative ? u <= 9223372036854775808ULL : u <= 9223372036854775807ULL);
      if (!ok) fail(pos, "invalid int literal");
      e->literal = Value::integer(negative ? static_cast<std::int64_t>(0ULL - u)
                                           : static_cast<std::int64_t>(u));
    } else {
      e->literal = negative ? Value::dbl(-t.value.as_double()) : t.value;
    }
    return e;
  }

  std::vector<ExprPtr> arguments(const char* close) {
    std::vector<ExprPtr> args;
    if (punct(close)) {
      take();
      return args;
    }
    for (;;) {
      args.push_back(expr());
      if (punct(",")) {
        take();
        continue;
      }
      expect(close);
      return args;
    }
  }

  ExprPtr member(ExprPtr e) {
    for (;;) {
      if (punct(".")) {
        std::int32_t pos = take().pos;
        bool optional = false;
        if (punct("?")) take(), optional = true;
        const Token& id = peek();
        if (id.tok != Tok::Ident && id.tok != Tok::EscIdent && id.tok != Tok::True &&
            id.tok != Tok::False && id.tok != Tok::Null && id.tok != Tok::In) {
          fail(id.pos, mismatch(id, "{IDENTIFIER, ESC_IDENTIFIER}"));
        }
        take();
        if (punct("(") && !optional && id.tok != Tok::EscIdent) {
          std::int32_t open = take().pos;
          auto args = arguments(")");
          e = receiver_call(open, id.text, std::move(e), std::move(args));
          continue;
        }
        auto sel = node(ExprKind::Select, pos);
        sel->name = id.text;
        sel->optional = optional;
        sel->target = std::move(e);
        e = std::move(sel);
      } else if (punct("[")) {
        std::int32_t pos = take().pos;
        bool optional = false;
        if (punct("?")) take(), optional = true;
        ExprPtr index = expr();
        expect("]");
        e = binary(pos, optional ? "_[?_]" : "_[_]", std::move(e), std::move(index));
      } else if (punct("{") && !qualified_name(*e).empty() && e->kind != ExprKind::Call) {
        e = struct_literal(qualified_name(*e), take().pos);
      } else {
        return e;
      }
    }
  }

  ExprPtr struct_literal(std::string type, std::int32_t pos) {
    auto e = node(ExprKind::Struct, pos);
    e->name = std::move(type);
    while (!punct("}")) {
      bool optional = false;
      if (punct("?")) take(), optional = true;
      const Token& id = peek();
      if (id.tok != Tok::Ident && id.tok != Tok::EscIdent) fail(id.pos, mismatch(id, "'}'"));
      take();
      expect(":");
      e->field_names.push_back(id.text);
      e->optional_entries.push_back(optional);
      e->args.push_back(expr());
      if (!punct(",")) break;
      take();
    }
    expect("}");
    return e;
  }

  ExprPtr primary() {
    Depth d(*this);
    const Token& t = peek();
    switch (t.tok) {
      case Tok::Int:
      case Tok::Double:
        take();
        return literal(t, false, t.pos);
      case Tok::Uint:
      case Tok::String:
      case Tok::Bytes: {
        take();
        auto e = node(ExprKind::Literal, t.pos);
        e->literal = t.value;
        return e;
      }
      case Tok::True:
      case Tok::False:
      case Tok::Null: {
        take();
        auto e = node(ExprKind::Literal, t.pos);
        if (t.tok != Tok::Null) e->literal = Value::boolean(t.tok == Tok::True);
        return e;
      }
      case Tok::Ident:
        return identifier(false);
      default:
        break;
    }
    if (punct(".") && peek(1).tok == Tok::Ident) {
      take();
      return identifier(true);
    }
    if (punct("(")) {
      take();
      ExprPtr e = expr();
      expect(")");
      return e;
    }
    if (punct("[")) {
      auto e = node(ExprKind::List, take().pos);
      while (!punct("]")) {
        bool optional = false;
        if (punct("?")) take(), optional = true;
        e->args.push_back(expr());
        e->optional_entries.push_back(optional);
        if (!punct(",")) break;
        take();
      }
      expect("]");
      return e;
    }
    if (punct("{")) {
      auto e = node(ExprKind::Map, take().pos);
      while (!punct("}")) {
        bool optional = false;
        if (punct("?")) take(), optional = true;
        e->args.push_back(expr());
        expect(":");
        e->args.push_back(expr());
        e->optional_entries.push_back(optional);
        if (!punct(",")) break;
        take();
      }
      expect("}");
      return e;
    }
    fail(t.pos, mismatch(t, kExpectExpr));
  }

  ExprPtr identifier(bool leading_dot) {
    const Token& id = take();
    if (kReserved.count(id.text)) fail(id.pos, "reserved identifier: " + id.text);
    std::string name = leading_dot ? "." + id.text : id.text;
    if (punct("(")) {
      std::int32_t open = take().pos;  // cel-go places a global call at its '('
      auto args = arguments(")");
      return global_call(open, leading_dot ? id.text : name, std::move(args));
    }
    auto e = node(ExprKind::Ident, id.pos);
    e->name = std::move(name);
    return e;
  }

  ExprPtr comprehension(std::int32_t pos, Macro macro, ExprPtr range, std::vector<ExprPtr> args,
                        int vars) {
    auto e = node(ExprKind::Comprehension, pos);
    e->macro = macro;
    for (int k = 0; k < vars; ++k) {
      if (args[k]->kind != ExprKind::Ident || args[k]->name[0] == '.') {
        fail(args[k]->pos, "argument must be a simple name");
      }
    }
    e->var = args[0]->name;
    if (vars == 2) e->var2 = args[1]->name;
    e->args.push_back(std::move(range));
    for (std::size_t k = static_cast<std::size_t>(vars); k < args.size(); ++k)
      e->args.push_back(std::move(args[k]));
    return e;
  }

  ExprPtr global_call(std::int32_t pos, std::string name, std::vector<ExprPtr> args) {
    if (name == "has" && args.size() == 1) {
      if (args[0]->kind != ExprKind::Select || args[0]->optional) {
        fail(args[0]->pos, "invalid argument to has() macro");
      }
      ExprPtr e = std::move(args[0]);
      e->test_only = true;
      return e;
    }
    return call(pos, std::move(name), std::move(args));
  }

  ExprPtr receiver_call(std::int32_t pos, const std::string& name, ExprPtr target,
                        std::vector<ExprPtr> args) {
    std::size_t n = args.size();
    auto macro = [&](Macro m, int vars) {
      return comprehension(pos, m, std::move(target), std::move(args), vars);
    };
    if ((name == "all" || name == "exists") && (n == 2 || n == 3)) {
      Macro m = name == "all" ? Macro::All : Macro::Exists;
      return macro(m, static_cast<int>(n) - 1);
    }
    if ((name == "exists_one" || name == "existsOne") && (n == 2 || n == 3))
      return macro(Macro::ExistsOne, static_cast<int>(n) - 1);
    if (name == "map" && n == 2) return macro(Macro::Map, 1);
    if (name == "map" && n == 3) return macro(Macro::MapFilter, 1);
    if (name == "filter" && n == 2) return macro(Macro::Filter, 1);
    if (name == "transformList" && (n == 3 || n == 4))
      return macro(n == 3 ? Macro::TransformList : Macro::TransformListFilter, 2);
    if (name == "transformMap" && (n == 3 || n == 4))
      return macro(n == 3 ? Macro::TransformMap : Macro::TransformMapFilter, 2);
    if ((name == "optMap" || name == "optFlatMap") && n == 2)
      return macro(name == "optMap" ? Macro::OptMap : Macro::OptFlatMap, 1);
    std::string qualified = qualified_name(*target);
    if (qualified == "cel" && name == "bind" && n == 3) {
      ExprPtr init = std::move(args[1]);
      args.erase(args.begin() + 1);
      return comprehension(pos, Macro::Bind, std::move(init), std::move(args), 1);
    }
    if (!qualified.empty() && kNamespaced.count(qualified + "." + name)) {
      return call(pos, qualified + "." + name, std::move(args));
    }
    return call(pos, name, std::move(args), std::move(target));
  }
};

}  // namespace

ParseResult parse(std::string_view source) {
  if (utf8_length(source) > kMaxSourceCodePoints) {
    ParseResult r;
    r.issues.push_back({0, "expression code point size exceeds limit: size: " +
                               std::to_string(utf8_length(source)) + ", limit " +
                               std::to_string(kMaxSourceCodePoints)});
    return r;
  }
  return Parser(source).run();
}

std::string format_issues(std::string_view source, const std::vector<Issue>& issues) {
  std::string out;
  for (const Issue& issue : issues) {
    auto pos = static_cast<std::size_t>(std::max<std::int32_t>(0, issue.pos));
    if (pos > source.size()) pos = source.size();
    std::size_t line_start = source.rfind('\n', pos == 0 ? 0 : pos - 1);
    line_start = (line_start == std::string_view::npos || pos == 0) ? 0 : line_start + 1;
    if (pos > 0 && source[pos - 1] == '\n') line_start = pos;
    std::size_t line = 1;
    for (std::size_t k = 0; k < line_start; ++k)
      line += source[k] == '\n';
    std::size_t line_end = source.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = source.size();
    std::string_view text = source.substr(line_start, line_end - line_start);
    std::vector<char32_t> before = utf8_decode(source.substr(line_start, pos - line_start));
    if (!out.empty()) out += "\n";
    out += "ERROR: <input>:" + std::to_string(line) + ":" + std::to_string(before.size() + 1) +
           ": " + issue.message;
    std::string snippet(text);
    for (char& c : snippet) {
      if (c == '\t') c = ' ';
    }
    out += "\n | " + snippet + "\n | ";
    for (char32_t cp : before)
      out += cp < 0x80 ? "." : "\xEF\xBC\x8E";
    std::vector<char32_t> at = utf8_decode(source.substr(pos, 4));
    out += (!at.empty() && at[0] >= 0x80) ? "\xEF\xBC\xBE" : "^";
  }
  return out;
}

}  // namespace respool::sandbox::cel
