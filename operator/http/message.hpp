#pragma once
// HTTP/1.1 messages as plain values, shared by the client and the server.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace respool::http {

// Header fields in the order they were added. Names compare case-insensitively (RFC 9110).
class Headers {
 public:
  // Replaces every field of that name with one field.
  void set(std::string name, std::string value);
  // Adds a field, keeping any of the same name.
  void add(std::string name, std::string value);
  void remove(std::string_view name);
  // The first field of that name.
  std::optional<std::string_view> get(std::string_view name) const;
  bool has(std::string_view name) const { return get(name).has_value(); }
  const std::vector<std::pair<std::string, std::string>>& fields() const { return fields_; }

 private:
  std::vector<std::pair<std::string, std::string>> fields_;
};

bool iequals(std::string_view a, std::string_view b);

struct Request {
  std::string method;  // "GET", "PATCH", ...
  std::string target;  // origin-form: path plus "?query", percent-encoded as sent
  Headers headers;
  std::string body;
};

struct Response {
  int status = 0;
  Headers headers;
  std::string body;
};

// The reason phrase of a status code ("Not Found"), or "" for an unknown code.
std::string_view reason_phrase(int status);

// Splits an origin-form target into its percent-decoded path and its query parameters.
struct Target {
  std::string path;
  std::vector<std::pair<std::string, std::string>> query;
  // The first value of a query parameter.
  std::optional<std::string_view> param(std::string_view name) const;
};
Target parse_target(std::string_view target);
std::string percent_decode(std::string_view s, bool plus_is_space);
std::string percent_encode(std::string_view s);

// An absolute URL split into what a connection needs.
struct Url {
  std::string scheme;  // "http" or "https"
  std::string host;    // without brackets for IPv6
  unsigned short port = 0;
  std::string path;  // "" or "/prefix" (no trailing slash)
};
std::optional<Url> parse_url(std::string_view url);

}  // namespace respool::http
