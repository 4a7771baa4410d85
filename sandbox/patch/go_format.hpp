#pragma once
// Go's formatting of decoded JSON (map[string]interface{} and friends) with %v and of the JSON
// decoder's type errors, for error messages worded as the API server words them.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace respool::sandbox::patch {

// fmt.Sprintf("%v", value): map[a:1 b:[x y]], <nil>, 1.5, true.
std::string go_value(const nlohmann::json& value);
// The JSON kind as encoding/json names it in "cannot unmarshal <kind> into ...".
std::string_view go_json_kind(const nlohmann::json& value);
// The Go type of a decoded value, as reflect.TypeOf prints it: map[string]interface {}, string.
std::string_view go_type_name(const nlohmann::json& value);
// "json: cannot unmarshal <kind> into Go value of type <go_type>".
std::string go_unmarshal_error(const nlohmann::json& value, std::string_view go_type);

}  // namespace respool::sandbox::patch
