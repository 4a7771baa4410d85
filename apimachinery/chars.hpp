#pragma once
// ASCII character classes the API machinery's grammars are written in (locale-free, unlike
// <cctype>).

namespace respool::apimachinery::chars {

constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
constexpr bool is_lower(char c) {
  return c >= 'a' && c <= 'z';
}
constexpr bool is_upper(char c) {
  return c >= 'A' && c <= 'Z';
}
constexpr bool is_lower_alnum(char c) {
  return is_lower(c) || is_digit(c);
}
constexpr bool is_alnum(char c) {
  return is_lower(c) || is_upper(c) || is_digit(c);
}

}  // namespace respool::apimachinery::chars
