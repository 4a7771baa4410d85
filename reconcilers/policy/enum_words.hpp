#pragma once
// The words an enum is written as (in labels, status and the catalog), as one table per enum:
// both directions read the same table, so a value and its word cannot drift apart.

#include <array>
#include <optional>
#include <string_view>
#include <utility>

namespace respool::policy {

template <class E, std::size_t N>
using EnumWords = std::array<std::pair<E, std::string_view>, N>;

// The value's word; "" for a value the table lacks.
template <class E, std::size_t N>
constexpr std::string_view word_of(const EnumWords<E, N>& words, E value) {
  for (const auto& [v, word] : words)
    if (v == value) return word;
  return "";
}

// The value written as `text`; nullopt for a word the table lacks.
template <class E, std::size_t N>
constexpr std::optional<E> value_of(const EnumWords<E, N>& words, std::string_view text) {
  for (const auto& [v, word] : words)
    if (word == text) return v;
  return std::nullopt;
}

}  // namespace respool::policy
