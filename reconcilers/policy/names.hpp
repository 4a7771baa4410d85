#pragma once
// Name syntax: pool names (P1), DNS labels, label keys and values. Pool names become label values
// and taint values on nodes, hence the 63-character limit. The Kubernetes syntax itself is
// apimachinery's; P1 is the policy's own.

#include <string_view>

#include "apimachinery/names.hpp"

namespace respool::policy {

// P1: lowercase letters, digits and hyphens; starts with a letter; does not end with a hyphen;
// at most 63 characters.
bool is_pool_name(std::string_view name);
// RFC 1123 label (IsDNS1123Label): as P1 but may start with a digit.
inline bool is_dns_label(std::string_view name) {
  return apimachinery::is_dns1123_label(name);
}
// A label key (IsQualifiedName): [prefix/]name, the prefix a DNS subdomain (≤ 253), the name
// ≤ 63 characters of alphanumerics, '-', '_', '.', beginning and ending alphanumeric.
inline bool is_label_key(std::string_view key) {
  return apimachinery::is_qualified_name(key);
}
// A label value (IsValidLabelValue): empty, or like a key's name part.
using apimachinery::is_label_value;

// The message P1 violations carry (without the field path).
inline constexpr std::string_view kPoolNameRule =
    "must be at most 63 lowercase letters, digits and hyphens, start with a letter and not end "
    "with a hyphen";

}  // namespace respool::policy
