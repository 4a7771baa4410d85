#include "sandbox/schema/go_format.hpp"

#include <charconv>
#include <cmath>
#include <limits>

namespace respool::sandbox::schema::detail {

Kind kind_of(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null:
      return Kind::Null;
    case Json::value_t::boolean:
      return Kind::Bool;
    case Json::value_t::number_integer:
      return Kind::Int;
    case Json::value_t::number_unsigned:
      return value.get<std::uint64_t>() <=
                     static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
                 ? Kind::Int
                 : Kind::Float;
    case Json::value_t::number_float:
      return Kind::Float;
    case Json::value_t::string:
      return Kind::String;
    case Json::value_t::array:
      return Kind::Array;
    case Json::value_t::object:
      return Kind::Object;
    default:
      return Kind::Null;  // binary and discarded values never come out of a JSON parse
  }
}

std::int64_t as_int(const Json& value) {
  if (value.is_number_unsigned()) return static_cast<std::int64_t>(value.get<std::uint64_t>());
  if (value.is_number_integer()) return value.get<std::int64_t>();
  const double number = value.get<double>();
  constexpr double limit = 9223372036854775808.0;  // 2^63
  if (std::isnan(number)) return 0;
  if (number >= limit) return std::numeric_limits<std::int64_t>::max();
  if (number < -limit) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(number);
}

std::int64_t to_int64(double value) {
  constexpr double limit = 9223372036854775808.0;  // 2^63
  if (std::isnan(value) || value >= limit || value < -limit) {
    return std::numeric_limits<std::int64_t>::min();
  }
  return static_cast<std::int64_t>(value);
}

double as_float(const Json& value) {
  if (value.is_number_unsigned()) return static_cast<double>(value.get<std::uint64_t>());
  if (value.is_number_integer()) return static_cast<double>(value.get<std::int64_t>());
  return value.get<double>();
}

namespace {

// Decodes one UTF-8 sequence at text[i]; returns the code point and its length, or -1 and 1
// for a byte that does not start a valid sequence (Go's utf8.RuneError case).
std::pair<long, std::size_t> decode_rune(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80) return {b0, 1};
  std::size_t len = b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC2 ? 2 : 0;
  if (len == 0 || b0 > 0xF4 || i + len > text.size()) return {-1, 1};
  long cp = b0 & (0x7F >> len);
  for (std::size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return {-1, 1};
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  const bool overlong = (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
  if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {-1, 1};
  return {cp, len};
}

// An approximation of unicode.IsPrint for code points above ASCII: the C1 controls, the
// soft hyphen, the line and paragraph separators, the BOM and the private-use and
// non-character planes are not printable.
bool printable(long cp) {
  if (cp < 0x20 || cp == 0x7F) return false;
  if (cp < 0x7F) return true;
  if (cp < 0xA0 || cp == 0xAD || cp == 0x2028 || cp == 0x2029 || cp == 0xFEFF) return false;
  if (cp >= 0xE000 && cp <= 0xF8FF) return false;
  if ((cp & 0xFFFE) == 0xFFFE || cp >= 0xF0000) return false;
  return true;
}

std::string hex(unsigned long value, int width) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (; value; value >>= 4)
    out.insert(out.begin(), digits[value & 0xF]);
  while (static_cast<int>(out.size()) < width)
    out.insert(out.begin(), '0');
  return out;
}

}  // namespace

std::string go_quote(std::string_view text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size();) {
    auto [cp, len] = decode_rune(text, i);
    if (cp < 0) {
      out += "\\x" + hex(static_cast<unsigned char>(text[i]), 2);
    } else if (cp == '"' || cp == '\\') {
      out += '\\';
      out += static_cast<char>(cp);
    } else if (printable(cp)) {
      out.append(text.substr(i, len));
    } else {
      switch (cp) {
        case '\a':
          out += "\\a";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\v':
          out += "\\v";
          break;
        default:
          if (cp < 0x80)
            out += "\\x" + hex(static_cast<unsigned long>(cp), 2);
          else if (cp < 0x10000)
            out += "\\u" + hex(static_cast<unsigned long>(cp), 4);
          else
            out += "\\U" + hex(static_cast<unsigned long>(cp), 8);
      }
    }
    i += len;
  }
  return out + "\"";
}

namespace {

// The shortest decimal digits that round-trip `value` (> 0) and the decimal exponent of the
// first digit, as strconv computes them.
std::pair<std::string, int> shortest_digits(double value) {
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  std::string text(buf, result.ptr);
  const auto e = text.find('e');
  std::string digits;
  for (char c : text.substr(0, e)) {
    if (c != '.') digits += c;
  }
  while (digits.size() > 1 && digits.back() == '0')
    digits.pop_back();
  return {digits, std::stoi(text.substr(e + 1))};
}

std::string exponent_form(const std::string& digits, int exp, int min_exp_digits) {
  std::string out(1, digits[0]);
  if (digits.size() > 1) out += "." + digits.substr(1);
  std::string e = std::to_string(exp < 0 ? -exp : exp);
  while (static_cast<int>(e.size()) < min_exp_digits)
    e = "0" + e;
  return out + (exp < 0 ? "e-" : "e+") + e;
}

std::string fixed_form(const std::string& digits, int exp) {
  if (exp < 0) return "0." + std::string(static_cast<std::size_t>(-exp - 1), '0') + digits;
  const auto int_digits = static_cast<std::size_t>(exp) + 1;
  if (digits.size() <= int_digits) return digits + std::string(int_digits - digits.size(), '0');
  return digits.substr(0, int_digits) + "." + digits.substr(int_digits);
}

}  // namespace

std::string go_float(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (value == 0) return std::signbit(value) ? "-0" : "0";
  const std::string sign = value < 0 ? "-" : "";
  auto [digits, exp] = shortest_digits(std::fabs(value));
  // strconv's %g with the shortest precision switches to an exponent below 1e-4 and from 1e+06.
  if (exp < -4 || exp >= 6) return sign + exponent_form(digits, exp, 2);
  return sign + fixed_form(digits, exp);
}

std::string go_number(const Json& value) {
  return kind_of(value) == Kind::Int ? std::to_string(as_int(value)) : go_float(as_float(value));
}

std::string go_syntax(const Json& value) {
  switch (kind_of(value)) {
    case Kind::Null:
      return "interface {}(nil)";
    case Kind::Bool:
      return value.get<bool>() ? "true" : "false";
    case Kind::Int:
    case Kind::Float:
      return go_number(value);
    case Kind::String:
      return go_quote(value.get_ref<const std::string&>());
    case Kind::Array: {
      std::string out = "[]interface {}{";
      for (std::size_t i = 0; i < value.size(); ++i) {
        out += (i ? ", " : "") + go_syntax(value[i]);
      }
      return out + "}";
    }
    case Kind::Object: {
      std::string out = "map[string]interface {}{";
      bool first = true;
      for (const auto& [key, item] : value.items()) {
        out += (first ? "" : ", ") + go_quote(key) + ":" + go_syntax(item);
        first = false;
      }
      return out + "}";
    }
  }
  return "";
}

namespace {

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size();) {
    auto [cp, len] = decode_rune(text, i);
    if (cp < 0) {
      out += "\\ufffd";
    } else if (cp == '"' || cp == '\\') {
      out += '\\';
      out += static_cast<char>(cp);
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp == '\t') {
      out += "\\t";
    } else if (cp < 0x20 || cp == '<' || cp == '>' || cp == '&' || cp == 0x2028 || cp == 0x2029) {
      out += "\\u" + hex(static_cast<unsigned long>(cp), 4);
    } else {
      out.append(text.substr(i, len));
    }
    i += len;
  }
  return out + "\"";
}

std::string json_float(double value) {
  if (value == 0) return "0";
  const std::string sign = value < 0 ? "-" : "";
  const double magnitude = std::fabs(value);
  auto [digits, exp] = shortest_digits(magnitude);
  if (magnitude < 1e-6 || magnitude >= 1e21) return sign + exponent_form(digits, exp, 1);
  return sign + fixed_form(digits, exp);
}

}  // namespace

std::string go_json(const Json& value) {
  switch (kind_of(value)) {
    case Kind::Null:
      return "null";
    case Kind::Bool:
      return value.get<bool>() ? "true" : "false";
    case Kind::Int:
      return std::to_string(as_int(value));
    case Kind::Float:
      return json_float(as_float(value));
    case Kind::String:
      return json_string(value.get_ref<const std::string&>());
    case Kind::Array: {
      std::string out = "[";
      for (std::size_t i = 0; i < value.size(); ++i)
        out += (i ? "," : "") + go_json(value[i]);
      return out + "]";
    }
    case Kind::Object: {
      std::string out = "{";
      bool first = true;
      for (const auto& [key, item] : value.items()) {
        out += (first ? "" : ",") + json_string(key) + ":" + go_json(item);
        first = false;
      }
      return out + "}";
    }
  }
  return "";
}

std::string go_bad_value(const Json& value) {
  switch (kind_of(value)) {
    case Kind::Null:
      return "null";
    case Kind::Bool:
    case Kind::Int:
    case Kind::Float:
      return go_syntax(value);
    case Kind::String:
      return go_quote(value.get_ref<const std::string&>());
    default:
      return go_syntax(value);
  }
}

}  // namespace respool::sandbox::schema::detail
