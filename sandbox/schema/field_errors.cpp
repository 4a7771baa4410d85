#include "sandbox/schema/field_errors.hpp"

#include "sandbox/schema/crd_checks.hpp"
#include "sandbox/schema/go_format.hpp"

namespace respool::sandbox::schema::detail {

std::string child(const std::string& path, std::string_view name) {
  return path.empty() ? std::string(name) : path + "." + std::string(name);
}

std::string key(const std::string& path, std::string_view name) {
  return path + "[" + std::string(name) + "]";
}

std::string index(const std::string& path, std::size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

namespace {

FieldError make(const char* reason, std::string field, std::string body, std::string_view detail) {
  if (!detail.empty()) body += ": " + std::string(detail);
  return {reason, std::move(field), std::move(body)};
}

}  // namespace

FieldError required(std::string field, std::string_view detail) {
  return make("FieldValueRequired", std::move(field), "Required value", detail);
}

FieldError forbidden(std::string field, std::string_view detail) {
  return make("FieldValueForbidden", std::move(field), "Forbidden", detail);
}

FieldError invalid(std::string field, const Json& value, std::string_view detail) {
  return make("FieldValueInvalid", std::move(field), "Invalid value: " + go_bad_value(value),
              detail);
}

FieldError invalid_rendered(std::string field, const std::string& value, std::string_view detail) {
  return make("FieldValueInvalid", std::move(field), "Invalid value: " + value, detail);
}

FieldError type_invalid(std::string field, const Json& value, std::string_view detail) {
  return make("FieldValueTypeInvalid", std::move(field), "Invalid value: " + go_bad_value(value),
              detail);
}

FieldError not_supported(std::string field, const Json& value,
                         const std::vector<std::string>& supported) {
  std::string detail;
  if (!supported.empty()) {
    detail = "supported values: ";
    for (std::size_t i = 0; i < supported.size(); ++i) {
      detail += (i ? ", " : "") + go_quote(supported[i]);
    }
  }
  return make("FieldValueNotSupported", std::move(field),
              "Unsupported value: " + go_bad_value(value), detail);
}

// Since v1.32 (kubernetes#128553) TooLong no longer prints the value and counts bytes.
FieldError too_long(std::string field, std::int64_t max_bytes) {
  std::string detail = "value is too long";
  if (max_bytes >= 0) {
    detail =
        "may not be more than " + std::to_string(max_bytes) + (max_bytes == 1 ? " byte" : " bytes");
  }
  return make("FieldValueTooLong", std::move(field), "Too long", detail);
}

FieldError too_many(std::string field, std::int64_t actual, std::int64_t max_items) {
  std::string detail = max_items >= 0 ? "must have at most " + std::to_string(max_items) + " items"
                                      : "has too many items";
  std::string body = actual >= 0 ? "Too many: " + std::to_string(actual) : "Too many";
  return make("FieldValueTooMany", std::move(field), std::move(body), detail);
}

}  // namespace respool::sandbox::schema::detail
