#include "sandbox/apiserver/handlers/responses.hpp"

namespace respool::sandbox {
namespace {

// Fixed per process: the real server names its flow schema and priority level by uid.
const char* kFlowSchemaUid = "5f9e8d21-3c4b-4a7e-9d1f-2b6c8e0a4f13";
const char* kPriorityLevelUid = "a1c3e5f7-9b2d-4e6f-8a0c-1d3f5b7e9c2a";

}  // namespace

http::Headers api_headers(const std::string& content_type) {
  http::Headers h;
  h.set("Content-Type", content_type);
  h.set("Cache-Control", "no-cache, private");
  h.set("X-Kubernetes-Pf-Flowschema-Uid", kFlowSchemaUid);
  h.set("X-Kubernetes-Pf-Prioritylevel-Uid", kPriorityLevelUid);
  return h;
}

http::Response json_response(int status, std::string body, const std::string& content_type) {
  http::Response r;
  r.status = status;
  r.headers = api_headers(content_type);
  r.body = std::move(body);
  return r;
}

http::Response error_response(const ApiError& error) {
  http::Response r = json_response(error.code, error.to_text());
  if (error.code == 401) {
    r.headers.remove("X-Kubernetes-Pf-Flowschema-Uid");
    r.headers.remove("X-Kubernetes-Pf-Prioritylevel-Uid");
  }
  if (error.retry_after_seconds > 0) {
    r.headers.set("Retry-After", std::to_string(error.retry_after_seconds));
  }
  return r;
}

http::Response page_not_found() {
  http::Response r;
  r.status = 404;
  r.headers = api_headers("text/plain; charset=utf-8");
  r.headers.set("X-Content-Type-Options", "nosniff");
  r.body = "404 page not found\n";
  return r;
}

}  // namespace respool::sandbox
