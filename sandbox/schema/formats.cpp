// The string formats CRD validation checks (apiextensions' supportedVersionedFormats) and the
// checks of go-openapi's strfmt registry they map to. Other formats, int32 and int64 among
// them, are dropped from the schema before validation, so they accept anything.

#include <arpa/inet.h>

#include <array>
#include <cctype>
#include <map>
#include <set>
#include "sandbox/schema/regex.hpp"

#include "apimachinery/base64.hpp"
#include "sandbox/schema/openapi.hpp"
#include "sandbox/schema/schema_node.hpp"

namespace respool::sandbox::schema::detail {

namespace {

std::string without_hyphens(std::string text) {
  std::erase(text, '-');
  return text;
}

const std::set<std::string>& supported_formats() {
  static const std::set<std::string> formats = {
      "bsonobjectid", "uri",    "email",    "hostname",   "ipv4",     "ipv6",
      "cidr",         "mac",    "uuid",     "uuid3",      "uuid4",    "uuid5",
      "isbn",         "isbn10", "isbn13",   "creditcard", "ssn",      "hexcolor",
      "rgbcolor",     "byte",   "password", "date",       "duration", "datetime"};
  return formats;
}

// Compiled once per pattern: validating a format must not compile a regex per value.
bool matches(const std::string& text, const std::string& pattern,
             std::regex::flag_type flags = std::regex::ECMAScript) {
  thread_local std::map<std::pair<std::string, std::regex::flag_type>, std::regex> cache;
  auto it = cache.find({pattern, flags});
  if (it == cache.end())
    it = cache.emplace(std::pair{pattern, flags}, std::regex(pattern, flags)).first;
  return std::regex_match(text, it->second);
}

bool all_of(const std::string& text, int (*predicate)(int)) {
  for (unsigned char c : text) {
    if (!predicate(c)) return false;
  }
  return true;
}

bool is_leap(int year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

// time.Parse("2006-01-02", text).
bool is_date(const std::string& text) {
  if (!matches(text, "^[0-9]{4}-[0-9]{2}-[0-9]{2}$")) return false;
  const int year = std::stoi(text.substr(0, 4));
  const int month = std::stoi(text.substr(5, 2));
  const int day = std::stoi(text.substr(8, 2));
  static constexpr std::array<int, 12> days = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= days[static_cast<std::size_t>(month - 1)] + (month == 2 && is_leap(year));
}

// strfmt.IsDateTime: a date, a "t", and a time with a zone, compared as text.
bool is_date_time(const std::string& text) {
  if (text.size() < 4) return false;
  std::string lower = text;
  for (auto& c : lower)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t pos; (pos = lower.find('t', start)) != std::string::npos; start = pos + 1) {
    parts.push_back(lower.substr(start, pos - start));
  }
  parts.push_back(lower.substr(start));
  if (parts.size() < 2 || !is_date(parts[0])) return false;
  std::smatch m;
  static const std::regex time(
      "^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$");
  if (!std::regex_match(parts[1], m, time)) return false;
  return m[1].str() <= "23" && m[2].str() <= "59" && m[3].str() <= "59";
}

// net.ParseIP for IPv4 (Go 1.17+ refuses leading zeros).
bool is_ipv4(const std::string& text) {
  return matches(text,
                 "^((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\.){3}"
                 "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$");
}

bool is_ipv6(const std::string& text) {
  in6_addr address{};
  return text.find(':') != std::string::npos && inet_pton(AF_INET6, text.c_str(), &address) == 1;
}

bool is_cidr(const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos) return false;
  const std::string ip = text.substr(0, slash), bits = text.substr(slash + 1);
  if (bits.empty() || bits.size() > 3 || !all_of(bits, ::isdigit)) return false;
  if (bits.size() > 1 && bits[0] == '0') return false;
  const int prefix = std::stoi(bits);
  if (is_ipv4(ip)) return prefix <= 32;
  return is_ipv6(ip) && prefix <= 128;
}

// net.ParseMAC: 6, 8 or 20 octets separated by ':' or '-', or dotted groups of four digits.
bool is_mac(const std::string& text) {
  for (const char* sep : {":", "-"}) {
    for (int octets : {6, 8, 20}) {
      std::string pattern = "^[0-9a-fA-F]{2}(" + std::string(sep) + "[0-9a-fA-F]{2}){" +
                            std::to_string(octets - 1) + "}$";
      if (matches(text, pattern)) return true;
    }
  }
  for (int groups : {3, 4, 10}) {
    std::string pattern = "^[0-9a-fA-F]{4}(\\.[0-9a-fA-F]{4}){" + std::to_string(groups - 1) + "}$";
    if (matches(text, pattern)) return true;
  }
  return false;
}

// strfmt's hostname: at most 255 bytes of dot-separated labels ending in a 2-63 letter label,
// or a single label.
bool is_hostname(const std::string& text) {
  if (text.size() > 255) return false;
  return matches(text,
                 "^([a-zA-Z0-9](-?[a-zA-Z0-9]{0,62})?|([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
                 "\\.)+[a-zA-Z]{2,63})$");
}

std::string digits_only(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c)) || c == 'X' || c == 'x') out += c;
  }
  return out;
}

bool is_isbn10(const std::string& text) {
  const std::string d = digits_only(text);
  if (d.size() != 10) return false;
  int sum = 0;
  for (int i = 0; i < 10; ++i) {
    const char c = d[static_cast<std::size_t>(i)];
    if (c == 'X' || c == 'x') {
      if (i != 9) return false;
      sum += 10 * (10 - i);
    } else {
      sum += (c - '0') * (10 - i);
    }
  }
  return sum % 11 == 0;
}

bool is_isbn13(const std::string& text) {
  const std::string d = digits_only(text);
  if (d.size() != 13 || !all_of(d, ::isdigit)) return false;
  int sum = 0;
  for (std::size_t i = 0; i < 13; ++i)
    sum += (d[i] - '0') * (i % 2 ? 3 : 1);
  return sum % 10 == 0;
}

bool is_credit_card(const std::string& text) {
  std::string d;
  for (char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c))) d += c;
  }
  if (!matches(d,
               "^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}"
               "|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|"
               "3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\\d{3})\\d{11}|6[27][0-9]{14})$")) {
    return false;
  }
  int sum = 0;
  bool twice = false;
  for (auto it = d.rbegin(); it != d.rend(); ++it, twice = !twice) {
    int n = (*it - '0') * (twice ? 2 : 1);
    sum += n > 9 ? n - 9 : n;
  }
  return sum % 10 == 0;
}

// strfmt.ParseDuration: Go's time.ParseDuration, or a number and a unit word ("3 days").
bool is_duration(const std::string& text) {
  if (matches(text,
              "^[-+]?(([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(ns|us|\xC2\xB5s|\xCE\xBCs|ms|s|m|h))+$") ||
      text == "0") {
    return true;
  }
  return matches(text,
                 "^[0-9]+\\s*(ns|us|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|"
                 "seconds?|minutes?|hours?|days?|weeks?|sec|secs|min|mins|hr|hrs)$");
}

bool is_uri(const std::string& text) {
  for (unsigned char c : text) {
    if (c <= 0x20 || c == 0x7F) return false;
  }
  return !text.empty() && (text[0] == '/' || matches(text, "^[a-zA-Z][a-zA-Z0-9+.-]*:.*$"));
}

bool is_email(const std::string& text) {
  return matches(text, "^[^@\\s<>]+@[^@\\s<>]+$") ||
         matches(text, "^[^<>]*<[^@\\s<>]+@[^@\\s<>]+>$");
}

}  // namespace

std::string supported_format(const Json& schema) {
  std::string format = string_member(schema, "format");
  return supported_formats().contains(without_hyphens(format)) ? format : std::string();
}

bool format_accepts(const std::string& format, const std::string& text) {
  const std::string name = without_hyphens(format);
  const auto icase = std::regex::ECMAScript | std::regex::icase;
  if (name == "datetime") return is_date_time(text);
  if (name == "date") return is_date(text);
  if (name == "duration") return is_duration(text);
  if (name == "ipv4") return is_ipv4(text);
  if (name == "ipv6") return is_ipv6(text);
  if (name == "cidr") return is_cidr(text);
  if (name == "mac") return is_mac(text);
  if (name == "hostname") return is_hostname(text);
  if (name == "email") return is_email(text);
  if (name == "uri") return is_uri(text);
  if (name == "byte") return apimachinery::base64_decode(text).has_value();
  if (name == "bsonobjectid") return matches(text, "^[0-9a-fA-F]{24}$");
  if (name == "uuid") {
    return matches(text, "^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$",
                   icase);
  }
  if (name == "uuid3") {
    return matches(text, "^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$",
                   icase);
  }
  if (name == "uuid4" || name == "uuid5") {
    const std::string pattern = "^[0-9a-f]{8}-?[0-9a-f]{4}-?" + name.substr(4) +
                                "[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$";
    return matches(text, pattern, icase);
  }
  if (name == "isbn") return is_isbn10(text) || is_isbn13(text);
  if (name == "isbn10") return is_isbn10(text);
  if (name == "isbn13") return is_isbn13(text);
  if (name == "creditcard") return is_credit_card(text);
  if (name == "ssn") return matches(text, "^\\d{3}[- ]?\\d{2}[- ]?\\d{4}$");
  if (name == "hexcolor") return matches(text, "^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$");
  if (name == "rgbcolor") {
    const char* part = "\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*";
    const std::string pattern = std::string("^rgb\\(") + part + "," + part + "," + part + "\\)$";
    return matches(text, pattern);
  }
  return true;  // password, and anything the registry has no check for
}

}  // namespace respool::sandbox::schema::detail
