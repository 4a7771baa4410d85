// Fuzzed CEL text never crashes the parser or the evaluator, and expressions that loop or
// explode are cut off by the cost budget: random token soups, and mutations of the
// conformance suite's expressions (bytes flipped, inserted, deleted, spliced).

#include <fstream>
#include <random>

#include "sandbox/cel/eval.hpp"
#include "sandbox/cel/parser.hpp"
#include "test/cel/support.hpp"

using namespace respool::sandbox::cel;

namespace {

// Parses and evaluates; true when it produced a value or an error (it always must).
bool run(const std::string& text) {
  ParseResult parsed = parse(text);
  if (!parsed.expr) return !format_issues(text, parsed.issues).empty();
  Bindings vars{{"x", Value::integer(3)},
                {"s", Value::string("abc")},
                {"l", Value::list({Value::integer(1), Value::string("a")})}};
  EvalOptions options;
  options.cost_limit = 100000;
  EvalResult r = evaluate(*parsed.expr, vars, options);
  (void)debug_string(r.value);
  return r.cost <= options.cost_limit + 1000000;
}

std::vector<std::string> seeds() {
  std::vector<std::string> out = {
      "[1, 2, 3].map(x, x * 2).filter(y, y > 2).exists_one(z, z == 4)",
      "{'a': [1u, 2.5, b'x'], 'b': {'c': null}}.b.c == null ? 'yes' : 'no'",
      "'%s %d %.2f'.format(['a', 1, 2.5]).split(' ').join('-')",
      "timestamp('2009-02-13T23:31:30Z') + duration('1h30m') > timestamp(0)",
      "s.matches('^[a-c]+$') && s.indexOf('b') == 1 && s.substring(1, 2) == 'b'",
      "has(m.a) || optional.of(1).orValue(2) == 1 && [?optional.none(), 1].size() == 1",
      "quantity('1.5Gi').isGreaterThan(quantity('1G')) && "
      "cidr('10.0.0.0/8').containsIP('10.1.2.3')",
      "l.all(e, type(e) == int || type(e) == string) && cel.bind(v, x * x, v + v) == 18",
  };
  std::string path = respool::test::shared_file("cel-conformance/cases.json");
  if (!path.empty()) {
    std::ifstream in(path);
    auto doc = nlohmann::json::parse(in);
    for (const auto& c : doc["cases"])
      out.push_back(c["expr"].get<std::string>());
  }
  return out;
}

}  // namespace

TEST_CASE("fuzzed CEL text never crashes") {
  std::mt19937 rng(20240515);
  std::vector<std::string> corpus = seeds();
  const std::vector<std::string> pieces = {"(",
                                           ")",
                                           "[",
                                           "]",
                                           "{",
                                           "}",
                                           ".",
                                           ",",
                                           ":",
                                           "?",
                                           "!",
                                           "-",
                                           "+",
                                           "*",
                                           "/",
                                           "%",
                                           "==",
                                           "!=",
                                           "<",
                                           ">=",
                                           "&&",
                                           "||",
                                           " in ",
                                           "x",
                                           "s",
                                           "l",
                                           "1",
                                           "2u",
                                           "3.5",
                                           "'a'",
                                           "b'\\xff'",
                                           "null",
                                           "true",
                                           ".all(e, ",
                                           ".map(e, ",
                                           "has(",
                                           "size(",
                                           "\"\"\"",
                                           "r'",
                                           "9223372036854775807",
                                           "-9223372036854775808",
                                           "1e309",
                                           "0x",
                                           "`a.b`",
                                           ".?",
                                           "[?"};
  std::size_t runs = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    if (round % 4 == 0) {
      int n = static_cast<int>(rng() % 24);
      for (int k = 0; k < n; ++k)
        text += pieces[rng() % pieces.size()];
    } else {
      text = corpus[rng() % corpus.size()];
      int edits = 1 + static_cast<int>(rng() % 4);
      for (int k = 0; k < edits && !text.empty(); ++k) {
        std::size_t at = rng() % text.size();
        switch (rng() % 4) {
          case 0:
            text[at] = static_cast<char>(rng() % 256);
            break;
          case 1:
            text.erase(at, 1 + rng() % 3);
            break;
          case 2:
            text.insert(at, pieces[rng() % pieces.size()]);
            break;
          default: {
            const std::string& other = corpus[rng() % corpus.size()];
            std::size_t from = rng() % (other.size() + 1);
            text.insert(at, other.substr(from, rng() % 20));
          }
        }
      }
    }
    REQUIRE(run(text));
    ++runs;
  }
  CHECK(runs == 20000);
}

TEST_CASE("deep nesting is refused, not a stack overflow") {
  std::string deep(100000, '(');
  CHECK_FALSE(parse(deep).expr);
  // Long operator runs are loops, not recursion: 99998 negations of 7 are 7.
  std::string negations(99998, '-');
  ParseResult neg = parse(negations + "7");
  REQUIRE(neg.expr);
  CHECK(evaluate(*neg.expr, {}).value.as_int() == 7);
  CHECK_FALSE(parse(std::string(100001, '1')).expr);  // over 100,000 code points
  std::string lists;
  for (int i = 0; i < 5000; ++i)
    lists += "[";
  ParseResult r = parse(lists);
  REQUIRE_FALSE(r.expr);
  CHECK(format_issues(lists, r.issues).find("recursion limit exceeded") != std::string::npos);
}

TEST_CASE("the cost budget cuts off expressions that loop or explode") {
  EvalOptions options;
  options.cost_limit = 100000;
  // A triple loop over 200 elements: eight million steps without the budget.
  std::string loops = "l.all(a, l.all(b, l.all(c, a + b + c >= 0)))";
  std::vector<Value> items;
  for (int i = 0; i < 200; ++i)
    items.push_back(Value::integer(i));
  Bindings vars{{"l", Value::list(items)}};
  EvalResult r = evaluate(*parse(loops).expr, vars, options);
  CHECK(r.cost_exceeded);
  CHECK(r.value.text() == kCostExceeded);
  // Strings that double in size: the cost grows with the size, so the budget stops it too.
  std::string doubling =
      "l.map(a, l.map(b, 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' + string(a) + "
      "'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy'))";
  r = evaluate(*parse(doubling).expr, vars, options);
  CHECK(r.cost_exceeded);
  // Within the budget, the same shape evaluates.
  Bindings small{{"l", Value::list({Value::integer(1), Value::integer(2)})}};
  r = evaluate(*parse(loops).expr, small, options);
  CHECK_FALSE(r.cost_exceeded);
  CHECK(r.value.is(Kind::Bool));
  CHECK(r.value.as_bool());
}
