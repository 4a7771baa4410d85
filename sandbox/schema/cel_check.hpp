#pragma once
// A type check of a parsed CEL rule against its schema, as cel-go's checker does for
// x-kubernetes-validations: undeclared names and functions, fields the schema does not have,
// operators applied to types they have no overload for, and the result type. Types it cannot
// know (dyn, int-or-string, unknown fields) check loosely, as cel-go's dyn does.

#include <set>
#include <string>
#include <vector>

#include "sandbox/cel/parser.hpp"
#include "sandbox/schema/cel_types.hpp"

namespace respool::sandbox::schema::detail {

struct CheckResult {
  std::vector<cel::Issue> issues;
  TypePtr result;  // null when unknown
  bool uses_old_self = false;
  std::set<std::string> unsupported;  // functions of Kubernetes' CEL the sandbox lacks
};

CheckResult check_expression(const cel::Expr& expr, const TypePtr& self);

}  // namespace respool::sandbox::schema::detail
