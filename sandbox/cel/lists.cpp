// Kubernetes' list library (isSorted, sum, min, max, indexOf, lastIndexOf), cel-go's sets
// extension (sets.contains, sets.equivalent, sets.intersects) and the optional library.

#include "sandbox/cel/library.hpp"

namespace respool::sandbox::cel {
namespace {

const std::vector<Value>* list_target(CallContext& c) {
  return c.target && c.target->is(Kind::List) ? &c.target->items() : nullptr;
}

Value is_sorted(CallContext& c) {
  const auto* items = list_target(c);
  if (!items || !c.args.empty()) return no_such_overload();
  c.charge(items->size());
  for (std::size_t k = 1; k < items->size(); ++k) {
    Order o = compare((*items)[k - 1], (*items)[k]);
    if (o == Order::NoOverload) return no_such_overload();
    if (o == Order::Greater) return Value::boolean(false);
  }
  return Value::boolean(true);
}

Value sum(CallContext& c) {
  const auto* items = list_target(c);
  if (!items || !c.args.empty()) return no_such_overload();
  c.charge(items->size());
  if (items->empty()) return Value::integer(0);
  Kind kind = items->front().kind();
  Int128 isum = 0;
  double dsum = 0;
  for (const Value& v : *items) {
    if (v.kind() != kind) return no_such_overload();
    switch (kind) {
      case Kind::Int:
        isum += v.as_int();
        if (isum > INT64_MAX || isum < INT64_MIN) return Value::error("integer overflow");
        break;
      case Kind::Uint:
        isum += v.as_uint();
        if (isum > static_cast<Int128>(UINT64_MAX)) {
          return Value::error("unsigned integer overflow");
        }
        break;
      case Kind::Double:
        dsum += v.as_double();
        break;
      case Kind::Duration:
        isum += v.nanos();
        if (isum > INT64_MAX || isum < INT64_MIN) return Value::error("duration overflow");
        break;
      default:
        return no_such_overload();
    }
  }
  if (kind == Kind::Int) return Value::integer(static_cast<std::int64_t>(isum));
  if (kind == Kind::Uint) return Value::uinteger(static_cast<std::uint64_t>(isum));
  if (kind == Kind::Duration) return Value::duration(static_cast<std::int64_t>(isum));
  return Value::dbl(dsum);
}

template <bool Min>
Value extreme(CallContext& c) {
  const auto* items = list_target(c);
  if (!items || !c.args.empty()) return no_such_overload();
  c.charge(items->size());
  if (items->empty()) {
    return Value::error(std::string(Min ? "min" : "max") + " called on empty list");
  }
  const Value* best = &items->front();
  for (const Value& v : *items) {
    Order o = compare(v, *best);
    if (o == Order::NoOverload) return no_such_overload();
    if (Min ? o == Order::Less : o == Order::Greater) best = &v;
  }
  return *best;
}

Value contains_all(const std::vector<Value>& a, const std::vector<Value>& b) {
  for (const Value& x : b) {
    bool found = false;
    for (const Value& y : a) {
      if (equals(x, y)) {
        found = true;
        break;
      }
    }
    if (!found) return Value::boolean(false);
  }
  return Value::boolean(true);
}

bool two_lists(CallContext& c) {
  return !c.target && c.args.size() == 2 && c.args[0].is(Kind::List) && c.args[1].is(Kind::List);
}

Value sets_contains(CallContext& c) {
  if (!two_lists(c)) return no_such_overload();
  c.charge(c.args[0].items().size() * c.args[1].items().size() / 10 + 1);
  return contains_all(c.args[0].items(), c.args[1].items());
}

Value sets_equivalent(CallContext& c) {
  if (!two_lists(c)) return no_such_overload();
  c.charge(c.args[0].items().size() * c.args[1].items().size() / 10 + 1);
  Value ab = contains_all(c.args[0].items(), c.args[1].items());
  if (!ab.as_bool()) return ab;
  return contains_all(c.args[1].items(), c.args[0].items());
}

Value sets_intersects(CallContext& c) {
  if (!two_lists(c)) return no_such_overload();
  c.charge(c.args[0].items().size() * c.args[1].items().size() / 10 + 1);
  for (const Value& x : c.args[0].items()) {
    for (const Value& y : c.args[1].items()) {
      if (equals(x, y)) return Value::boolean(true);
    }
  }
  return Value::boolean(false);
}

Value optional_of(CallContext& c) {
  if (c.target || c.args.size() != 1) return no_such_overload();
  return Value::optional_of(c.args[0]);
}

Value optional_none(CallContext& c) {
  if (c.target || !c.args.empty()) return no_such_overload();
  return Value::optional_none();
}

bool zero_value(const Value& v) {
  switch (v.kind()) {
    case Kind::Null:
      return true;
    case Kind::Bool:
      return !v.as_bool();
    case Kind::Int:
      return v.as_int() == 0;
    case Kind::Uint:
      return v.as_uint() == 0;
    case Kind::Double:
      return v.as_double() == 0;
    case Kind::String:
    case Kind::Bytes:
      return v.text().empty();
    case Kind::List:
      return v.items().empty();
    case Kind::Map:
      return v.map_data().entries.empty();
    case Kind::Duration:
      return v.nanos() == 0;
    case Kind::Timestamp:
      return v.seconds() == 0 && v.subsecond_nanos() == 0;
    default:
      return false;
  }
}

Value optional_of_non_zero(CallContext& c) {
  if (c.target || c.args.size() != 1) return no_such_overload();
  return zero_value(c.args[0]) ? Value::optional_none() : Value::optional_of(c.args[0]);
}

bool optional_target(CallContext& c, std::size_t nargs) {
  return c.target && c.target->is(Kind::Optional) && c.args.size() == nargs;
}

Value has_value(CallContext& c) {
  if (!optional_target(c, 0)) return no_such_overload();
  return Value::boolean(c.target->has_value());
}

Value value(CallContext& c) {
  if (!optional_target(c, 0)) return no_such_overload();
  if (!c.target->has_value()) return Value::error("optional.none() dereference");
  return c.target->optional_value();
}

Value or_value(CallContext& c) {
  if (!optional_target(c, 1)) return no_such_overload();
  return c.target->has_value() ? c.target->optional_value() : c.args[0];
}

}  // namespace

Value list_index_of(CallContext& c, bool last) {
  const auto* items = list_target(c);
  if (!items || c.args.size() != 1) return no_such_overload();
  c.charge(items->size());
  auto n = static_cast<std::int64_t>(items->size());
  for (std::int64_t k = 0; k < n; ++k) {
    std::int64_t at = last ? n - 1 - k : k;
    if (equals((*items)[static_cast<std::size_t>(at)], c.args[0])) return Value::integer(at);
  }
  return Value::integer(-1);
}

void add_lists(FunctionTable& t) {
  t[".isSorted"] = is_sorted;
  t[".sum"] = sum;
  t[".min"] = extreme<true>;
  t[".max"] = extreme<false>;
  t["sets.contains"] = sets_contains;
  t["sets.equivalent"] = sets_equivalent;
  t["sets.intersects"] = sets_intersects;
  t["optional.of"] = optional_of;
  t["optional.none"] = optional_none;
  t["optional.ofNonZeroValue"] = optional_of_non_zero;
  t[".hasValue"] = has_value;
  t[".value"] = value;
  t[".orValue"] = or_value;
}

}  // namespace respool::sandbox::cel
