#pragma once
// The parsed form of a CEL expression, with macros already expanded into comprehension nodes.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sandbox/cel/value.hpp"

namespace respool::sandbox::cel {

enum class ExprKind : std::uint8_t {
  Literal,
  Ident,
  Select,  // target.name; has(target.name) when test_only; target.?name when optional
  Call,    // name(args) or target.name(args); operators are calls: _+_, _&&_, _?_:_, ...
  List,    // [args...]
  Map,     // {args[0]: args[1], ...}
  Struct,  // Name{field: value}: message construction (no message types are known)
  Comprehension,
};

// The macros: each is its own comprehension with CEL's semantics (all/exists combine errors
// commutatively; exists_one, map and filter propagate the first error).
enum class Macro : std::uint8_t {
  None,
  All,
  Exists,
  ExistsOne,
  Map,
  MapFilter,
  Filter,
  TransformList,
  TransformListFilter,
  TransformMap,
  TransformMapFilter,
  Bind,
  OptMap,
  OptFlatMap,
};

struct Expr {
  ExprKind kind = ExprKind::Literal;
  std::int32_t pos = 0;  // byte offset of the node's token in the source
  Value literal;
  std::string name;  // Ident, Select field, Call function, Struct type name
  bool test_only = false;
  bool optional = false;
  std::unique_ptr<Expr> target;  // Select operand, Call receiver (none for global calls)
  // Call arguments, List elements, Map keys and values interleaved, Struct field values;
  // Comprehension: range, then step expressions (predicate, transform).
  std::vector<std::unique_ptr<Expr>> args;
  std::vector<std::string> field_names;  // Struct fields
  std::vector<bool> optional_entries;    // List/Map/Struct entries written `?x`
  Macro macro = Macro::None;
  std::string var, var2;  // comprehension variables (var2 for the two-variable forms)
};

using ExprPtr = std::unique_ptr<Expr>;

}  // namespace respool::sandbox::cel
