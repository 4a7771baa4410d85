// CEL's operators: arithmetic with overflow errors, comparisons across numeric types,
// equality, indexing, membership, size.

#include <cmath>

#include "sandbox/cel/library.hpp"
#include "sandbox/cel/text.hpp"
#include "sandbox/cel/time.hpp"

namespace respool::sandbox::cel {
namespace {

constexpr Int128 kIntMin = INT64_MIN;
constexpr Int128 kIntMax = INT64_MAX;

Value uint_or_error(Int128 v) {
  if (v < 0 || v > static_cast<Int128>(UINT64_MAX)) {
    return Value::error("unsigned integer overflow");
  }
  return Value::uinteger(static_cast<std::uint64_t>(v));
}

Value duration_or_error(Int128 nanos) {
  if (nanos < kIntMin || nanos > kIntMax) return Value::error("duration overflow");
  return Value::duration(static_cast<std::int64_t>(nanos));
}

Value timestamp_plus(const Value& ts, Int128 nanos) {
  Int128 total = static_cast<Int128>(ts.seconds()) * 1000000000 + ts.subsecond_nanos() + nanos;
  Int128 secs = total / 1000000000;
  Int128 rem = total % 1000000000;
  if (rem < 0) rem += 1000000000, secs -= 1;
  if (secs < kMinTimestampSeconds || secs > kMaxTimestampSeconds) {
    return Value::error("timestamp overflow");
  }
  return Value::timestamp(static_cast<std::int64_t>(secs), static_cast<std::int32_t>(rem));
}

const Value& a0(CallContext& c) {
  return c.args[0];
}
const Value& a1(CallContext& c) {
  return c.args[1];
}

Value add(CallContext& c) {
  const Value& a = a0(c);
  const Value& b = a1(c);
  if (a.is(Kind::Int) && b.is(Kind::Int)) {
    return int_or_error(static_cast<Int128>(a.as_int()) + b.as_int());
  }
  if (a.is(Kind::Uint) && b.is(Kind::Uint)) {
    return uint_or_error(static_cast<Int128>(a.as_uint()) + b.as_uint());
  }
  if (a.is(Kind::Double) && b.is(Kind::Double)) return Value::dbl(a.as_double() + b.as_double());
  if ((a.is(Kind::String) && b.is(Kind::String)) || (a.is(Kind::Bytes) && b.is(Kind::Bytes))) {
    c.charge((a.text().size() + b.text().size()) / 10);
    std::string s = a.text() + b.text();
    return a.is(Kind::String) ? Value::string(std::move(s)) : Value::bytes(std::move(s));
  }
  if (a.is(Kind::List) && b.is(Kind::List)) {
    c.charge((a.items().size() + b.items().size()) / 10);
    std::vector<Value> items = a.items();
    items.insert(items.end(), b.items().begin(), b.items().end());
    return Value::list(std::move(items));
  }
  if (a.is(Kind::Duration) && b.is(Kind::Duration)) {
    return duration_or_error(static_cast<Int128>(a.nanos()) + b.nanos());
  }
  if (a.is(Kind::Timestamp) && b.is(Kind::Duration)) return timestamp_plus(a, b.nanos());
  if (a.is(Kind::Duration) && b.is(Kind::Timestamp)) return timestamp_plus(b, a.nanos());
  return no_such_overload();
}

Value subtract(CallContext& c) {
  const Value& a = a0(c);
  const Value& b = a1(c);
  if (a.is(Kind::Int) && b.is(Kind::Int)) {
    return int_or_error(static_cast<Int128>(a.as_int()) - b.as_int());
  }
  if (a.is(Kind::Uint) && b.is(Kind::Uint)) {
    return uint_or_error(static_cast<Int128>(a.as_uint()) - b.as_uint());
  }
  if (a.is(Kind::Double) && b.is(Kind::Double)) return Value::dbl(a.as_double() - b.as_double());
  if (a.is(Kind::Duration) && b.is(Kind::Duration)) {
    return duration_or_error(static_cast<Int128>(a.nanos()) - b.nanos());
  }
  if (a.is(Kind::Timestamp) && b.is(Kind::Duration)) {
    return timestamp_plus(a, -static_cast<Int128>(b.nanos()));
  }
  if (a.is(Kind::Timestamp) && b.is(Kind::Timestamp)) {
    Int128 diff = (static_cast<Int128>(a.seconds()) - b.seconds()) * 1000000000 +
                  (a.subsecond_nanos() - b.subsecond_nanos());
    return duration_or_error(diff);
  }
  return no_such_overload();
}

Value multiply(CallContext& c) {
  const Value& a = a0(c);
  const Value& b = a1(c);
  if (a.is(Kind::Int) && b.is(Kind::Int)) {
    return int_or_error(static_cast<Int128>(a.as_int()) * b.as_int());
  }
  if (a.is(Kind::Uint) && b.is(Kind::Uint)) {
    UInt128 p = static_cast<UInt128>(a.as_uint()) * b.as_uint();
    if (p > UINT64_MAX) return Value::error("unsigned integer overflow");
    return Value::uinteger(static_cast<std::uint64_t>(p));
  }
  if (a.is(Kind::Double) && b.is(Kind::Double)) return Value::dbl(a.as_double() * b.as_double());
  return no_such_overload();
}

Value divide(CallContext& c) {
  const Value& a = a0(c);
  const Value& b = a1(c);
  if (a.is(Kind::Int) && b.is(Kind::Int)) {
    if (b.as_int() == 0) return Value::error("division by zero");
    return int_or_error(static_cast<Int128>(a.as_int()) / b.as_int());
  }
  if (a.is(Kind::Uint) && b.is(Kind::Uint)) {
    if (b.as_uint() == 0) return Value::error("division by zero");
    return Value::uinteger(a.as_uint() / b.as_uint());
  }
  if (a.is(Kind::Double) && b.is(Kind::Double)) return Value::dbl(a.as_double() / b.as_double());
  return no_such_overload();
}

Value modulo(CallContext& c) {
  const Value& a = a0(c);
  const Value& b = a1(c);
  if (a.is(Kind::Int) && b.is(Kind::Int)) {
    if (b.as_int() == 0) return Value::error("modulus by zero");
    if (a.as_int() == INT64_MIN && b.as_int() == -1) return Value::error("integer overflow");
    return Value::integer(a.as_int() % b.as_int());
  }
  if (a.is(Kind::Uint) && b.is(Kind::Uint)) {
    if (b.as_uint() == 0) return Value::error("modulus by zero");
    return Value::uinteger(a.as_uint() % b.as_uint());
  }
  return no_such_overload();
}

Value negate(CallContext& c) {
  const Value& a = a0(c);
  if (a.is(Kind::Int)) return int_or_error(-static_cast<Int128>(a.as_int()));
  if (a.is(Kind::Double)) return Value::dbl(-a.as_double());
  return no_such_overload();
}

Value logical_not(CallContext& c) {
  if (!a0(c).is(Kind::Bool)) return no_such_overload();
  return Value::boolean(!a0(c).as_bool());
}

std::uint64_t traversal(const Value& v) {
  if (v.is(Kind::String) || v.is(Kind::Bytes)) return v.text().size() / 10;
  if (v.is(Kind::List)) return v.items().size() / 10;
  if (v.is(Kind::Map)) return v.map_data().entries.size() / 10;
  return 0;
}

Value eq(CallContext& c) {
  c.charge(std::min(traversal(a0(c)), traversal(a1(c))));
  return Value::boolean(equals(a0(c), a1(c)));
}
Value ne(CallContext& c) {
  c.charge(std::min(traversal(a0(c)), traversal(a1(c))));
  return Value::boolean(!equals(a0(c), a1(c)));
}

template <bool (*Test)(Order)>
Value relational(CallContext& c) {
  c.charge(std::min(traversal(a0(c)), traversal(a1(c))));
  Order o = compare(a0(c), a1(c));
  if (o == Order::NoOverload) return no_such_overload();
  if (o == Order::Unordered) return Value::boolean(false);
  return Value::boolean(Test(o));
}
bool less(Order o) {
  return o == Order::Less;
}
bool less_equal(Order o) {
  return o != Order::Greater;
}
bool greater(Order o) {
  return o == Order::Greater;
}
bool greater_equal(Order o) {
  return o != Order::Less;
}

Value index_value(CallContext& c, const Value& container, const Value& key, bool optional) {
  if (container.is(Kind::Optional)) {
    if (!container.has_value()) return container;
    Value inner = index_value(c, container.optional_value(), key, true);
    return inner;
  }
  if (container.is(Kind::List)) {
    std::int64_t i;
    if (!key.is(Kind::Int) && !key.is(Kind::Uint) && !key.is(Kind::Double))
      return no_such_overload();
    if (!int_index(key, i)) return Value::error("unsupported index value");
    const auto& items = container.items();
    if (i < 0 || static_cast<std::size_t>(i) >= items.size()) {
      if (optional) return Value::optional_none();
      return Value::error("index out of range: " + std::to_string(i));
    }
    const Value& v = items[static_cast<std::size_t>(i)];
    return optional ? Value::optional_of(v) : v;
  }
  if (container.is(Kind::Map)) {
    const Value* v = container.map_data().find(key);
    if (!v) {
      if (optional) return Value::optional_none();
      if (!key.is(Kind::String) && !key.is(Kind::Int) && !key.is(Kind::Uint) &&
          !key.is(Kind::Bool) && !key.is(Kind::Double)) {
        return no_such_key(key);
      }
      return no_such_key(key);
    }
    return optional ? Value::optional_of(*v) : *v;
  }
  return no_such_overload();
}

Value index(CallContext& c) {
  return index_value(c, a0(c), a1(c), false);
}
Value optional_index(CallContext& c) {
  return index_value(c, a0(c), a1(c), true);
}

Value in(CallContext& c) {
  const Value& x = a0(c);
  const Value& container = a1(c);
  if (container.is(Kind::List)) {
    c.charge(container.items().size());
    for (const Value& v : container.items()) {
      if (equals(x, v)) return Value::boolean(true);
    }
    return Value::boolean(false);
  }
  if (container.is(Kind::Map)) return Value::boolean(container.map_data().find(x) != nullptr);
  return no_such_overload();
}

Value size_of(const Value& v) {
  if (v.is(Kind::String)) return Value::integer(static_cast<std::int64_t>(utf8_length(v.text())));
  if (v.is(Kind::Bytes)) return Value::integer(static_cast<std::int64_t>(v.text().size()));
  if (v.is(Kind::List)) return Value::integer(static_cast<std::int64_t>(v.items().size()));
  if (v.is(Kind::Map)) {
    return Value::integer(static_cast<std::int64_t>(v.map_data().entries.size()));
  }
  return no_such_overload();
}

Value size(CallContext& c) {
  if (c.target) return c.args.empty() ? size_of(*c.target) : no_such_overload();
  return c.args.size() == 1 ? size_of(a0(c)) : no_such_overload();
}

}  // namespace

Value int_or_error(Int128 v) {
  if (v < kIntMin || v > kIntMax) return Value::error("integer overflow");
  return Value::integer(static_cast<std::int64_t>(v));
}

bool int_index(const Value& v, std::int64_t& out) {
  if (v.is(Kind::Int)) {
    out = v.as_int();
    return true;
  }
  if (v.is(Kind::Uint)) {
    if (v.as_uint() > static_cast<std::uint64_t>(INT64_MAX)) return false;
    out = static_cast<std::int64_t>(v.as_uint());
    return true;
  }
  if (v.is(Kind::Double)) {
    double d = v.as_double();
    if (d != std::trunc(d) || d < -9.2e18 || d > 9.2e18) return false;
    out = static_cast<std::int64_t>(d);
    return true;
  }
  return false;
}

void add_operators(FunctionTable& t) {
  t["_+_"] = add;
  t["_-_"] = subtract;
  t["_*_"] = multiply;
  t["_/_"] = divide;
  t["_%_"] = modulo;
  t["-_"] = negate;
  t["!_"] = logical_not;
  t["_==_"] = eq;
  t["_!=_"] = ne;
  t["_<_"] = relational<less>;
  t["_<=_"] = relational<less_equal>;
  t["_>_"] = relational<greater>;
  t["_>=_"] = relational<greater_equal>;
  t["_[_]"] = index;
  t["_[?_]"] = optional_index;
  t["@in"] = in;
  t["size"] = size;
  t[".size"] = size;
}

}  // namespace respool::sandbox::cel
