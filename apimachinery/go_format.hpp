#pragma once
// How Go prints numbers and strings, for text that must match what the API server, kubectl or
// client_golang write byte for byte: strconv.FormatFloat, fmt's %v and %q, encoding/json.

#include <string>
#include <string_view>

namespace respool::apimachinery {

// strconv.FormatFloat(value, 'g', -1, 64), which is also fmt's %v of a float64: the shortest
// digits that read back as the value, in exponent form below 1e-4 and from 1e+06 ("1.5",
// "123456", "1e+06", "1.234567e+06", "1e-05", "-0", "NaN", "+Inf", "-Inf").
std::string go_float(double value);
// encoding/json's float64: exponent form only below 1e-6 and from 1e+21, with the exponent's
// digits unpadded ("1e-7", "1e+21"), and "0" for either zero.
std::string go_json_float(double value);
// encoding/json's string: quoted, with \" \\ \n \r \t, \u00XX for other controls and
// for < > & U+2028 U+2029 (HTML-safe), and U+FFFD for each byte of invalid UTF-8.
std::string go_json_string(std::string_view text);
// strconv.Quote (fmt's %q): printable runes as they are, \a \b \f \n \r \t \v, \x for bytes
// of invalid UTF-8 and control characters, \u and \U for other unprintable runes.
std::string go_quote(std::string_view text);

}  // namespace respool::apimachinery
