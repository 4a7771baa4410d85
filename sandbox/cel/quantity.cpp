// Kubernetes' quantity library: resource.Quantity values ("500m", "1.5Gi", "2e3") held exactly
// in nano-units, as the real library's inf.Dec arithmetic gives for these magnitudes.

#include "apimachinery/quantity.hpp"
#include "sandbox/cel/library.hpp"

namespace respool::sandbox::cel {
namespace {

constexpr Int128 kNano = 1000000000;
constexpr Int128 kLimit = static_cast<Int128>(1) << 120;

// resource.ParseQuantity into nano-units (sub-nano amounts round up, as the real parser); the
// grammar and suffixes are apimachinery's, the precision CEL's own.
bool parse_quantity(const std::string& s, Int128& out) {
  auto parts = apimachinery::parse_quantity_parts(s);
  if (!parts) return false;
  Int128 mantissa = 0;
  for (char digit : parts->digits) {
    if (mantissa > kLimit) return false;
    mantissa = mantissa * 10 + (digit - '0');
  }
  const int exp2 = parts->exp2;
  Int128 value = mantissa << exp2;
  if (exp2 && value >> exp2 != mantissa) return false;
  std::int64_t shift = 9 + parts->exp10;  // value * 10^shift nano-units
  for (; shift > 0; --shift) {
    if (value > kLimit) return false;
    value *= 10;
  }
  for (; shift < 0 && value != 0; ++shift)
    value = value / 10 + (value % 10 != 0);
  out = parts->negative ? -value : value;
  return true;
}

Value make_quantity(Int128 nano, std::string text) {
  auto data = std::make_shared<OpaqueData>();
  data->type = OpaqueData::Type::Quantity;
  data->nano = nano;
  data->text = std::move(text);
  return Value::opaque(std::move(data));
}

const OpaqueData* quantity_of(const Value* v) {
  if (!v || !v->is(Kind::Opaque) || v->opaque_data().type != OpaqueData::Type::Quantity) {
    return nullptr;
  }
  return &v->opaque_data();
}

Value quantity(CallContext& c) {
  if (c.target || c.args.size() != 1 || !c.args[0].is(Kind::String)) return no_such_overload();
  Int128 nano;
  if (!parse_quantity(c.args[0].text(), nano)) {
    return Value::error(std::string(apimachinery::quantity_format_error()));
  }
  return make_quantity(nano, c.args[0].text());
}

Value is_quantity(CallContext& c) {
  if (c.target || c.args.size() != 1 || !c.args[0].is(Kind::String)) return no_such_overload();
  Int128 nano;
  return Value::boolean(parse_quantity(c.args[0].text(), nano));
}

Value sign(CallContext& c) {
  const OpaqueData* q = quantity_of(c.target);
  if (!q || !c.args.empty()) return no_such_overload();
  return Value::integer(q->nano > 0 ? 1 : q->nano < 0 ? -1 : 0);
}

Value is_integer(CallContext& c) {
  const OpaqueData* q = quantity_of(c.target);
  if (!q || !c.args.empty()) return no_such_overload();
  Int128 whole = q->nano / kNano;
  return Value::boolean(q->nano % kNano == 0 && whole >= INT64_MIN && whole <= INT64_MAX);
}

Value as_integer(CallContext& c) {
  const OpaqueData* q = quantity_of(c.target);
  if (!q || !c.args.empty()) return no_such_overload();
  Int128 whole = q->nano / kNano;
  if (q->nano % kNano != 0 || whole < INT64_MIN || whole > INT64_MAX) {
    return Value::error("cannot convert value to integer");
  }
  return Value::integer(static_cast<std::int64_t>(whole));
}

Value as_approximate_float(CallContext& c) {
  const OpaqueData* q = quantity_of(c.target);
  if (!q || !c.args.empty()) return no_such_overload();
  return Value::dbl(static_cast<double>(q->nano) / 1e9);
}

// The other operand of compareTo/add/sub: a quantity, or (for add and sub) an int.
bool operand(CallContext& c, bool allow_int, Int128& out) {
  if (c.args.size() != 1) return false;
  if (const OpaqueData* q = quantity_of(&c.args[0])) {
    out = q->nano;
    return true;
  }
  if (allow_int && c.args[0].is(Kind::Int)) {
    out = static_cast<Int128>(c.args[0].as_int()) * kNano;
    return true;
  }
  return false;
}

template <int Want>
Value compare_quantity(CallContext& c) {
  const OpaqueData* q = quantity_of(c.target);
  Int128 other;
  if (!q || !operand(c, false, other)) return no_such_overload();
  int order = q->nano < other ? -1 : q->nano > other ? 1 : 0;
  if (Want == 2) return Value::integer(order);
  return Value::boolean(order == Want);
}

template <int Sign>
Value add_quantity(CallContext& c) {
  const OpaqueData* q = quantity_of(c.target);
  Int128 other;
  if (!q || !operand(c, true, other)) return no_such_overload();
  Int128 sum = q->nano + Sign * other;
  if (sum > kLimit || sum < -kLimit) return Value::error("quantity overflow");
  return make_quantity(sum, q->text);
}

}  // namespace

void add_quantity(FunctionTable& t) {
  t["quantity"] = quantity;
  t["isQuantity"] = is_quantity;
  t[".sign"] = sign;
  t[".isInteger"] = is_integer;
  t[".asInteger"] = as_integer;
  t[".asApproximateFloat"] = as_approximate_float;
  t[".compareTo"] = compare_quantity<2>;
  t[".isGreaterThan"] = compare_quantity<1>;
  t[".isLessThan"] = compare_quantity<-1>;
  t[".add"] = add_quantity<1>;
  t[".sub"] = add_quantity<-1>;
}

}  // namespace respool::sandbox::cel
