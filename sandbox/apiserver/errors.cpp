#include "sandbox/apiserver/errors.hpp"

#include <set>

namespace respool::sandbox {
namespace {

Json name_details(const GroupResource& gr, std::string_view name) {
  Json d = Json::object();
  if (!name.empty()) d["name"] = std::string(name);
  if (!gr.group.empty()) d["group"] = gr.group;
  if (!gr.resource.empty()) d["kind"] = gr.resource;
  return d;
}

ApiError make(int code, std::string reason, std::string message, Json details = nullptr) {
  ApiError e;
  e.code = code;
  e.reason = std::move(reason);
  e.message = std::move(message);
  e.details = std::move(details);
  return e;
}

std::string qstr(std::string_view s) {
  return Json(std::string(s)).dump();
}

}  // namespace

OJson ApiError::to_status() const {
  OJson s;
  s["kind"] = "Status";
  s["apiVersion"] = "v1";
  s["metadata"] = OJson::object();
  if (!continue_token.empty()) s["metadata"]["continue"] = continue_token;
  s["status"] = "Failure";
  if (!message.empty()) s["message"] = message;
  if (!reason.empty()) s["reason"] = reason;
  if (!details.is_null()) {
    // Keep the details in the API server's order: name, group, kind, uid, causes, retryAfter.
    OJson d = OJson::object();
    for (const char* key : {"name", "group", "kind", "uid", "causes", "retryAfterSeconds"}) {
      if (details.contains(key)) d[key] = OJson::parse(details[key].dump());
    }
    s["details"] = std::move(d);
  }
  s["code"] = code;
  return s;
}

std::string ApiError::to_text() const {
  return to_status().dump(-1, ' ', false, Json::error_handler_t::replace);
}

ApiError not_found(const GroupResource& gr, std::string_view name) {
  return make(404, "NotFound", gr.qualified() + " " + qstr(name) + " not found",
              name_details(gr, name));
}

ApiError already_exists(const GroupResource& gr, std::string_view name) {
  return make(409, "AlreadyExists", gr.qualified() + " " + qstr(name) + " already exists",
              name_details(gr, name));
}

ApiError conflict(const GroupResource& gr, std::string_view name, std::string_view why) {
  return make(409, "Conflict",
              "Operation cannot be fulfilled on " + gr.qualified() + " " + qstr(name) + ": " +
                  std::string(why),
              name_details(gr, name));
}

ApiError stale_conflict(const GroupResource& gr, std::string_view name) {
  return conflict(gr, name,
                  "the object has been modified; please apply your changes to the latest version "
                  "and try again");
}

ApiError bad_request(std::string message) {
  return make(400, "BadRequest", std::move(message));
}

ApiError method_not_allowed() {
  return make(405, "MethodNotAllowed",
              "the server does not allow this method on the requested resource", Json::object());
}

ApiError method_not_supported(const GroupResource& gr, std::string_view action) {
  return make(
      405, "MethodNotAllowed",
      std::string(action) + " is not supported on resources of kind " + qstr(gr.qualified()),
      name_details(gr, ""));
}

ApiError not_acceptable() {
  return make(406, "NotAcceptable",
              "406: Not Acceptable\n\nAvailable representations: application/json, "
              "application/yaml, application/vnd.kubernetes.protobuf",
              Json::object());
}

ApiError unsupported_media_type() {
  return make(415, "UnsupportedMediaType", "415: Unsupported Media Type", Json::object());
}

ApiError unsupported_patch_type(bool strategic_allowed) {
  std::string types = "application/json-patch+json, application/merge-patch+json, ";
  if (strategic_allowed) types += "application/strategic-merge-patch+json, ";
  types += "application/apply-patch+yaml";
  return make(
      415, "UnsupportedMediaType",
      "the body of the request was in an unknown format - accepted media types include: " + types);
}

ApiError unsupported_body_type(bool protobuf_accepted) {
  std::string types = "application/json, application/yaml";
  if (protobuf_accepted) types += ", application/vnd.kubernetes.protobuf";
  return make(
      415, "UnsupportedMediaType",
      "the body of the request was in an unknown format - accepted media types include: " + types);
}

ApiError entity_too_large(std::size_t limit) {
  return make(413, "RequestEntityTooLarge",
              "Request entity too large: limit is " + std::to_string(limit));
}

ApiError unauthorized() {
  return make(401, "Unauthorized", "Unauthorized");
}

ApiError forbidden(const GroupResource& gr, std::string_view name, std::string message) {
  std::string prefix;
  if (gr.resource.empty()) {
    prefix = "forbidden: ";
  } else if (name.empty()) {
    prefix = gr.qualified() + " is forbidden: ";
  } else {
    prefix = gr.qualified() + " " + qstr(name) + " is forbidden: ";
  }
  return make(403, "Forbidden", prefix + message, name_details(gr, name));
}

ApiError internal_error(std::string message) {
  Json details = {{"causes", Json::array({{{"message", message}}})}};
  return make(500, "InternalError", "Internal error occurred: " + message, std::move(details));
}

ApiError too_many_requests(std::string message, int retry_after_seconds) {
  Json details = Json::object();
  if (retry_after_seconds > 0) details["retryAfterSeconds"] = retry_after_seconds;
  ApiError e = make(429, "TooManyRequests", std::move(message), std::move(details));
  e.retry_after_seconds = retry_after_seconds;
  return e;
}

ApiError expired(std::string message) {
  return make(410, "Expired", std::move(message));
}

ApiError gone(std::string message) {
  return make(410, "Gone", std::move(message));
}

ApiError invalid(std::string_view group, std::string_view kind, std::string_view name,
                 const std::vector<Cause>& causes) {
  std::string qualified =
      group.empty() ? std::string(kind) : std::string(kind) + "." + std::string(group);
  // field.ErrorList.ToAggregate(): duplicates dropped, one error bare, several in [a, b].
  std::vector<std::string> parts;
  std::set<std::string> seen;
  for (const Cause& c : causes) {
    std::string text = c.field.empty() ? c.message : c.field + ": " + c.message;
    if (seen.insert(text).second) parts.push_back(std::move(text));
  }
  std::string message = qualified + " " + qstr(name) + " is invalid";
  if (parts.size() == 1) {
    message += ": " + parts[0];
  } else if (!parts.empty()) {
    message += ": [";
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (i) message += ", ";
      message += parts[i];
    }
    message += "]";
  }
  Json details = Json::object();
  if (!name.empty()) details["name"] = std::string(name);  // omitempty
  if (!group.empty()) details["group"] = std::string(group);
  details["kind"] = std::string(kind);
  Json list = Json::array();
  for (const Cause& c : causes) {
    list.push_back({{"reason", c.reason}, {"message", c.message}, {"field", c.field}});
  }
  details["causes"] = std::move(list);
  return make(422, "Invalid", std::move(message), std::move(details));
}

std::string render_value(const Json& value) {
  if (value.is_null()) return "null";
  if (value.is_string()) return qstr(value.get<std::string>());
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Cause field_required(std::string field, std::string_view detail) {
  std::string msg = "Required value";
  if (!detail.empty()) msg += ": " + std::string(detail);
  return {"FieldValueRequired", std::move(msg), std::move(field)};
}

Cause field_invalid(std::string field, const Json& value, std::string_view detail) {
  std::string msg = "Invalid value: " + render_value(value);
  if (!detail.empty()) msg += ": " + std::string(detail);
  return {"FieldValueInvalid", std::move(msg), std::move(field)};
}

Cause field_forbidden(std::string field, std::string_view detail) {
  std::string msg = "Forbidden";
  if (!detail.empty()) msg += ": " + std::string(detail);
  return {"FieldValueForbidden", std::move(msg), std::move(field)};
}

Cause field_not_supported(std::string field, const Json& value,
                          const std::vector<std::string>& supported) {
  std::string msg = "Unsupported value: " + render_value(value) + ": supported values: ";
  for (std::size_t i = 0; i < supported.size(); ++i) {
    if (i) msg += ", ";
    msg += qstr(supported[i]);
  }
  return {"FieldValueNotSupported", std::move(msg), std::move(field)};
}

}  // namespace respool::sandbox
