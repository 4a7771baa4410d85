#pragma once
// API errors as the API server answers them: a metav1.Status with reason, message and details
// worded as k8s.io/apimachinery/pkg/api/errors words them.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::sandbox {

using Json = nlohmann::json;
using OJson = nlohmann::ordered_json;

// A group and a plural resource ("deployments", "apps"): how errors name what they are about.
struct GroupResource {
  std::string group;
  std::string resource;
  // "configmaps" or "deployments.apps"
  std::string qualified() const { return group.empty() ? resource : resource + "." + group; }
};

// One field.Error: reason FieldValueInvalid, FieldValueRequired, ...; message its ErrorBody().
struct Cause {
  std::string reason;
  std::string message;
  std::string field;
};

struct ApiError {
  int code = 500;
  std::string reason;
  std::string message;
  // The details object; null leaves it out, an empty object is sent as "details": {}.
  Json details;
  int retry_after_seconds = 0;  // > 0: a Retry-After header too
  std::string continue_token;   // metadata.continue (a 410 for a too old continue)

  // The Status object in the API server's field order.
  OJson to_status() const;
  std::string to_text() const;
};

ApiError not_found(const GroupResource& gr, std::string_view name);
ApiError already_exists(const GroupResource& gr, std::string_view name);
// "Operation cannot be fulfilled on configmaps \"x\": <why>"
ApiError conflict(const GroupResource& gr, std::string_view name, std::string_view why);
ApiError stale_conflict(const GroupResource& gr, std::string_view name);
ApiError bad_request(std::string message);
ApiError method_not_allowed();
ApiError method_not_supported(const GroupResource& gr, std::string_view action);
ApiError not_acceptable();
ApiError unsupported_media_type();
ApiError unsupported_patch_type(bool strategic_allowed);
// 415 for an object body of a media type the endpoint does not decode (NegotiateInputSerializer).
ApiError unsupported_body_type(bool protobuf_accepted);
ApiError entity_too_large(std::size_t limit);
ApiError unauthorized();
ApiError forbidden(const GroupResource& gr, std::string_view name, std::string message);
ApiError internal_error(std::string message);
ApiError too_many_requests(std::string message, int retry_after_seconds);
ApiError expired(std::string message);
ApiError gone(std::string message);
// NewInvalid: "<qualified kind> \"name\" is invalid: [a, b]"; kind is what details.kind says.
ApiError invalid(std::string_view group, std::string_view kind, std::string_view name,
                 const std::vector<Cause>& causes);

// Field error bodies as field.Error.ErrorBody() words them.
Cause field_required(std::string field, std::string_view detail = {});
Cause field_invalid(std::string field, const Json& value, std::string_view detail);
Cause field_forbidden(std::string field, std::string_view detail);
Cause field_not_supported(std::string field, const Json& value,
                          const std::vector<std::string>& supported);
// Go's %#v-ish rendering of a value in "Invalid value: X" (strings quoted, objects as JSON).
std::string render_value(const Json& value);

}  // namespace respool::sandbox
