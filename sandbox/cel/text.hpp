#pragma once
// Text helpers of the CEL runtime: UTF-8 code points, and numbers printed as Go prints them
// (cel-go formats with strconv), so that string(1.5) and format() match the real server.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "apimachinery/go_format.hpp"

namespace respool::sandbox::cel {

bool utf8_valid(std::string_view text);
std::vector<char32_t> utf8_decode(std::string_view text);  // invalid bytes become U+FFFD
void utf8_append(std::string& out, char32_t code_point);
std::string utf8_encode(const std::vector<char32_t>& code_points, std::size_t from = 0,
                        std::size_t to = static_cast<std::size_t>(-1));
std::size_t utf8_length(std::string_view text);

// strconv.FormatFloat(d, 'g', -1, 64), with NaN/+Inf/-Inf spelled "NaN", "+Inf", "-Inf".
using apimachinery::go_float;
// How CEL prints a double in string() and %s: Go's 'g' shortest, infinities as "Infinity".
std::string format_double(double d);

// cel-go's strings.quote: a double-quoted string with CEL escapes.
std::string quote(std::string_view text);

}  // namespace respool::sandbox::cel
