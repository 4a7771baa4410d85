#include "sandbox/cel/lexer.hpp"

#include <charconv>
#include <cstdlib>

#include "sandbox/cel/text.hpp"

namespace respool::sandbox::cel {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
int hex_value(char c) {
  if (is_digit(c)) return c - '0';
  return (c | 0x20) - 'a' + 10;
}

class Lexer {
 public:
  explicit Lexer(std::string_view src) : s_(src) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    for (;;) {
      skip_space();
      Token t = next();
      bool stop = t.tok == Tok::End || t.tok == Tok::Error;
      out.push_back(std::move(t));
      if (stop) return out;
    }
  }

 private:
  std::string_view s_;
  std::size_t i_ = 0;

  char at(std::size_t k) const { return k < s_.size() ? s_[k] : '\0'; }

  void skip_space() {
    for (;;) {
      char c = at(i_);
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
        ++i_;
      } else if (c == '/' && at(i_ + 1) == '/') {
        while (i_ < s_.size() && s_[i_] != '\n')
          ++i_;
      } else {
        return;
      }
    }
  }

  Token make(Tok tok, std::size_t start) const {
    Token t;
    t.tok = tok;
    t.pos = static_cast<std::int32_t>(start);
    t.text = std::string(s_.substr(start, i_ - start));
    return t;
  }

  Token error(std::size_t start, std::string message) const {
    Token t;
    t.tok = Tok::Error;
    t.pos = static_cast<std::int32_t>(start);
    t.text = std::move(message);
    return t;
  }

  Token next() {
    std::size_t start = i_;
    if (i_ >= s_.size()) return make(Tok::End, start);
    char c = s_[i_];
    // String and bytes literals, with their r/b prefixes.
    {
      std::size_t k = i_;
      bool raw = false, bytes = false;
      for (int n = 0; n < 2; ++n) {
        char p = at(k);
        if ((p == 'r' || p == 'R') && !raw) {
          raw = true, ++k;
        } else if ((p == 'b' || p == 'B') && !bytes) {
          bytes = true, ++k;
        }
      }
      if ((at(k) == '\'' || at(k) == '"') && (k == i_ || raw || bytes)) {
        i_ = k;
        return string_literal(start, raw, bytes);
      }
    }
    if (is_ident_start(c)) {
      while (is_ident_start(at(i_)) || is_digit(at(i_)))
        ++i_;
      Token t = make(Tok::Ident, start);
      if (t.text == "true") t.tok = Tok::True;
      if (t.text == "false") t.tok = Tok::False;
      if (t.text == "null") t.tok = Tok::Null;
      if (t.text == "in") t.tok = Tok::In;
      return t;
    }
    if (c == '`') {
      ++i_;
      std::size_t name_start = i_;
      while (i_ < s_.size() && s_[i_] != '`') {
        char x = s_[i_];
        bool ok = is_ident_start(x) || is_digit(x) || x == '.' || x == '-' || x == '/' || x == ' ';
        if (!ok)
          return error(i_, "token recognition error at: '`" +
                               std::string(s_.substr(name_start, i_ - name_start + 1)) + "'");
        ++i_;
      }
      if (i_ >= s_.size() || i_ == name_start)
        return error(start, "token recognition error at: '" +
                                std::string(s_.substr(start, i_ - start)) + "'");
      Token t = make(Tok::EscIdent, start);
      t.text = std::string(s_.substr(name_start, i_ - name_start));
      ++i_;
      return t;
    }
    if (is_digit(c) || (c == '.' && is_digit(at(i_ + 1)))) return number(start);
    static const char* kTwo[] = {"==", "!=", "<=", ">=", "&&", "||"};
    for (const char* op : kTwo) {
      if (c == op[0] && at(i_ + 1) == op[1]) {
        i_ += 2;
        return make(Tok::Punct, start);
      }
    }
    if (std::string_view("!<>+-*/%?:.,[]{}()").find(c) != std::string_view::npos) {
      ++i_;
      return make(Tok::Punct, start);
    }
    std::size_t len = 1;
    auto uc = static_cast<unsigned char>(c);
    if (uc >= 0xC0) len = uc >= 0xF0 ? 4 : uc >= 0xE0 ? 3 : 2;
    if (c == '=' || c == '&' || c == '|') len = 1;
    return error(start, "token recognition error at: '" + std::string(s_.substr(start, len)) + "'");
  }

  Token number(std::size_t start) {
    if (at(i_) == '0' && (at(i_ + 1) == 'x' || at(i_ + 1) == 'X') && is_hex(at(i_ + 2))) {
      i_ += 2;
      while (is_hex(at(i_)))
        ++i_;
      return int_suffix(start, 16);
    }
    bool is_float = false;
    while (is_digit(at(i_)))
      ++i_;
    if (at(i_) == '.' && is_digit(at(i_ + 1))) {
      is_float = true;
      ++i_;
      while (is_digit(at(i_)))
        ++i_;
    }
    if (at(i_) == 'e' || at(i_) == 'E') {
      std::size_t k = i_ + 1;
      if (at(k) == '+' || at(k) == '-') ++k;
      if (is_digit(at(k))) {
        is_float = true;
        i_ = k;
        while (is_digit(at(i_)))
          ++i_;
      }
    }
    if (!is_float) return int_suffix(start, 10);
    Token t = make(Tok::Double, start);
    t.value = Value::dbl(std::strtod(t.text.c_str(), nullptr));
    return t;
  }

  Token int_suffix(std::size_t start, int base) {
    std::size_t digits_end = i_;
    if (at(i_) == 'u' || at(i_) == 'U') {
      ++i_;
      Token t = make(Tok::Uint, start);
      std::string_view d = s_.substr(start, digits_end - start);
      if (base == 16) d.remove_prefix(2);
      std::uint64_t u = 0;
      auto r = std::from_chars(d.data(), d.data() + d.size(), u, base);
      if (r.ec != std::errc()) return error(start, "invalid uint literal");
      t.value = Value::uinteger(u);
      return t;
    }
    // Ints keep their text: the parser folds a leading '-' in before checking the range.
    return make(Tok::Int, start);
  }

  // Reads one escape sequence after a backslash into `out`; false when malformed.
  bool escape(std::string& out, bool bytes) {
    char e = at(i_);
    ++i_;
    switch (e) {
      case 'a':
        out += '\a';
        return true;
      case 'b':
        out += '\b';
        return true;
      case 'f':
        out += '\f';
        return true;
      case 'n':
        out += '\n';
        return true;
      case 'r':
        out += '\r';
        return true;
      case 't':
        out += '\t';
        return true;
      case 'v':
        out += '\v';
        return true;
      case '\\':
      case '?':
      case '"':
      case '\'':
      case '`':
        out += e;
        return true;
      default:
        break;
    }
    std::uint32_t cp = 0;
    if (e == 'x' || e == 'X' || e == 'u' || e == 'U') {
      int n = e == 'u' ? 4 : e == 'U' ? 8 : 2;
      if (bytes && (e == 'u' || e == 'U')) return false;
      for (int k = 0; k < n; ++k) {
        if (!is_hex(at(i_))) return false;
        cp = cp * 16 + static_cast<std::uint32_t>(hex_value(at(i_)));
        ++i_;
      }
    } else if (e >= '0' && e <= '3') {
      cp = static_cast<std::uint32_t>(e - '0');
      for (int k = 0; k < 2; ++k) {
        if (at(i_) < '0' || at(i_) > '7') return false;
        cp = cp * 8 + static_cast<std::uint32_t>(at(i_) - '0');
        ++i_;
      }
    } else {
      return false;
    }
    if (bytes) {
      out += static_cast<char>(cp);
      return true;
    }
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    utf8_append(out, cp);
    return true;
  }

  Token string_literal(std::size_t start, bool raw, bool bytes) {
    char q = s_[i_];
    bool triple = at(i_ + 1) == q && at(i_ + 2) == q;
    i_ += triple ? 3 : 1;
    std::string out;
    for (;;) {
      if (i_ >= s_.size())
        return error(start, "token recognition error at: '" + std::string(s_.substr(start)) + "'");
      char c = s_[i_];
      if (triple && c == q && at(i_ + 1) == q && at(i_ + 2) == q) {
        i_ += 3;
        break;
      }
      if (!triple && c == q) {
        ++i_;
        break;
      }
      if (!triple && (c == '\n' || c == '\r')) {
        return error(start, "token recognition error at: '" +
                                std::string(s_.substr(start, i_ - start + 1)) + "'");
      }
      if (c == '\\' && !raw) {
        ++i_;
        if (!escape(out, bytes)) {
          return error(start, "token recognition error at: '" +
                                  std::string(s_.substr(start, i_ - start)) + "'");
        }
        continue;
      }
      out += c;
      ++i_;
    }
    Token t = make(bytes ? Tok::Bytes : Tok::String, start);
    t.value = bytes ? Value::bytes(std::move(out)) : Value::string(std::move(out));
    return t;
  }
};

}  // namespace

std::vector<Token> tokenize(std::string_view source) {
  return Lexer(source).run();
}

}  // namespace respool::sandbox::cel
