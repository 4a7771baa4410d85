#pragma once
// The field paths and error constructors of k8s.io/apimachinery/pkg/util/validation/field,
// producing the FieldError a Status cause carries: reason, field, and ErrorBody() as message.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sandbox/schema/schema.hpp"

namespace respool::sandbox::schema::detail {

// field.Path: Child appends ".name" (the name alone at the root), Key "[key]", Index "[i]".
std::string child(const std::string& path, std::string_view name);
std::string key(const std::string& path, std::string_view name);
std::string index(const std::string& path, std::size_t i);

FieldError required(std::string field, std::string_view detail = {});
FieldError forbidden(std::string field, std::string_view detail);
FieldError invalid(std::string field, const Json& value, std::string_view detail);
FieldError type_invalid(std::string field, const Json& value, std::string_view detail);
FieldError not_supported(std::string field, const Json& value,
                         const std::vector<std::string>& supported);
FieldError too_long(std::string field, std::int64_t max_bytes);
FieldError too_many(std::string field, std::int64_t actual, std::int64_t max_items);

}  // namespace respool::sandbox::schema::detail
