#include "sandbox/cel/text.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace respool::sandbox::cel {
namespace {

// One code point from text[i...]: its value and length, or U+FFFD and 1 when invalid.
std::pair<char32_t, std::size_t> decode_one(std::string_view text, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char c = byte(i);
  if (c < 0x80) return {c, 1};
  std::size_t len = 0;
  char32_t cp = 0;
  char32_t min = 0;
  if ((c & 0xE0) == 0xC0) {
    len = 2, cp = c & 0x1F, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3, cp = c & 0x0F, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4, cp = c & 0x07, min = 0x10000;
  } else {
    return {0xFFFD, 1};
  }
  if (i + len > text.size()) return {0xFFFD, 1};
  for (std::size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return {0xFFFD, 1};
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {0xFFFD, 1};
  return {cp, len};
}

}  // namespace

bool utf8_valid(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    auto [cp, len] = decode_one(text, i);
    if (cp == 0xFFFD && len == 1 && static_cast<unsigned char>(text[i]) >= 0x80) return false;
    i += len;
  }
  return true;
}

std::vector<char32_t> utf8_decode(std::string_view text) {
  std::vector<char32_t> out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    auto [cp, len] = decode_one(text, i);
    out.push_back(cp);
    i += len;
  }
  return out;
}

std::size_t utf8_length(std::string_view text) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < text.size(); ++n)
    i += decode_one(text, i).second;
  return n;
}

void utf8_append(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string utf8_encode(const std::vector<char32_t>& cps, std::size_t from, std::size_t to) {
  std::string out;
  if (to > cps.size()) to = cps.size();
  for (std::size_t i = from; i < to; ++i)
    utf8_append(out, cps[i]);
  return out;
}

std::string format_double(double d) {
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  return go_float(d);
}

std::string quote(std::string_view text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size();) {
    auto [cp, len] = decode_one(text, i);
    i += len;
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
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      default:
        utf8_append(out, cp);
    }
  }
  return out + "\"";
}

}  // namespace respool::sandbox::cel
