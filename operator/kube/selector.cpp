// Label selectors: the lexer and recursive-descent parser of k8s.io/apimachinery/pkg/labels
// (same tokens, same precedence of checks, same error text), and their matching.

#include "operator/kube/selector.hpp"

#include <algorithm>
#include <optional>

#include "apimachinery/field_errors.hpp"
#include "apimachinery/go_format.hpp"
#include "apimachinery/names.hpp"
#include "operator/kube/selector_requirement.hpp"

namespace respool::kube {

using apimachinery::go_quote;
using apimachinery::invalid_value_error;
using apimachinery::qualified_name_errors;
namespace {

using Op = LabelRequirement::Op;

enum class Token {
  Error,
  End,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
};

struct Item {
  Token token = Token::End;
  std::string literal;
};

std::optional<Token> keyword(std::string_view s) {
  if (s == ")") return Token::ClosedPar;
  if (s == ",") return Token::Comma;
  if (s == "!") return Token::DoesNotExist;
  if (s == "==") return Token::DoubleEquals;
  if (s == "=") return Token::Equals;
  if (s == ">") return Token::GreaterThan;
  if (s == "in") return Token::In;
  if (s == "<") return Token::LessThan;
  if (s == "!=") return Token::NotEquals;
  if (s == "notin") return Token::NotIn;
  if (s == "(") return Token::OpenPar;
  return std::nullopt;
}

bool is_whitespace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}
bool is_special(char c) {
  return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}

// The Go lexer reads bytes and takes a NUL byte for the end of the input.
class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  std::vector<Item> scan() {
    std::vector<Item> items;
    while (true) {
      items.push_back(next());
      if (items.back().token == Token::End) return items;
    }
  }

 private:
  bool at_end() const { return pos_ >= text_.size() || text_[pos_] == '\0'; }

  Item next() {
    while (!at_end() && is_whitespace(text_[pos_]))
      ++pos_;
    if (at_end()) return {Token::End, ""};
    if (is_special(text_[pos_])) return special_symbol();
    return identifier_or_keyword();
  }

  Item identifier_or_keyword() {
    const std::size_t start = pos_;
    while (!at_end() && !is_special(text_[pos_]) && !is_whitespace(text_[pos_]))
      ++pos_;
    std::string literal(text_.substr(start, pos_ - start));
    if (auto token = keyword(literal)) return {*token, std::move(literal)};
    return {Token::Identifier, std::move(literal)};
  }

  // The longest run of special characters that forms an operator: "!=", "==", "=", ...
  Item special_symbol() {
    std::string buffer;
    std::optional<Item> last;
    while (!at_end() && is_special(text_[pos_])) {
      buffer += text_[pos_++];
      if (auto token = keyword(buffer)) {
        last = Item{*token, buffer};
      } else if (last) {
        --pos_;
        break;
      }
    }
    if (!last) return {Token::Error, "error expected: keyword found '" + buffer + "'"};
    return *last;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

// Whether "in"/"notin" are operators (after a key) or plain values (anywhere else).
enum class Context { KeyAndOperator, Values };

class Parser {
 public:
  explicit Parser(std::string_view text) : items_(Lexer(text).scan()) {}

  std::expected<std::vector<LabelRequirement>, std::string> parse() {
    std::vector<LabelRequirement> requirements;
    while (true) {
      const Item current = lookahead(Context::Values);
      switch (current.token) {
        case Token::Identifier:
        case Token::DoesNotExist: {
          auto requirement = parse_requirement();
          if (!requirement) {
            return std::unexpected("unable to parse requirement: " + requirement.error());
          }
          requirements.push_back(std::move(*requirement));
          const Item after = consume(Context::Values);
          if (after.token == Token::End) return requirements;
          if (after.token != Token::Comma) {
            return std::unexpected("found '" + after.literal +
                                   "', expected: ',' or 'end of string'");
          }
          const Item next = lookahead(Context::Values);
          if (next.token != Token::Identifier && next.token != Token::DoesNotExist) {
            return std::unexpected("found '" + next.literal + "', expected: identifier after ','");
          }
          break;
        }
        case Token::End:
          return requirements;
        default:
          return std::unexpected("found '" + current.literal +
                                 "', expected: !, identifier, or 'end of string'");
      }
    }
  }

 private:
  static Item in_context(Item item, Context context) {
    if (context == Context::Values && (item.token == Token::In || item.token == Token::NotIn)) {
      item.token = Token::Identifier;
    }
    return item;
  }
  Item lookahead(Context context) const { return in_context(items_[position_], context); }
  Item consume(Context context) {
    Item item = in_context(items_[position_], context);
    if (position_ + 1 < items_.size()) ++position_;
    return item;
  }

  std::expected<LabelRequirement, std::string> parse_requirement() {
    Item key = consume(Context::Values);
    std::optional<Op> op;
    if (key.token == Token::DoesNotExist) {
      op = Op::DoesNotExist;
      key = consume(Context::Values);
    }
    if (key.token != Token::Identifier) {
      return std::unexpected("found '" + key.literal + "', expected: identifier");
    }
    if (auto errors = qualified_name_errors(key.literal); !errors.empty()) {
      return std::unexpected(
          invalid_value_error("<nil>", go_quote(key.literal), join_errors(errors)));
    }
    const Token after_key = lookahead(Context::Values).token;
    if ((after_key == Token::End || after_key == Token::Comma) && op != Op::DoesNotExist) {
      op = Op::Exists;
    }
    if (op) return make_requirement(key.literal, *op, {});

    auto binary = parse_operator();
    if (!binary) return std::unexpected(binary.error());
    auto values =
        (*binary == Op::In || *binary == Op::NotIn) ? parse_values() : parse_exact_value();
    if (!values) return std::unexpected(values.error());
    std::ranges::sort(*values);
    const auto [first, last] = std::ranges::unique(*values);
    values->erase(first, last);
    return make_requirement(key.literal, *binary, std::move(*values));
  }

  std::expected<Op, std::string> parse_operator() {
    const Item item = consume(Context::KeyAndOperator);
    switch (item.token) {
      case Token::In:
        return Op::In;
      case Token::Equals:
      case Token::DoubleEquals:
        return Op::Equals;
      case Token::GreaterThan:
        return Op::GreaterThan;
      case Token::LessThan:
        return Op::LessThan;
      case Token::NotIn:
        return Op::NotIn;
      case Token::NotEquals:
        return Op::NotEquals;
      default:
        return std::unexpected("found '" + item.literal +
                               "', expected: in, notin, =, ==, !=, gt, lt");
    }
  }

  // "(a,b,c)"; "()" and empty items stand for the empty value.
  std::expected<std::vector<std::string>, std::string> parse_values() {
    const Item open = consume(Context::Values);
    if (open.token != Token::OpenPar) {
      return std::unexpected("found '" + open.literal + "' expected: '('");
    }
    const Item first = lookahead(Context::Values);
    switch (first.token) {
      case Token::Identifier:
      case Token::Comma: {
        auto values = parse_identifiers_list();
        if (!values) return values;
        // As in Go, the literal named is the one that opened the list.
        if (consume(Context::Values).token != Token::ClosedPar) {
          return std::unexpected("found '" + first.literal + "', expected: ')'");
        }
        return values;
      }
      case Token::ClosedPar:
        consume(Context::Values);
        return std::vector<std::string>{""};
      default:
        return std::unexpected("found '" + first.literal + "', expected: ',', ')' or identifier");
    }
  }

  std::expected<std::vector<std::string>, std::string> parse_identifiers_list() {
    std::vector<std::string> values;
    while (true) {
      const Item item = consume(Context::Values);
      if (item.token == Token::Identifier) {
        values.push_back(item.literal);
        const Item next = lookahead(Context::Values);
        if (next.token == Token::Comma) continue;
        if (next.token == Token::ClosedPar) return values;
        return std::unexpected("found '" + next.literal + "', expected: ',' or ')'");
      }
      if (item.token == Token::Comma) {
        if (values.empty()) values.emplace_back();  // "(,"
        const Token next = lookahead(Context::Values).token;
        if (next == Token::ClosedPar) {  // ",)"
          values.emplace_back();
          return values;
        }
        if (next == Token::Comma) values.emplace_back();  // ",,"
        continue;
      }
      return std::unexpected("found '" + item.literal + "', expected: ',', or identifier");
    }
  }

  std::expected<std::vector<std::string>, std::string> parse_exact_value() {
    const Token next = lookahead(Context::Values).token;
    if (next == Token::End || next == Token::Comma) return std::vector<std::string>{""};
    const Item item = consume(Context::Values);
    if (item.token == Token::Identifier) return std::vector<std::string>{item.literal};
    return std::unexpected("found '" + item.literal + "', expected: identifier");
  }

  std::vector<Item> items_;
  std::size_t position_ = 0;
};

std::string op_text(Op op) {
  switch (op) {
    case Op::Equals:
      return "=";
    case Op::NotEquals:
      return "!=";
    case Op::In:
      return " in ";
    case Op::NotIn:
      return " notin ";
    case Op::GreaterThan:
      return ">";
    case Op::LessThan:
      return "<";
    case Op::Exists:
    case Op::DoesNotExist:
      break;
  }
  return "";
}

}  // namespace

std::expected<LabelSelector, std::string> LabelSelector::parse(std::string_view text) {
  auto requirements = Parser(text).parse();
  if (!requirements) return std::unexpected(requirements.error());
  LabelSelector selector;
  selector.requirements_ = std::move(*requirements);
  std::ranges::stable_sort(selector.requirements_, {}, &LabelRequirement::key);
  return selector;
}

LabelSelector LabelSelector::nothing() {
  LabelSelector selector;
  selector.nothing_ = true;
  return selector;
}

bool LabelSelector::matches(const Lookup& labels) const {
  if (nothing_) return false;
  return std::ranges::all_of(requirements_,
                             [&](const LabelRequirement& r) { return r.matches(labels); });
}

std::string LabelSelector::to_string() const {
  std::string out;
  for (const LabelRequirement& r : requirements_) {
    if (!out.empty()) out += ",";
    if (r.op == Op::DoesNotExist) out += "!";
    out += r.key;
    if (r.op == Op::Exists || r.op == Op::DoesNotExist) continue;
    out += op_text(r.op);
    const bool set = r.op == Op::In || r.op == Op::NotIn;
    if (set) out += "(";
    std::vector<std::string> values = r.values;
    std::ranges::sort(values);
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (i > 0) out += ",";
      out += values[i];
    }
    if (set) out += ")";
  }
  return out;
}

}  // namespace respool::kube
