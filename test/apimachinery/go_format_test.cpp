#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "apimachinery/go_format.hpp"

using respool::apimachinery::go_float;
using respool::apimachinery::go_json_float;
using respool::apimachinery::go_json_string;
using respool::apimachinery::go_quote;

TEST_CASE("go_float is strconv.FormatFloat(f, 'g', -1, 64)", "[go]") {
  CHECK(go_float(0) == "0");
  CHECK(go_float(-0.0) == "-0");
  CHECK(go_float(1) == "1");
  CHECK(go_float(-2.5) == "-2.5");
  CHECK(go_float(123456) == "123456");
  CHECK(go_float(999999.5) == "999999.5");
  CHECK(go_float(1e6) == "1e+06");
  CHECK(go_float(1234567) == "1.234567e+06");
  CHECK(go_float(0.0001) == "0.0001");
  CHECK(go_float(0.00001) == "1e-05");
  CHECK(go_float(0.1 + 0.2) == "0.30000000000000004");
  CHECK(go_float(1e21) == "1e+21");
  CHECK(go_float(1e100) == "1e+100");
  CHECK(go_float(9.999999999999999e-06) == "9.999999999999999e-06");
  CHECK(go_float(std::nan("")) == "NaN");
  CHECK(go_float(HUGE_VAL) == "+Inf");
  CHECK(go_float(-HUGE_VAL) == "-Inf");
}

// Four copies printed floats. The sandbox's patch copy found the shortest %.*g precision and so
// printed 100.0 as "1e+02" and 1234567.0 as "1234567" (C's %g switches at the precision, Go's
// shortest 'g' at 1e+06); the CEL copy switched to exponents only from 1e+21, as encoding/json
// does, though cel-go converts doubles to strings with strconv.FormatFloat(d, 'g', -1, 64).
// strconv (ftoa.go: "if precision was the shortest possible, use precision 6") is kept.
TEST_CASE("the copies' differences are settled as strconv has them", "[go]") {
  CHECK(go_float(100.0) == "100");
  CHECK(go_float(1234567.0) == "1.234567e+06");
  CHECK(go_float(1e20) == "1e+20");
}

TEST_CASE("go_json_float is encoding/json's float64", "[go]") {
  CHECK(go_json_float(0) == "0");
  CHECK(go_json_float(-0.0) == "0");
  CHECK(go_json_float(1.5) == "1.5");
  CHECK(go_json_float(1e6) == "1000000");
  CHECK(go_json_float(1e20) == "100000000000000000000");
  CHECK(go_json_float(1e21) == "1e+21");
  CHECK(go_json_float(0.000001) == "0.000001");
  CHECK(go_json_float(0.0000001) == "1e-7");
}

// The sandbox's protobuf copy wrote \a, \b, \f and \v as \x07, \x08, \x0c and \x0b and every
// valid multi-byte rune as it is; the operator's selector copy let U+0085 through. strconv.Quote
// escapes them as kept here.
TEST_CASE("go_quote is strconv.Quote", "[go]") {
  CHECK(go_quote("") == "\"\"");
  CHECK(go_quote("plain") == R"("plain")");
  CHECK(go_quote("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(go_quote("tab\tnew\nline") == R"("tab\tnew\nline")");
  CHECK(go_quote("\x01\x7f") == R"("\x01\x7f")");
  CHECK(go_quote("\a\b\f\n\r\t\v") == "\"\\a\\b\\f\\n\\r\\t\\v\"");
  CHECK(go_quote(std::string("\x00\x7f", 2)) == "\"\\x00\\x7f\"");
  CHECK(go_quote("caf\xC3\xA9") == "\"caf\xC3\xA9\"");
  CHECK(go_quote("\xff") == "\"\\xff\"");
  CHECK(go_quote("\xC2\x85") == "\"\\u0085\"");              // NEL: not printable
  CHECK(go_quote("\xEF\xBB\xBF") == "\"\\ufeff\"");          // BOM
  CHECK(go_quote("\xF3\xB0\x80\x80") == "\"\\U000f0000\"");  // private use plane
  CHECK(go_quote("\xED\xA0\x80") == "\"\\xed\\xa0\\x80\"");  // a surrogate is invalid UTF-8
}

TEST_CASE("go_json_string is encoding/json's string", "[go]") {
  CHECK(go_json_string("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(go_json_string("\n\r\t") == "\"\\n\\r\\t\"");
  CHECK(go_json_string("\x01") == "\"\\u0001\"");
  CHECK(go_json_string("<a&b>") == "\"\\u003ca\\u0026b\\u003e\"");
  CHECK(go_json_string("\xE2\x80\xA8") == "\"\\u2028\"");
  CHECK(go_json_string("\xff") == "\"\\ufffd\"");
  CHECK(go_json_string("caf\xC3\xA9") == "\"caf\xC3\xA9\"");
}
