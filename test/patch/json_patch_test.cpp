#include <catch2/catch.hpp>

#include "sandbox/patch/patch.hpp"

using respool::sandbox::patch::json_patch;
using Json = nlohmann::json;

namespace {

const std::string kRejected = "the server rejected our request due to an error in our request";

struct Case {
  const char* name;
  const char* document;
  const char* patch;
  const char* result;  // null: the patch must fail to apply (422)
};

void check(const Case& c) {
  CAPTURE(c.name);
  auto result = json_patch(Json::parse(c.document), Json::parse(c.patch));
  if (c.result == nullptr) {
    REQUIRE_FALSE(result.has_value());
    CHECK(result.error().code == 422);
    CHECK(result.error().message == kRejected);
    CHECK_FALSE(result.error().detail.empty());
  } else {
    REQUIRE(result.has_value());
    CHECK(*result == Json::parse(c.result));
  }
}

std::string detail_of(const char* document, const char* patch) {
  auto result = json_patch(Json::parse(document), Json::parse(patch));
  REQUIRE_FALSE(result.has_value());
  CHECK(result.error().code == 422);
  return result.error().detail;
}

}  // namespace

TEST_CASE("RFC 6902 appendix A examples", "[patch][json]") {
  const std::vector<Case> cases = {
      {"A.1 adding an object member", R"({"foo":"bar"})",
       R"([{"op":"add","path":"/baz","value":"qux"}])", R"({"baz":"qux","foo":"bar"})"},
      {"A.2 adding an array element", R"({"foo":["bar","baz"]})",
       R"([{"op":"add","path":"/foo/1","value":"qux"}])", R"({"foo":["bar","qux","baz"]})"},
      {"A.3 removing an object member", R"({"baz":"qux","foo":"bar"})",
       R"([{"op":"remove","path":"/baz"}])", R"({"foo":"bar"})"},
      {"A.4 removing an array element", R"({"foo":["bar","qux","baz"]})",
       R"([{"op":"remove","path":"/foo/1"}])", R"({"foo":["bar","baz"]})"},
      {"A.5 replacing a value", R"({"baz":"qux","foo":"bar"})",
       R"([{"op":"replace","path":"/baz","value":"boo"}])", R"({"baz":"boo","foo":"bar"})"},
      {"A.6 moving a value", R"({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}})",
       R"([{"op":"move","from":"/foo/waldo","path":"/qux/thud"}])",
       R"({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}})"},
      {"A.7 moving an array element", R"({"foo":["all","grass","cows","eat"]})",
       R"([{"op":"move","from":"/foo/1","path":"/foo/3"}])",
       R"({"foo":["all","cows","eat","grass"]})"},
      {"A.8 testing a value: success", R"({"baz":"qux","foo":["a",2,"c"]})",
       R"([{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}])",
       R"({"baz":"qux","foo":["a",2,"c"]})"},
      {"A.9 testing a value: error", R"({"baz":"qux"})",
       R"([{"op":"test","path":"/baz","value":"bar"}])", nullptr},
      {"A.10 adding a nested member object", R"({"foo":"bar"})",
       R"([{"op":"add","path":"/child","value":{"grandchild":{}}}])",
       R"({"foo":"bar","child":{"grandchild":{}}})"},
      {"A.11 ignoring unrecognized elements", R"({"foo":"bar"})",
       R"([{"op":"add","path":"/baz","value":"qux","xyz":123}])", R"({"foo":"bar","baz":"qux"})"},
      {"A.12 adding to a nonexistent target", R"({"foo":"bar"})",
       R"([{"op":"add","path":"/baz/bat","value":"qux"}])", nullptr},
      {"A.13 invalid JSON patch document", R"({"foo":"bar"})",
       R"([{"op":"add","path":"/baz","value":"qux","op":"remove"}])", nullptr},
      {"A.14 ~ escape ordering", R"({"/":9,"~1":10})",
       R"([{"op":"test","path":"/~01","value":10}])", R"({"/":9,"~1":10})"},
      {"A.15 comparing strings and numbers", R"({"/":9,"~1":10})",
       R"([{"op":"test","path":"/~01","value":"10"}])", nullptr},
      {"A.16 adding an array value", R"({"foo":["bar"]})",
       R"([{"op":"add","path":"/foo/-","value":["abc","def"]}])",
       R"({"foo":["bar",["abc","def"]]})"},
  };
  for (const Case& c : cases)
    check(c);
}

TEST_CASE("JSON patch operations beyond the appendix", "[patch][json]") {
  const std::vector<Case> cases = {
      {"pointer escapes", R"({"a/b":{"c~d":1}})",
       R"([{"op":"replace","path":"/a~1b/c~0d","value":2}])", R"({"a/b":{"c~d":2}})"},
      {"add replaces an existing member", R"({"a":1})", R"([{"op":"add","path":"/a","value":2}])",
       R"({"a":2})"},
      {"add at the end of an array by index", R"({"a":[1]})",
       R"([{"op":"add","path":"/a/1","value":2}])", R"({"a":[1,2]})"},
      {"replace the whole document", R"({"a":1})",
       R"([{"op":"replace","path":"","value":{"b":2}}])", R"({"b":2})"},
      {"copy", R"({"a":{"x":1},"b":{}})", R"([{"op":"copy","from":"/a/x","path":"/b/y"}])",
       R"({"a":{"x":1},"b":{"y":1}})"},
      {"move to the same place", R"({"a":1})", R"([{"op":"move","from":"/a","path":"/a"}])",
       R"({"a":1})"},
      {"test a whole object", R"({"a":{"x":[1,{"y":null}]}})",
       R"([{"op":"test","path":"/a","value":{"x":[1,{"y":null}]}}])",
       R"({"a":{"x":[1,{"y":null}]}})"},
      {"test numbers compare by value", R"({"a":1})", R"([{"op":"test","path":"/a","value":1.0}])",
       R"({"a":1})"},
      {"operations apply in order", R"({"metadata":{"labels":{"a":"1"}}})",
       R"([{"op":"test","path":"/metadata/labels/a","value":"1"},
           {"op":"remove","path":"/metadata/labels/a"},
           {"op":"add","path":"/metadata/labels/b","value":"2"}])",
       R"({"metadata":{"labels":{"b":"2"}}})"},
      {"a failing operation leaves nothing applied", R"({"a":1})",
       R"([{"op":"add","path":"/b","value":2},{"op":"test","path":"/a","value":2}])", nullptr},
      {"remove a missing member", R"({"a":1})", R"([{"op":"remove","path":"/b"}])", nullptr},
      {"replace a missing member", R"({"a":1})", R"([{"op":"replace","path":"/b","value":1}])",
       nullptr},
      {"remove past the end", R"({"a":[1]})", R"([{"op":"remove","path":"/a/1"}])", nullptr},
      {"add past the end", R"({"a":[1]})", R"([{"op":"add","path":"/a/2","value":2}])", nullptr},
      {"remove with -", R"({"a":[1]})", R"([{"op":"remove","path":"/a/-"}])", nullptr},
      {"index with a leading zero", R"({"a":[1,2]})", R"([{"op":"remove","path":"/a/01"}])",
       nullptr},
      {"negative index", R"({"a":[1,2]})", R"([{"op":"remove","path":"/a/-1"}])", nullptr},
      {"pointer without a leading slash", R"({"a":1})", R"([{"op":"remove","path":"a"}])", nullptr},
      {"bad escape", R"({"a":1})", R"([{"op":"remove","path":"/~2"}])", nullptr},
      {"move into its own child", R"({"a":{"b":{}}})",
       R"([{"op":"move","from":"/a","path":"/a/b/c"}])", nullptr},
      {"test a missing member", R"({"a":1})", R"([{"op":"test","path":"/b","value":null}])",
       nullptr},
      {"unknown op", R"({"a":1})", R"([{"op":"frobnicate","path":"/a"}])", nullptr},
      {"missing op", R"({"a":1})", R"([{"path":"/a"}])", nullptr},
      {"missing path", R"({"a":1})", R"([{"op":"remove"}])", nullptr},
      {"missing value", R"({"a":1})", R"([{"op":"add","path":"/b"}])", nullptr},
      {"missing from", R"({"a":1})", R"([{"op":"copy","path":"/b"}])", nullptr},
  };
  for (const Case& c : cases)
    check(c);
}

TEST_CASE("JSON patch failures explain themselves in detail", "[patch][json]") {
  CHECK(detail_of(R"({"a":1})", R"([{"op":"test","path":"/a","value":2}])") ==
        "testing value /a failed: test failed");
  CHECK(detail_of(R"({"a":1})", R"([{"op":"add","path":"/x/y","value":2}])") ==
        "add operation does not apply: doc is missing path: /x/y: missing value");
  CHECK(detail_of(R"({"a":1})", R"([{"op":"remove","path":"/b"}])") ==
        "error in remove for path: '/b': Unable to remove nonexistent key: b: missing value");
  CHECK(detail_of(R"({"a":[1]})", R"([{"op":"add","path":"/a/5","value":2}])") ==
        "error in add for path: '/a/5': Unable to access invalid index: 5: invalid index "
        "referenced");
  CHECK(detail_of(R"({"a":1})", R"([{"op":"test","path":"/b","value":1}])") ==
        "test operation does not apply: is missing path: /b: missing value");
  CHECK(detail_of(R"({"a":1})", R"([{"op":"frobnicate","path":"/a"}])") ==
        "Unexpected kind: frobnicate");
  CHECK(detail_of(R"({"a":1})", R"([null])") == "Unexpected kind: unknown");
}

TEST_CASE("JSON patch documents that are not arrays of objects are bad requests", "[patch][json]") {
  const Json target = Json::parse(R"({"a":1})");
  struct Bad {
    const char* patch;
    const char* message;
  };
  const std::vector<Bad> cases = {
      {R"({"op":"add"})", "json: cannot unmarshal object into Go value of type jsonpatch.Patch"},
      {R"("x")", "json: cannot unmarshal string into Go value of type jsonpatch.Patch"},
      {R"([1])", "json: cannot unmarshal number into Go value of type jsonpatch.Operation"},
  };
  for (const Bad& c : cases) {
    CAPTURE(c.patch);
    auto result = json_patch(target, Json::parse(c.patch));
    REQUIRE_FALSE(result.has_value());
    CHECK(result.error().code == 400);
    CHECK(result.error().message == c.message);
  }
  auto nothing = json_patch(target, nullptr);
  REQUIRE(nothing.has_value());
  CHECK(*nothing == target);
}

TEST_CASE("JSON patches of more than 10000 operations are too large", "[patch][json]") {
  Json ops = Json::array();
  for (int i = 0; i <= 10000; ++i)
    ops.push_back({{"op", "test"}, {"path", "/a"}, {"value", 1}});
  auto result = json_patch(Json::parse(R"({"a":1})"), ops);
  REQUIRE_FALSE(result.has_value());
  CHECK(result.error().code == 413);
  CHECK(result.error().message ==
        "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got "
        "10001");
  ops.erase(ops.begin());
  CHECK(json_patch(Json::parse(R"({"a":1})"), ops).has_value());
}
