// The cases of CEL's own conformance suite (../shared/cel-conformance/cases.json, converted
// from google/cel-spec's tests/simple/testdata): every case is parsed and evaluated, the pass
// count printed, and the cases that fail must be exactly the known ones listed below.

#include <cmath>
#include <fstream>
#include <iostream>
#include <set>

#include "apimachinery/base64.hpp"
#include "sandbox/cel/eval.hpp"
#include "sandbox/cel/parser.hpp"
#include "test/cel/support.hpp"

using namespace respool::sandbox::cel;
namespace apimachinery = respool::apimachinery;
using Json = nlohmann::json;

namespace {

Value from_json(const Json& typed);

Value from_json(const Json& typed) {
  auto [kind, v] = *typed.items().begin();
  if (kind == "null") return Value();
  if (kind == "bool") return Value::boolean(v.get<bool>());
  if (kind == "int") return Value::integer(std::stoll(v.get<std::string>()));
  if (kind == "uint") return Value::uinteger(std::stoull(v.get<std::string>()));
  if (kind == "double") {
    if (v.is_string()) {
      std::string s = v.get<std::string>();
      if (s == "NaN") return Value::dbl(std::nan(""));
      return Value::dbl(s == "Infinity" ? HUGE_VAL : -HUGE_VAL);
    }
    return Value::dbl(v.get<double>());
  }
  if (kind == "string") return Value::string(v.get<std::string>());
  if (kind == "bytes")
    return Value::bytes(apimachinery::base64_decode(v.get<std::string>()).value());
  if (kind == "list") {
    std::vector<Value> items;
    for (const Json& x : v)
      items.push_back(from_json(x));
    return Value::list(std::move(items));
  }
  auto data = std::make_shared<MapData>();
  for (const Json& entry : v)
    data->insert(from_json(entry[0]), from_json(entry[1]));
  return Value::map(std::move(data));
}

// Equal and of the same type all the way down (1 and 1u differ here; NaN equals NaN).
bool same(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  if (a.is(Kind::Double)) {
    double x = a.as_double(), y = b.as_double();
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
    return x == y && std::signbit(x) == std::signbit(y);
  }
  if (a.is(Kind::List)) {
    if (a.items().size() != b.items().size()) return false;
    for (std::size_t i = 0; i < a.items().size(); ++i) {
      if (!same(a.items()[i], b.items()[i])) return false;
    }
    return true;
  }
  if (a.is(Kind::Map)) {
    if (a.map_data().entries.size() != b.map_data().entries.size()) return false;
    for (const auto& [k, v] : a.map_data().entries) {
      const Value* other = b.map_data().find(k);
      if (!other || !same(v, *other)) return false;
    }
    return true;
  }
  return equals(a, b);
}

// Cases that fail, and why. Keep this list honest: the test fails when a case listed here
// passes (remove it) or when one not listed fails.
// All of them are artifacts of the conversion to JSON, not CEL behaviour: the expected values
// of the \u/\U escape cases hold a literal backslash ("\\u0100" where the string has U+0100,
// since protobuf's text format has no \u escapes), and the two bytes cases expect a backslash
// before '?' that their expression does not contain.
const std::set<std::string> kKnownFailures = {
    "parse/string_literals/single_quoted_lower_u_escapes",
    "parse/string_literals/double_quoted_lower_u_escapes",
    "parse/string_literals/triple_single_quoted_lower_u_escapes",
    "parse/string_literals/triple_double_quoted_lower_u_escapes",
    "parse/string_literals/single_quoted_upper_u_escapes",
    "parse/string_literals/double_quoted_upper_u_escapes",
    "parse/string_literals/triple_single_quoted_upper_u_escapes",
    "parse/string_literals/triple_double_quoted_upper_u_escapes",
    "parse/string_literals/mixed_case_hex_single_quoted_escapes",
    "parse/string_literals/mixed_case_hex_double_quoted_escapes",
    "parse/string_literals/mixed_case_hex_triple_single_quoted_escapes",
    "parse/string_literals/mixed_case_hex_triple_double_quoted_escapes",
    "parse/string_literals/unassigned_code_point_single_quoted_escapes",
    "parse/string_literals/unassigned_code_point_double_quoted_escapes",
    "parse/string_literals/unassigned_code_point_triple_single_quoted_escapes",
    "parse/string_literals/unassigned_code_point_triple_double_quoted_escapes",
    "parse/string_literals/unassigned_code_point_single_quoted_unescaped",
    "parse/string_literals/unassigned_code_point_double_quoted_unescaped",
    "parse/string_literals/unassigned_code_point_triple_single_quoted_unescaped",
    "parse/string_literals/unassigned_code_point_triple_double_quoted_unescaped",
    "parse/bytes_literals/triple_single_quoted_unescaped_punctuation",
    "parse/bytes_literals/triple_double_quoted_unescaped_punctuation",
};

}  // namespace

TEST_CASE("CEL conformance cases") {
  std::string path = respool::test::shared_file("cel-conformance/cases.json");
  REQUIRE_FALSE(path.empty());
  std::ifstream in(path);
  Json doc = Json::parse(in);
  const Json& cases = doc["cases"];
  EvalOptions options;
  options.zoneinfo = respool::test::system_zoneinfo();
  options.cost_limit = 10000000;
  std::size_t passed = 0;
  std::set<std::string> failed;
  for (const Json& c : cases) {
    std::string id = c["file"].get<std::string>() + "/" + c["section"].get<std::string>() + "/" +
                     c["name"].get<std::string>();
    std::string expr = c["expr"].get<std::string>();
    Bindings vars;
    if (c.contains("bindings")) {
      for (auto& [name, v] : c["bindings"].items())
        vars[name] = from_json(v);
    }
    ParseResult parsed = parse(expr);
    bool ok;
    std::string got;
    if (!parsed.expr) {
      ok = c.contains("error");
      got = "parse error: " + format_issues(expr, parsed.issues);
    } else {
      EvalResult r = evaluate(*parsed.expr, vars, options);
      got = (r.value.is_error() ? "error: " : "") + debug_string(r.value);
      ok = c.contains("error") ? r.value.is_error() : same(r.value, from_json(c["value"]));
    }
    if (ok) {
      ++passed;
    } else {
      failed.insert(id);
      if (!kKnownFailures.count(id)) {
        UNSCOPED_INFO(id << ": " << expr << " -> " << got << " (want " << c.dump() << ")");
      }
    }
  }
  std::cout << "CEL conformance: " << passed << " of " << cases.size() << " cases pass"
            << std::endl;
  std::set<std::string> unexpected, fixed;
  for (const std::string& f : failed) {
    if (!kKnownFailures.count(f)) unexpected.insert(f);
  }
  for (const std::string& f : kKnownFailures) {
    if (!failed.count(f)) fixed.insert(f);
  }
  CHECK(unexpected.empty());
  for (const std::string& f : fixed)
    UNSCOPED_INFO("now passes, remove from the list: " << f);
  CHECK(fixed.empty());
}
