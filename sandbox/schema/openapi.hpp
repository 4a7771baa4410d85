#pragma once
// An emulation of kube-openapi's SchemaValidator (pkg/validation/validate), the validator the
// API server runs on custom resources: its errors, their order and its quirks, and the
// conversion of its result to field errors (apiextensions' kubeOpenAPIResultToFieldErrors).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sandbox/schema/schema.hpp"

namespace respool::sandbox::schema::detail {

using Json = nlohmann::json;

// kube-openapi's error codes; Composite is an errors.New error (anyOf, oneOf, allOf, not).
enum class Code {
  InvalidType,
  Required,
  TooLong,
  TooShort,
  Pattern,
  Enum,
  MultipleOf,
  Max,
  Min,
  Unique,
  MaxItems,
  MinItems,
  TooFewProperties,
  TooManyProperties,
  UnallowedProperty,
  MultipleOfMustBePositive,
  Composite,
};

struct OpenApiError {
  Code code;
  std::string name;           // kube-openapi's path: "spec.replicas", ".spec" at the root
  std::optional<Json> value;  // the error's Value; nullopt where Go leaves it nil
  std::vector<Json> values;   // the allowed values of an enum
  std::int64_t limit = -1;    // the maximum of TooLong, MaxItems, TooManyProperties
  std::string message;        // Error(): what kube-openapi says
};

// validate.Result: errors without duplicates (by message), and the match count anyOf and
// oneOf use to pick the alternative whose errors they report.
struct Result {
  std::vector<OpenApiError> errors;
  int match_count = 0;

  static Result with_error(OpenApiError error) {
    Result result;
    result.add(std::move(error));
    return result;
  }
  bool valid() const { return errors.empty(); }
  void add(OpenApiError error);
  void merge(const Result& other);
};

// The validation of `data` against the schema node at kube-openapi path `path`.
Result validate_node(const Json& data, const Json& schema, const std::string& path);

// The checks of one kind of value (validator.go, values.go), each returning its errors.
Result check_string(const Json& data, const Json& schema, const std::string& path);
Result check_format(const Json& data, const std::string& format, const std::string& path);
Result check_number(const Json& data, const Json& schema, const std::string& path);
Result check_enum(const Json& data, const Json& schema, const std::string& path);

// swag.IsFloat64AJSONInteger: a float64 close enough to an integer (relative error below 1e-9,
// truncating toward zero) within JSON's exact integer range.
bool is_json_integer(double value);

// The schema's format if the API server validates it, else "" (CRDs drop other formats,
// int32 and int64 among them, before validating).
std::string supported_format(const Json& schema);
bool format_accepts(const std::string& format, const std::string& text);

// kubeOpenAPIResultToFieldErrors: `prefix` is the field path the errors are under, nullopt for
// none (then an error without a name is reported under "<nil>", as Go prints a nil path).
std::vector<FieldError> to_field_errors(const std::optional<std::string>& prefix,
                                        const Result& result);

// An error of kube-openapi's errors package: code, path, Value, message, and the limit that
// TooLong, MaxItems and TooManyProperties carry.
OpenApiError error_at(Code code, std::string name, std::optional<Json> value, std::string message,
                      std::int64_t limit = -1);

// Error constructors of kube-openapi's errors package, with its messages.
OpenApiError invalid_type(const std::string& name, const std::string& type_name,
                          const std::string& value);
OpenApiError composite(std::string message);

}  // namespace respool::sandbox::schema::detail
