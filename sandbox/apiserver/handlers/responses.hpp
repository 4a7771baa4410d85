#pragma once
// Building HTTP answers as kube-apiserver sends them: headers, JSON bodies, Status errors.

#include <string>

#include "operator/http/message.hpp"
#include "sandbox/apiserver/errors.hpp"

namespace respool::sandbox {

// Content-Type, Cache-Control: no-cache, private, and the priority-and-fairness headers.
http::Headers api_headers(const std::string& content_type = "application/json");
http::Response json_response(int status, std::string body,
                             const std::string& content_type = "application/json");
// A Status answer; a Retry-After header when the error carries one.
http::Response error_response(const ApiError& error);
// text/plain "404 page not found", as the API server's mux answers unknown paths.
http::Response page_not_found();

}  // namespace respool::sandbox
