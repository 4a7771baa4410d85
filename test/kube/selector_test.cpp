#include <catch2/catch.hpp>

#include "operator/kube/selector.hpp"

using respool::kube::FieldSelector;
using respool::kube::LabelRequirement;
using respool::kube::LabelSelector;
using Json = nlohmann::json;
using Op = LabelRequirement::Op;

namespace {

// The regex parts of the API server's messages, spelled out once.
const std::string kNamePartRegex =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const std::string kLabelValueRegex =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

std::string parse_error(std::string_view text) {
  auto selector = LabelSelector::parse(text);
  REQUIRE_FALSE(selector.has_value());
  return selector.error();
}

bool selects(std::string_view text, const Json& labels) {
  auto selector = LabelSelector::parse(text);
  REQUIRE(selector.has_value());
  return selector->matches(labels);
}

}  // namespace

TEST_CASE("label selector strings parse to their canonical form", "[selector]") {
  struct Case {
    std::string text;
    std::string canonical;
  };
  const std::vector<Case> cases = {
      {"", ""},
      {"   ", ""},
      {"x=a,y=b,z=c", "x=a,y=b,z=c"},
      {"z=a,a=b", "a=b,z=a"},
      {"x==a", "x=a"},
      {"x!=a,y=b", "x!=a,y=b"},
      {"x=", "x="},
      {"x= ,z= ", "x=,z="},
      {"!x", "!x"},
      {"x", "x"},
      {"  x  =  a  ,\ty\t!=\tb ", "x=a,y!=b"},
      {"x in (b,a)", "x in (a,b)"},
      {"x notin (b, a, b)", "x notin (a,b)"},
      {"x in (in,notin)", "x in (in,notin)"},
      {"x in (,a)", "x in (,a)"},
      {"x in ()", "x in ()"},
      {"x>1,y<5", "x>1,y<5"},
      {"example.com/key=v,a.b-c_d=1.0", "a.b-c_d=1.0,example.com/key=v"},
      {"env in (prod),!canary,tier", "!canary,env in (prod),tier"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    auto selector = LabelSelector::parse(c.text);
    REQUIRE(selector.has_value());
    CHECK(selector->to_string() == c.canonical);
    CHECK(selector->empty() == c.canonical.empty());
    auto again = LabelSelector::parse(selector->to_string());
    REQUIRE(again.has_value());
    CHECK(again->to_string() == c.canonical);
  }
}

TEST_CASE("label selector requirements carry operator and sorted values", "[selector]") {
  auto selector = LabelSelector::parse("b notin (z,y),a in (q),!c,d,e>3");
  REQUIRE(selector.has_value());
  const auto& r = selector->requirements();
  REQUIRE(r.size() == 5);
  CHECK(r[0].key == "a");
  CHECK(r[0].op == Op::In);
  CHECK(r[1].op == Op::NotIn);
  CHECK(r[1].values == std::vector<std::string>{"y", "z"});
  CHECK(r[2].key == "c");
  CHECK(r[2].op == Op::DoesNotExist);
  CHECK(r[3].op == Op::Exists);
  CHECK(r[4].op == Op::GreaterThan);
  CHECK(r[4].values == std::vector<std::string>{"3"});
}

TEST_CASE("label selector syntax errors are worded as the API server words them", "[selector]") {
  struct Case {
    std::string text;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"x==a==b", "found '==', expected: ',' or 'end of string'"},
      {"!x=a", "found '=', expected: ',' or 'end of string'"},
      {"x,", "found '', expected: identifier after ','"},
      {",x", "found ',', expected: !, identifier, or 'end of string'"},
      {"a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"},
      {"x in a", "unable to parse requirement: found 'a' expected: '('"},
      {"x in (a", "unable to parse requirement: found '', expected: ',' or ')'"},
      {"x in (a b)", "unable to parse requirement: found 'b', expected: ',' or ')'"},
      {"x in =", "unable to parse requirement: found '=' expected: '('"},
      {"x=(a)", "unable to parse requirement: found '(', expected: identifier"},
      {"!", "unable to parse requirement: found '', expected: identifier"},
      {"x<a",
       "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, "
       "the value must be an integer"},
      {"inv@lid", "unable to parse requirement: <nil>: Invalid value: \"inv@lid\": name part " +
                      kNamePartRegex},
      {"app:monolith",
       "unable to parse requirement: <nil>: Invalid value: \"app:monolith\": "
       "name part " +
           kNamePartRegex},
      {"app.kubernetes_io/name=x",
       "unable to parse requirement: <nil>: Invalid value: \"app.kubernetes_io/name\": prefix "
       "part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
       "'-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "
       "regex used for validation is "
       "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
      {"a/b/c ?=? def",
       "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a qualified name " +
           kNamePartRegex +
           " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"},
      {"/x",
       "unable to parse requirement: <nil>: Invalid value: \"/x\": prefix part must be "
       "non-empty"},
      {"x/=a",
       "unable to parse requirement: <nil>: Invalid value: \"x/\": name part must be "
       "non-empty; name part " +
           kNamePartRegex},
      {std::string(64, 'k'), "unable to parse requirement: <nil>: Invalid value: \"" +
                                 std::string(64, 'k') +
                                 "\": name part must be no more than 63 characters"},
      {"app=demo-{nginx}",
       "unable to parse requirement: values[0][app]: Invalid value: "
       "\"demo-{nginx}\": " +
           kLabelValueRegex},
      {"x=a||y=b",
       "unable to parse requirement: values[0][x]: Invalid value: \"a||y\": " + kLabelValueRegex},
      {"x=" + std::string(64, 'v'),
       "unable to parse requirement: values[0][x]: Invalid value: "
       "\"" +
           std::string(64, 'v') + "\": must be no more than 63 characters"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    CHECK(parse_error(c.text) == c.error);
  }
}

TEST_CASE("label selectors match as labels.Selector does", "[selector]") {
  const Json xy = {{"x", "y"}};
  const Json empty = Json::object();
  CHECK(selects("", xy));
  CHECK(selects("", nullptr));
  CHECK(selects("x=y", xy));
  CHECK_FALSE(selects("x=z", xy));
  CHECK_FALSE(selects("x=y", empty));
  CHECK(selects("x==y", xy));
  CHECK(selects("x!=z", xy));
  CHECK_FALSE(selects("x!=y", xy));
  CHECK(selects("x!=y", empty));  // != matches an object without the key
  CHECK(selects("x in (a,y)", xy));
  CHECK_FALSE(selects("x in (a,b)", xy));
  CHECK_FALSE(selects("x in (a,b)", empty));
  CHECK(selects("x notin (a,b)", xy));
  CHECK(selects("x notin (a,b)", empty));  // notin matches an object without the key
  CHECK_FALSE(selects("x notin (y)", xy));
  CHECK(selects("x", {{"x", ""}}));
  CHECK_FALSE(selects("x", empty));
  CHECK(selects("!x", empty));
  CHECK_FALSE(selects("!x", {{"x", ""}}));
  CHECK(selects("x=", {{"x", ""}}));
  CHECK(selects("x>1", {{"x", "2"}}));
  CHECK_FALSE(selects("x>1", {{"x", "1"}}));
  CHECK_FALSE(selects("x>1", {{"x", "a"}}));
  CHECK_FALSE(selects("x>1", empty));
  CHECK(selects("x<1", {{"x", "-3"}}));
  CHECK(selects("x=y,z=w", {{"x", "y"}, {"z", "w"}}));
  CHECK_FALSE(selects("x=y,z=w", {{"x", "y"}, {"z", "v"}}));
  CHECK_FALSE(selects("x", {{"x", 1}}));  // not a string label: not found
}

TEST_CASE("metav1.LabelSelector converts as LabelSelectorAsSelector does", "[selector]") {
  SECTION("null and empty select everything") {
    for (const Json& j : {Json(nullptr), Json::object(), Json{{"matchLabels", Json::object()}}}) {
      auto selector = LabelSelector::from_json(j);
      REQUIRE(selector.has_value());
      CHECK(selector->empty());
      CHECK(selector->matches(Json{{"a", "b"}}));
    }
  }
  SECTION("matchLabels and matchExpressions") {
    const Json j = Json::parse(R"({
      "matchLabels": {"app": "web"},
      "matchExpressions": [
        {"key": "tier", "operator": "In", "values": ["b", "a", "b"]},
        {"key": "canary", "operator": "DoesNotExist"},
        {"key": "zone", "operator": "NotIn", "values": ["z1"]},
        {"key": "gpu", "operator": "Exists", "values": []}
      ]})");
    auto selector = LabelSelector::from_json(j);
    REQUIRE(selector.has_value());
    CHECK(selector->to_string() == "app=web,!canary,gpu,tier in (a,b),zone notin (z1)");
    CHECK(selector->matches(Json{{"app", "web"}, {"tier", "a"}, {"gpu", "1"}}));
    CHECK_FALSE(selector->matches(Json{{"app", "web"}, {"tier", "a"}}));
    CHECK_FALSE(
        selector->matches(Json{{"app", "web"}, {"tier", "a"}, {"gpu", "1"}, {"zone", "z1"}}));
    CHECK_FALSE(
        selector->matches(Json{{"app", "web"}, {"tier", "a"}, {"gpu", "1"}, {"canary", "y"}}));
  }
  SECTION("invalid selectors") {
    struct Case {
      std::string json;
      std::string error;
    };
    const std::vector<Case> cases = {
        {R"({"matchExpressions":[{"key":"a","operator":"Foo"}]})",
         "\"Foo\" is not a valid label selector operator"},
        {R"({"matchExpressions":[{"key":"a","operator":"Gt","values":["1"]}]})",
         "\"Gt\" is not a valid label selector operator"},
        {R"({"matchExpressions":[{"key":"a","operator":"In"}]})",
         "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be "
         "empty"},
        {R"({"matchExpressions":[{"key":"a","operator":"Exists","values":["x"]}]})",
         "values: Invalid value: []string{\"x\"}: values set must be empty for exists and does "
         "not exist"},
        {R"({"matchLabels":{"a b":"c"}})",
         "key: Invalid value: \"a b\": name part " + kNamePartRegex},
        {R"({"matchLabels":{"a":"b c"}})",
         "values[0][a]: Invalid value: \"b c\": " + kLabelValueRegex},
        {R"({"matchExpressions":[{"key":"a b","operator":"In","values":[]}]})",
         "[key: Invalid value: \"a b\": name part " + kNamePartRegex +
             ", values: Invalid value: []string{}: for 'in', 'notin' operators, values set "
             "can't be empty]"},
        {R"({"matchLabels":{"a":1}})",
         "json: cannot unmarshal number into Go value of type string"},
        {R"([])", "json: cannot unmarshal array into Go value of type v1.LabelSelector"},
    };
    for (const Case& c : cases) {
      CAPTURE(c.json);
      auto selector = LabelSelector::from_json(Json::parse(c.json));
      REQUIRE_FALSE(selector.has_value());
      CHECK(selector.error() == c.error);
    }
  }
}

TEST_CASE("the nothing selector matches no object", "[selector]") {
  const LabelSelector nothing = LabelSelector::nothing();
  CHECK(nothing.matches_nothing());
  CHECK_FALSE(nothing.empty());
  CHECK_FALSE(nothing.matches(Json::object()));
  CHECK_FALSE(nothing.matches(Json{{"a", "b"}}));
}

TEST_CASE("field selectors parse, escape and match as fields.ParseSelector", "[selector]") {
  const auto fields = [](const Json& j) { return respool::kube::json_lookup(j); };
  SECTION("terms, operators and order") {
    auto s = FieldSelector::parse("status.phase!=Succeeded,spec.nodeName=n1,metadata.name==x");
    REQUIRE(s.has_value());
    REQUIRE(s->requirements().size() == 3);
    CHECK(s->requirements()[0].field == "metadata.name");
    CHECK(s->requirements()[1].field == "spec.nodeName");
    CHECK(s->requirements()[2].field == "status.phase");
    CHECK_FALSE(s->requirements()[2].equals);
    CHECK(s->required_value("metadata.name") == "x");
    CHECK_FALSE(s->required_value("status.phase").has_value());
    CHECK(s->to_string() == "metadata.name=x,spec.nodeName=n1,status.phase!=Succeeded");
    CHECK(s->matches(fields({{"metadata.name", "x"}, {"spec.nodeName", "n1"}})));
    CHECK_FALSE(s->matches(
        fields({{"metadata.name", "x"}, {"spec.nodeName", "n1"}, {"status.phase", "Succeeded"}})));
  }
  SECTION("empty and absent fields") {
    auto all = FieldSelector::parse("");
    REQUIRE(all.has_value());
    CHECK(all->empty());
    CHECK(all->matches(fields(Json::object())));
    auto ne = FieldSelector::parse("a!=x");
    REQUIRE(ne.has_value());
    CHECK(ne->matches(fields(Json::object())));
    auto blank = FieldSelector::parse("a=");
    REQUIRE(blank.has_value());
    CHECK(blank->matches(fields(Json::object())));
    auto eq = FieldSelector::parse("a=b");
    REQUIRE(eq.has_value());
    CHECK_FALSE(eq->matches(fields(Json::object())));
    auto skipped = FieldSelector::parse(",a=b,");
    REQUIRE(skipped.has_value());
    CHECK(skipped->requirements().size() == 1);
  }
  SECTION("escapes") {
    auto s = FieldSelector::parse(R"(a=b\,c,d=e\=f,g=h\\)");
    REQUIRE(s.has_value());
    REQUIRE(s->requirements().size() == 3);
    CHECK(s->requirements()[0].value == "b,c");
    CHECK(s->requirements()[1].value == "e=f");
    CHECK(s->requirements()[2].value == "h\\");
    CHECK(s->to_string() == R"(a=b\,c,d=e\=f,g=h\\)");
  }
  SECTION("errors") {
    struct Case {
      std::string text;
      std::string error;
    };
    const std::vector<Case> cases = {
        {"abc", "invalid selector: 'abc'; can't understand 'abc'"},
        {"a=b,abc", "invalid selector: 'a=b,abc'; can't understand 'abc'"},
        {"a=b=c", "invalid field selector: unescaped character in value: 61"},
        {R"(a=b\x)", R"(invalid field selector: invalid escape sequence: \x)"},
        {R"(a=b\)", R"(invalid field selector: invalid escape sequence: \)"},
    };
    for (const Case& c : cases) {
      CAPTURE(c.text);
      auto s = FieldSelector::parse(c.text);
      REQUIRE_FALSE(s.has_value());
      CHECK(s.error() == c.error);
    }
  }
}
