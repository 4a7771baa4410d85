#pragma once
// CEL's parser: source text to an expression tree with the macros expanded, or the issues
// worded and placed as cel-go reports them ("ERROR: <input>:1:5: Syntax error: ...").

#include <string>
#include <string_view>
#include <vector>

#include "sandbox/cel/ast.hpp"

namespace respool::sandbox::cel {

// Limits of cel-go's parser: source size in code points, and nesting depth.
inline constexpr std::size_t kMaxSourceCodePoints = 100000;
inline constexpr int kMaxRecursionDepth = 250;

struct Issue {
  std::int32_t pos = 0;  // byte offset in the source
  std::string message;
};

struct ParseResult {
  ExprPtr expr;  // null when there are issues
  std::vector<Issue> issues;
};

ParseResult parse(std::string_view source);

// The issues as cel-go's Issues.String(): each "ERROR: <input>:L:C: message", then the source
// line and a caret under the column, joined by newlines.
std::string format_issues(std::string_view source, const std::vector<Issue>& issues);

}  // namespace respool::sandbox::cel
