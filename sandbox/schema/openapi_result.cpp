// validate.Result and its conversion to field errors (apiextensions-apiserver's
// pkg/apiserver/validation.kubeOpenAPIResultToFieldErrors).

#include "sandbox/schema/field_errors.hpp"
#include "sandbox/schema/go_format.hpp"
#include "sandbox/schema/openapi.hpp"

namespace respool::sandbox::schema::detail {

void Result::add(OpenApiError error) {
  for (const auto& reported : errors) {
    if (reported.message == error.message) return;
  }
  errors.push_back(std::move(error));
}

void Result::merge(const Result& other) {
  for (const auto& error : other.errors)
    add(error);
  match_count += other.match_count;
}

OpenApiError error_at(Code code, std::string name, std::optional<Json> value, std::string message,
                      std::int64_t limit) {
  return {code, std::move(name), std::move(value), {}, limit, std::move(message)};
}

OpenApiError invalid_type(const std::string& name, const std::string& type_name,
                          const std::string& value) {
  return {Code::InvalidType,
          name,
          Json(value),
          {},
          -1,
          name + " in body must be of type " + type_name + ": " + go_quote(value)};
}

OpenApiError composite(std::string message) {
  return {Code::Composite, "", std::nullopt, {}, -1, std::move(message)};
}

namespace {

std::string error_path(const std::optional<std::string>& prefix, const std::string& name) {
  if (name.empty() || name == ".") return prefix.value_or("<nil>");
  const std::string trimmed = name[0] == '.' ? name.substr(1) : name;
  return prefix ? child(*prefix, trimmed) : trimmed;
}

// The enum's allowed values as NotSupported lists them: strings as they are, anything else
// as JSON.
std::vector<std::string> allowed_values(const std::vector<Json>& values) {
  std::vector<std::string> out;
  for (const auto& value : values) {
    out.push_back(value.is_string() ? value.get<std::string>() : go_json(value));
  }
  return out;
}

}  // namespace

std::vector<FieldError> to_field_errors(const std::optional<std::string>& prefix,
                                        const Result& result) {
  std::vector<FieldError> out;
  for (const auto& error : result.errors) {
    if (error.code == Code::Composite) {
      out.push_back(invalid(prefix.value_or("<nil>"), Json(""), error.message));
      continue;
    }
    std::string field = error_path(prefix, error.name);
    const Json value = error.value.value_or(Json(""));
    switch (error.code) {
      case Code::Required:
        out.push_back(required(std::move(field)));
        break;
      case Code::Enum:
        out.push_back(not_supported(std::move(field), error.value.value_or(Json(nullptr)),
                                    allowed_values(error.values)));
        break;
      case Code::TooLong:
        out.push_back(too_long(std::move(field), error.limit));
        break;
      case Code::MaxItems:
      case Code::TooManyProperties:
        out.push_back(
            too_many(std::move(field), value.is_number() ? as_int(value) : -1, error.limit));
        break;
      case Code::InvalidType:
        out.push_back(type_invalid(std::move(field), value, error.message));
        break;
      default:
        out.push_back(invalid(std::move(field), value, error.message));
    }
  }
  return out;
}

}  // namespace respool::sandbox::schema::detail
