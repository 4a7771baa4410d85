#include "apimachinery/names.hpp"

#include <algorithm>

#include "apimachinery/chars.hpp"

namespace respool::apimachinery {
namespace {

constexpr std::size_t kQualifiedNameMaxLength = 63;
constexpr std::size_t kLabelValueMaxLength = 63;
constexpr std::size_t kDns1123LabelMaxLength = 63;
constexpr std::size_t kDns1123SubdomainMaxLength = 253;

constexpr std::string_view kQualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kQualifiedNameErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";
constexpr std::string_view kLabelValueFmt = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr std::string_view kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character";
constexpr std::string_view kDns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDns1123LabelErrMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character";
constexpr std::string_view kDns1035LabelFmt = "[a-z]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDns1035LabelErrMsg =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character";
constexpr std::string_view kDns1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kDns1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character";

using chars::is_alnum;
using chars::is_lower;
using chars::is_lower_alnum;

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool matches_qualified_name(std::string_view s) {
  if (s.empty() || !is_alnum(s.front()) || !is_alnum(s.back())) return false;
  return std::ranges::all_of(
      s, [](char c) { return is_alnum(c) || c == '-' || c == '_' || c == '.'; });
}

// [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool matches_dns1123_label(std::string_view s) {
  if (s.empty() || !is_lower_alnum(s.front()) || !is_lower_alnum(s.back())) return false;
  return std::ranges::all_of(s, [](char c) { return is_lower_alnum(c) || c == '-'; });
}

// [a-z]([-a-z0-9]*[a-z0-9])?
bool matches_dns1035_label(std::string_view s) {
  return matches_dns1123_label(s) && is_lower(s.front());
}

bool matches_dns1123_subdomain(std::string_view s) {
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = s.find('.', start);
    if (!matches_dns1123_label(s.substr(start, dot - start))) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

std::string max_len_error(std::size_t length) {
  return "must be no more than " + std::to_string(length) + " characters";
}

// validation.RegexError with examples: msg (e.g. 'a',  or 'b', regex used for validation is 'f')
std::string regex_error(std::string_view msg, std::string_view fmt,
                        std::initializer_list<std::string_view> examples) {
  std::string out(msg);
  out += " (e.g. ";
  bool first = true;
  for (std::string_view example : examples) {
    if (!first) out += " or ";
    first = false;
    out += "'";
    out += example;
    out += "', ";
  }
  out += "regex used for validation is '";
  out += fmt;
  out += "')";
  return out;
}

std::string qualified_name_regex_error() {
  return regex_error(kQualifiedNameErrMsg, kQualifiedNameFmt, {"MyName", "my.name", "123-abc"});
}

}  // namespace

std::vector<std::string> qualified_name_errors(std::string_view value) {
  std::vector<std::string> errs;
  std::string_view name = value;
  const std::size_t slash = value.find('/');
  if (slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos) {
      errs.push_back("a qualified name " + qualified_name_regex_error() +
                     " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
      return errs;
    }
    const std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errs.push_back("prefix part must be non-empty");
    } else {
      for (const std::string& msg : dns1123_subdomain_errors(prefix)) {
        errs.push_back("prefix part " + msg);
      }
    }
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else if (name.size() > kQualifiedNameMaxLength) {
    errs.push_back("name part " + max_len_error(kQualifiedNameMaxLength));
  }
  if (!matches_qualified_name(name)) errs.push_back("name part " + qualified_name_regex_error());
  return errs;
}

std::vector<std::string> label_value_errors(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kLabelValueMaxLength) errs.push_back(max_len_error(kLabelValueMaxLength));
  if (!value.empty() && !matches_qualified_name(value)) {
    errs.push_back(
        regex_error(kLabelValueErrMsg, kLabelValueFmt, {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

std::vector<std::string> dns1123_subdomain_errors(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDns1123SubdomainMaxLength) {
    errs.push_back(max_len_error(kDns1123SubdomainMaxLength));
  }
  if (!matches_dns1123_subdomain(value)) {
    errs.push_back(regex_error(kDns1123SubdomainErrMsg, kDns1123SubdomainFmt, {"example.com"}));
  }
  return errs;
}

std::vector<std::string> dns1123_label_errors(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDns1123LabelMaxLength) errs.push_back(max_len_error(kDns1123LabelMaxLength));
  if (!matches_dns1123_label(value)) {
    if (matches_dns1123_subdomain(value)) {
      errs.push_back("must not contain dots");
    } else {
      errs.push_back(regex_error(kDns1123LabelErrMsg, kDns1123LabelFmt, {"my-name", "123-abc"}));
    }
  }
  return errs;
}

bool is_qualified_name(std::string_view value) {
  return qualified_name_errors(value).empty();
}

bool is_label_value(std::string_view value) {
  return value.size() <= kLabelValueMaxLength && (value.empty() || matches_qualified_name(value));
}

bool is_dns1123_subdomain(std::string_view value) {
  return value.size() <= kDns1123SubdomainMaxLength && matches_dns1123_subdomain(value);
}

bool is_dns1123_label(std::string_view value) {
  return value.size() <= kDns1123LabelMaxLength && matches_dns1123_label(value);
}

std::vector<std::string> dns1035_label_errors(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDns1123LabelMaxLength) errs.push_back(max_len_error(kDns1123LabelMaxLength));
  if (!matches_dns1035_label(value)) {
    errs.push_back(regex_error(kDns1035LabelErrMsg, kDns1035LabelFmt, {"my-name", "abc-123"}));
  }
  return errs;
}

}  // namespace respool::apimachinery
