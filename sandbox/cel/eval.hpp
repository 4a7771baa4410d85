#pragma once
// Evaluation of a parsed CEL expression over named variables, with a cost budget: every step
// is charged roughly as cel-go's runtime cost model charges it (identifiers and selections 1,
// function calls 1 or their traversal of strings and lists, list literals 10, map literals 30)
// and evaluation stops once the budget is spent.

#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "sandbox/cel/ast.hpp"
#include "sandbox/cel/time.hpp"
#include "sandbox/cel/value.hpp"

namespace respool::sandbox::cel {

using Bindings = std::unordered_map<std::string, Value>;

struct EvalOptions {
  std::uint64_t cost_limit = std::numeric_limits<std::uint64_t>::max();
  ZoneInfo zoneinfo;  // IANA time zones for the timestamp accessors; none when empty
};

struct EvalResult {
  Value value;  // an Error value when evaluation failed
  std::uint64_t cost = 0;
  bool cost_exceeded = false;  // then value is the error "operation cancelled: ..."
};

inline constexpr const char* kCostExceeded = "operation cancelled: actual cost limit exceeded";

EvalResult evaluate(const Expr& expr, const Bindings& vars, const EvalOptions& options = {});

class Evaluator;

// What a library function sees of its call: the receiver (if called as x.f()), the evaluated
// arguments (none of them an error), and the evaluator to charge costs to.
struct CallContext {
  Evaluator& evaluator;
  const Value* target;
  std::vector<Value>& args;
  const EvalOptions& options;
  void charge(std::uint64_t cost);
};

using Function = Value (*)(CallContext&);

// The function for a call: `name` for global calls, `.name` for receiver calls. Null if none.
Function find_function(const std::string& key);

}  // namespace respool::sandbox::cel
