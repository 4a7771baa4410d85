#pragma once
// Renders decoded JSON values as the Go code of the API server prints them (strconv.Quote,
// fmt's %v and %#v, encoding/json), so that messages match the real server byte for byte.
// Numbers follow Go's decoding: integers that fit an int64 are int64, all others float64.

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "apimachinery/go_format.hpp"

namespace respool::sandbox::schema::detail {

using Json = nlohmann::json;

enum class Kind { Null, Bool, Int, Float, String, Array, Object };

// The Go type a JSON value decodes to (int64 or float64 for numbers).
Kind kind_of(const Json& value);
std::int64_t as_int(const Json& value);  // for Kind::Int; out-of-range floats saturate
double as_float(const Json& value);      // for Kind::Int and Kind::Float

// Go's int64(f) on amd64: NaN and values out of range give the "integer indefinite",
// math.MinInt64.
std::int64_t to_int64(double value);

// strconv.Quote (fmt's %q), fmt's %v of a float64, encoding/json's strings and floats.
using apimachinery::go_float;
using apimachinery::go_json_float;
using apimachinery::go_json_string;
using apimachinery::go_quote;

std::string go_number(const Json& value);  // fmt's %v of an int64 or float64
std::string go_syntax(const Json& value);  // fmt's %#v of a decoded JSON value
std::string go_json(const Json& value);    // json.Marshal of a decoded JSON value

// How field.Error prints a bad value: null, %v for numbers and booleans, %q for strings,
// %#v for maps and slices.
std::string go_bad_value(const Json& value);

}  // namespace respool::sandbox::schema::detail
