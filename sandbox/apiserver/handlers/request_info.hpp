#pragma once
// What a request path asks for, as k8s.io/apiserver's RequestInfoFactory reads it:
// /api/v1/namespaces/NS/pods/NAME/status -> group "", version v1, namespace NS, resource pods,
// name NAME, subresource status, verb from the method (get/list/watch/create/update/...).

#include <string>
#include <string_view>
#include <vector>

#include "operator/http/message.hpp"

namespace respool::sandbox {

struct RequestInfo {
  bool resource_request = false;
  std::string path;
  std::string verb;        // resource verbs; for other paths the lower-case method ("get", "post")
  std::string api_prefix;  // "api" or "apis" ("" for other paths)
  std::string group, version, ns, resource, name, subresource;
  bool extra_parts = false;  // more path segments than a subresource: nothing serves them
};

RequestInfo parse_request_info(std::string_view method, const http::Target& target);

// A URL path's segments, without empty ones ("/apis//g/" -> {"apis", "g"}).
std::vector<std::string> split_path(std::string_view path);

}  // namespace respool::sandbox
