#pragma once
// Name syntax: pool names (P1), DNS labels, label keys and values. Pool names become label values
// and taint values on nodes, hence the 63-character limit.

#include <string_view>

namespace respool::policy {

// P1: lowercase letters, digits and hyphens; starts with a letter; does not end with a hyphen;
// at most 63 characters.
bool is_pool_name(std::string_view name);
// RFC 1123 label: as P1 but may start with a digit.
bool is_dns_label(std::string_view name);
// A label key: [prefix/]name, the prefix a DNS subdomain (≤ 253), the name ≤ 63 characters of
// alphanumerics, '-', '_', '.', beginning and ending alphanumeric.
bool is_label_key(std::string_view key);
// A label value: empty, or like a key's name part.
bool is_label_value(std::string_view value);

// The message P1 violations carry (without the field path).
inline constexpr std::string_view kPoolNameRule =
    "must be at most 63 lowercase letters, digits and hyphens, start with a letter and not end "
    "with a hyphen";

}  // namespace respool::policy
