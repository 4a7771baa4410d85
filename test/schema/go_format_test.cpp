// The Go renderings messages depend on: json.Marshal and %#v of decoded JSON (strconv.Quote
// and %v of float64 are apimachinery's, tested in test/apimachinery/go_format_test.cpp).

#include "sandbox/schema/go_format.hpp"

#include <catch2/catch.hpp>

using namespace respool::sandbox::schema::detail;

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
