#include "reconcilers/policy/names.hpp"

namespace respool::policy {

namespace {

bool lower_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
bool alnum(char c) {
  return lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

bool label_chars(std::string_view name, bool (*edge)(char), bool (*inner)(char)) {
  if (name.empty() || name.size() > 63 || !edge(name.front()) || !edge(name.back())) return false;
  for (char c : name) {
    if (!inner(c)) return false;
  }
  return true;
}

bool dns_inner(char c) {
  return lower_alnum(c) || c == '-';
}
bool label_inner(char c) {
  return alnum(c) || c == '-' || c == '_' || c == '.';
}

bool is_dns_subdomain(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  while (true) {
    auto dot = name.find('.');
    if (!label_chars(name.substr(0, dot), lower_alnum, dns_inner)) return false;
    if (dot == std::string_view::npos) return true;
    name = name.substr(dot + 1);
  }
}

}  // namespace

bool is_pool_name(std::string_view name) {
  return is_dns_label(name) && name.front() >= 'a' && name.front() <= 'z';
}

bool is_dns_label(std::string_view name) {
  return label_chars(name, lower_alnum, dns_inner);
}

bool is_label_key(std::string_view key) {
  auto slash = key.find('/');
  if (slash == std::string_view::npos) return label_chars(key, alnum, label_inner);
  return is_dns_subdomain(key.substr(0, slash)) &&
         label_chars(key.substr(slash + 1), alnum, label_inner);
}

bool is_label_value(std::string_view value) {
  return value.empty() || label_chars(value, alnum, label_inner);
}

}  // namespace respool::policy
