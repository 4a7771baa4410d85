#include <catch2/catch.hpp>

#include "sandbox/patch/patch.hpp"

using respool::sandbox::patch::apply_merge_patch;
using respool::sandbox::patch::merge_patch;
using Json = nlohmann::json;

TEST_CASE("RFC 7386 appendix A examples", "[patch][merge]") {
  struct Case {
    const char* original;
    const char* patch;
    const char* result;
  };
  const std::vector<Case> cases = {
      {R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
      {R"({"a":"b"})", R"({"a":null})", R"({})"},
      {R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
      {R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
      {R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})"},
      {R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
      {R"(["a","b"])", R"(["c","d"])", R"(["c","d"])"},
      {R"({"a":"b"})", R"(["c"])", R"(["c"])"},
      {R"({"a":"foo"})", R"(null)", R"(null)"},
      {R"({"a":"foo"})", R"("bar")", R"("bar")"},
      {R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
      {R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})"},
      {R"({})", R"({"a":{"bb":{"ccc":null}}})", R"({"a":{"bb":{}}})"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.original, c.patch);
    CHECK(apply_merge_patch(Json::parse(c.original), Json::parse(c.patch)) ==
          Json::parse(c.result));
  }
}

TEST_CASE("merge patches of objects apply as the API server applies them", "[patch][merge]") {
  // The reference transcript cm-merge-patch.txt: data and labels merged into the ConfigMap.
  const Json cm = Json::parse(R"({"kind":"ConfigMap","apiVersion":"v1",
      "metadata":{"name":"ref-cm","namespace":"ref-capture"},"data":{"k":"v4"}})");
  auto result =
      merge_patch(cm, Json::parse(R"({"data":{"k":"v5"},"metadata":{"labels":{"x":"y"}}})"));
  REQUIRE(result.has_value());
  CHECK((*result)["data"] == Json{{"k", "v5"}});
  CHECK((*result)["metadata"]["labels"] == Json{{"x", "y"}});
  CHECK((*result)["metadata"]["name"] == "ref-cm");
  // Lists are replaced, never merged.
  auto lists = merge_patch(Json::parse(R"({"spec":{"taints":[{"key":"a"}]}})"),
                           Json::parse(R"({"spec":{"taints":[{"key":"b"}]}})"));
  REQUIRE(lists.has_value());
  CHECK((*lists)["spec"]["taints"] == Json::parse(R"([{"key":"b"}])"));
}

TEST_CASE("merge patches that are not objects are bad requests", "[patch][merge]") {
  const Json target = Json::parse(R"({"a":1})");
  struct Case {
    const char* patch;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"null", "Invalid JSON Patch"},
      {"[1]",
       "error decoding patch: json: cannot unmarshal array into Go value of type "
       "map[string]interface {}"},
      {"\"x\"",
       "error decoding patch: json: cannot unmarshal string into Go value of type "
       "map[string]interface {}"},
      {"3",
       "error decoding patch: json: cannot unmarshal number into Go value of type "
       "map[string]interface {}"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.patch);
    auto result = merge_patch(target, Json::parse(c.patch));
    REQUIRE_FALSE(result.has_value());
    CHECK(result.error().code == 400);
    CHECK(result.error().message == c.message);
  }
}
