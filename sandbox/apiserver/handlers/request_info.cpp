#include "sandbox/apiserver/handlers/request_info.hpp"

#include <vector>

namespace respool::sandbox {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

RequestInfo parse_request_info(std::string_view method, const http::Target& target) {
  RequestInfo info;
  info.path = target.path;
  info.verb = lower(method);
  std::vector<std::string> parts = split_path(target.path);
  if (parts.empty() || (parts[0] != "api" && parts[0] != "apis")) return info;
  info.api_prefix = parts[0];
  std::size_t at = 1;
  if (info.api_prefix == "apis") {
    if (parts.size() < 3) return info;  // /apis, /apis/GROUP: discovery
    info.group = parts[1];
    info.version = parts[2];
    at = 3;
  } else {
    if (parts.size() < 2) return info;  // /api
    info.version = parts[1];
    at = 2;
  }
  if (parts.size() <= at) return info;  // /api/v1, /apis/G/V: discovery
  info.resource_request = true;
  std::vector<std::string> rest(parts.begin() + static_cast<std::ptrdiff_t>(at), parts.end());
  if (rest[0] == "namespaces" && rest.size() > 1) {
    info.ns = rest[1];
    if (rest.size() > 2 && rest[2] != "status" && rest[2] != "finalize") {
      rest.erase(rest.begin(), rest.begin() + 2);
    }
  }
  info.resource = rest[0];
  if (rest.size() > 1) info.name = rest[1];
  if (rest.size() > 2) info.subresource = rest[2];
  if (rest.size() > 3) info.extra_parts = true;
  // A namespace is the object itself at /api/v1/namespaces/NAME.
  if (info.resource == "namespaces") info.ns.clear();

  bool watch = false;
  if (auto w = target.param("watch")) watch = (*w == "true" || *w == "1");
  if (method == "GET" || method == "HEAD") {
    if (info.name.empty()) {
      info.verb = watch ? "watch" : "list";
    } else {
      info.verb = "get";
    }
  } else if (method == "POST") {
    info.verb = "create";
  } else if (method == "PUT") {
    info.verb = "update";
  } else if (method == "PATCH") {
    info.verb = "patch";
  } else if (method == "DELETE") {
    info.verb = info.name.empty() ? "deletecollection" : "delete";
  }
  return info;
}

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> parts;
  std::size_t i = 0;
  while (i < path.size()) {
    while (i < path.size() && path[i] == '/')
      ++i;
    std::size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    if (j > i) parts.emplace_back(path.substr(i, j - i));
    i = j;
  }
  return parts;
}

}  // namespace respool::sandbox
