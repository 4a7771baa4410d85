// strconv's shortest float formatting ('g' and encoding/json's variant of 'e'/'f') from
// std::to_chars' shortest round-trip digits, and strconv.Quote.

#include "apimachinery/go_format.hpp"

#include <charconv>
#include <cmath>
#include <utility>

namespace respool::apimachinery {
namespace {

// The shortest decimal digits that round-trip `value` (> 0) and the decimal exponent of the
// first digit, as strconv computes them.
std::pair<std::string, int> shortest_digits(double value) {
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  const std::string_view text(buf, static_cast<std::size_t>(result.ptr - buf));
  const auto e = text.find('e');
  std::string digits;
  for (char c : text.substr(0, e)) {
    if (c != '.') digits += c;
  }
  while (digits.size() > 1 && digits.back() == '0')
    digits.pop_back();
  int exponent = 0;
  const std::string_view exp_text = text.substr(e + 1);
  const bool negative = exp_text.front() == '-';
  std::from_chars(exp_text.data() + 1, exp_text.data() + exp_text.size(), exponent);
  return {digits, negative ? -exponent : exponent};
}

// fmtE: d.ddde±dd, the exponent with at least `min_exp_digits` digits.
std::string exponent_form(const std::string& digits, int exp, std::size_t min_exp_digits) {
  std::string out(1, digits[0]);
  if (digits.size() > 1) out.append(1, '.').append(digits, 1);
  std::string e = std::to_string(exp < 0 ? -exp : exp);
  if (e.size() < min_exp_digits) e.insert(0, min_exp_digits - e.size(), '0');
  return out.append(exp < 0 ? "e-" : "e+").append(e);
}

// fmtF with the digits' own precision.
std::string fixed_form(const std::string& digits, int exp) {
  if (exp < 0) {
    std::string out = "0.";
    return out.append(static_cast<std::size_t>(-exp - 1), '0').append(digits);
  }
  const auto int_digits = static_cast<std::size_t>(exp) + 1;
  if (digits.size() <= int_digits) return digits + std::string(int_digits - digits.size(), '0');
  std::string out = digits.substr(0, int_digits);
  return out.append(1, '.').append(digits, int_digits);
}

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

std::string hex(unsigned long value, std::size_t width) {
  static constexpr std::string_view kDigits = "0123456789abcdef";
  std::string out;
  for (; value; value >>= 4)
    out.insert(out.begin(), kDigits[value & 0xF]);
  if (out.size() < width) out.insert(0, width - out.size(), '0');
  return out;
}

// The escape strconv.Quote writes for an unprintable rune.
std::string escaped(long cp) {
  switch (cp) {
    case '\a':
      return "\\a";
    case '\b':
      return "\\b";
    case '\f':
      return "\\f";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    case '\v':
      return "\\v";
    default:
      break;
  }
  const auto value = static_cast<unsigned long>(cp);
  if (cp < 0x80) return "\\x" + hex(value, 2);
  if (cp < 0x10000) return "\\u" + hex(value, 4);
  return "\\U" + hex(value, 8);
}

}  // namespace

std::string go_float(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (value == 0) return std::signbit(value) ? "-0" : "0";
  std::string out = value < 0 ? "-" : "";
  const auto [digits, exp] = shortest_digits(std::fabs(value));
  // 'g' with the shortest precision decides with precision 6 (strconv's formatDigits).
  if (exp < -4 || exp >= 6) return out.append(exponent_form(digits, exp, 2));
  return out.append(fixed_form(digits, exp));
}

std::string go_json_float(double value) {
  if (value == 0) return "0";
  std::string out = value < 0 ? "-" : "";
  const double magnitude = std::fabs(value);
  const auto [digits, exp] = shortest_digits(magnitude);
  if (magnitude < 1e-6 || magnitude >= 1e21) return out.append(exponent_form(digits, exp, 1));
  return out.append(fixed_form(digits, exp));
}

std::string go_json_string(std::string_view text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size();) {
    const auto [cp, len] = decode_rune(text, i);
    if (cp < 0) {
      out += "\\ufffd";
    } else if (cp == '"' || cp == '\\') {
      out.append(1, '\\').append(1, static_cast<char>(cp));
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp == '\t') {
      out += "\\t";
    } else if (cp < 0x20 || cp == '<' || cp == '>' || cp == '&' || cp == 0x2028 || cp == 0x2029) {
      out.append("\\u").append(hex(static_cast<unsigned long>(cp), 4));
    } else {
      out.append(text.substr(i, len));
    }
    i += len;
  }
  return out.append(1, '"');
}

std::string go_quote(std::string_view text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size();) {
    const auto [cp, len] = decode_rune(text, i);
    if (cp < 0) {
      out.append("\\x").append(hex(static_cast<unsigned char>(text[i]), 2));
    } else if (cp == '"' || cp == '\\') {
      out.append(1, '\\').append(1, static_cast<char>(cp));
    } else if (printable(cp)) {
      out.append(text.substr(i, len));
    } else {
      out.append(escaped(cp));
    }
    i += len;
  }
  return out.append(1, '"');
}

}  // namespace respool::apimachinery
