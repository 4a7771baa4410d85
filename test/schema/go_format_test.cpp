// The Go renderings messages depend on: strconv.Quote, %v of float64, json.Marshal.

#include "sandbox/schema/go_format.hpp"

#include <catch2/catch.hpp>

using namespace respool::sandbox::schema::detail;

TEST_CASE("go_quote is strconv.Quote", "[schema][go]") {
  CHECK(go_quote("plain") == R"("plain")");
  CHECK(go_quote("a\"b\\c") == R"("a\"b\\c")");
  CHECK(go_quote("tab\tnew\nline") == R"("tab\tnew\nline")");
  CHECK(go_quote("\x01\x7f") == R"("\x01\x7f")");
  CHECK(go_quote("caf\xC3\xA9") == "\"caf\xC3\xA9\"");
  CHECK(go_quote("\xff") == R"("\xff")");
  CHECK(go_quote("\xC2\x85") == R"("\u0085")");
}

TEST_CASE("go_float is fmt's %v of a float64", "[schema][go]") {
  CHECK(go_float(0) == "0");
  CHECK(go_float(1) == "1");
  CHECK(go_float(-2.5) == "-2.5");
  CHECK(go_float(123456) == "123456");
  CHECK(go_float(1e6) == "1e+06");
  CHECK(go_float(1234567) == "1.234567e+06");
  CHECK(go_float(0.0001) == "0.0001");
  CHECK(go_float(0.00001) == "1e-05");
  CHECK(go_float(0.1 + 0.2) == "0.30000000000000004");
  CHECK(go_float(1e21) == "1e+21");
}

TEST_CASE("go_json is json.Marshal; go_syntax is %#v", "[schema][go]") {
  CHECK(go_json(Json(1e20)) == "100000000000000000000");
  CHECK(go_json(Json(1e21)) == "1e+21");
  CHECK(go_json(Json(1e-7)) == "1e-7");
  CHECK(go_json(Json::parse(R"({"b": [1, "<"], "a": null})")) == R"({"a":null,"b":[1,"\u003c"]})");
  CHECK(go_syntax(Json::parse(R"({"b": [1, "x"], "a": null})")) ==
        R"(map[string]interface {}{"a":interface {}(nil), "b":[]interface {}{1, "x"}})");
  CHECK(kind_of(Json::parse("18446744073709551615")) == Kind::Float);
  CHECK(kind_of(Json::parse("9223372036854775807")) == Kind::Int);
}
