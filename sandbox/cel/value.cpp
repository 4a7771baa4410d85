#include "sandbox/cel/value.hpp"

#include <algorithm>
#include <cmath>

#include "sandbox/cel/text.hpp"
#include "sandbox/cel/time.hpp"

namespace respool::sandbox::cel {
namespace {

const std::string kEmpty;

template <class T>
std::shared_ptr<const void> share(T value) {
  return std::make_shared<const T>(std::move(value));
}

// cel-go's compareIntDouble and compareUintDouble: out-of-range doubles order outside, the rest
// compare as doubles (lossy near 2^63, as cel-go is: 9223372036854775807 >= 2^63 holds).
Order compare_doubles(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return Order::Unordered;
  if (a < b) return Order::Less;
  if (a > b) return Order::Greater;
  return Order::Equal;
}

Order compare_int_double(std::int64_t i, double d) {
  if (std::isnan(d)) return Order::Unordered;
  if (d < -9223372036854775808.0) return Order::Greater;
  if (d > 9223372036854775808.0) return Order::Less;
  return compare_doubles(static_cast<double>(i), d);
}

Order compare_uint_double(std::uint64_t u, double d) {
  if (std::isnan(d)) return Order::Unordered;
  if (d < 0) return Order::Greater;
  if (d > 18446744073709551616.0) return Order::Less;
  return compare_doubles(static_cast<double>(u), d);
}

Order flip(Order o) {
  if (o == Order::Less) return Order::Greater;
  if (o == Order::Greater) return Order::Less;
  return o;
}

template <class T>
Order cmp(const T& a, const T& b) {
  if (a < b) return Order::Less;
  if (b < a) return Order::Greater;
  return Order::Equal;
}

bool is_number(const Value& v) {
  return v.is(Kind::Int) || v.is(Kind::Uint) || v.is(Kind::Double);
}

Order compare_numbers(const Value& a, const Value& b) {
  switch (a.kind()) {
    case Kind::Int:
      if (b.is(Kind::Int)) return cmp(a.as_int(), b.as_int());
      if (b.is(Kind::Uint)) {
        if (a.as_int() < 0) return Order::Less;
        return cmp(static_cast<std::uint64_t>(a.as_int()), b.as_uint());
      }
      return compare_int_double(a.as_int(), b.as_double());
    case Kind::Uint:
      if (b.is(Kind::Uint)) return cmp(a.as_uint(), b.as_uint());
      if (b.is(Kind::Int)) return flip(compare_numbers(b, a));
      return compare_uint_double(a.as_uint(), b.as_double());
    default:
      if (b.is(Kind::Double)) {
        if (std::isnan(a.as_double()) || std::isnan(b.as_double())) return Order::Unordered;
        return cmp(a.as_double(), b.as_double());
      }
      return flip(compare_numbers(b, a));
  }
}

bool list_equals(const ListData& a, const ListData& b) {
  if (a.items.size() != b.items.size()) return false;
  if (a.list_type == ListType::Atomic || b.list_type == ListType::Atomic ||
      a.list_type != b.list_type) {
    for (std::size_t i = 0; i < a.items.size(); ++i) {
      if (!equals(a.items[i], b.items[i])) return false;
    }
    return true;
  }
  // Sets and map-lists compare regardless of order (Kubernetes' setList and mapList).
  for (const Value& x : a.items) {
    bool found = false;
    for (const Value& y : b.items) {
      if (equals(x, y)) {
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

bool map_equals(const MapData& a, const MapData& b) {
  if (a.entries.size() != b.entries.size()) return false;
  for (const auto& [k, v] : a.entries) {
    const Value* other = b.find(k);
    if (!other || !equals(v, *other)) return false;
  }
  return true;
}

}  // namespace

Value Value::boolean(bool b) {
  return Value(Kind::Bool, {.b = b});
}
Value Value::integer(std::int64_t i) {
  return Value(Kind::Int, {.i = i});
}
Value Value::uinteger(std::uint64_t u) {
  return Value(Kind::Uint, {.u = u});
}
Value Value::dbl(double d) {
  return Value(Kind::Double, {.d = d});
}
Value Value::string(std::string s) {
  return Value(Kind::String, {}, share(std::move(s)));
}
Value Value::bytes(std::string s) {
  return Value(Kind::Bytes, {}, share(std::move(s)));
}
Value Value::list(std::vector<Value> items) {
  ListData data;
  data.items = std::move(items);
  return list(std::make_shared<const ListData>(std::move(data)));
}
Value Value::list(std::shared_ptr<const ListData> data) {
  return Value(Kind::List, {}, std::move(data));
}
Value Value::map(std::shared_ptr<const MapData> data) {
  return Value(Kind::Map, {}, std::move(data));
}
Value Value::type(std::string name) {
  return Value(Kind::Type, {}, share(std::move(name)));
}
Value Value::duration(std::int64_t nanos) {
  return Value(Kind::Duration, {.i = nanos});
}
Value Value::timestamp(std::int64_t seconds, std::int32_t nanos) {
  Value v(Kind::Timestamp, {.i = seconds});
  v.ns_ = nanos;
  return v;
}
Value Value::optional_none() {
  return Value(Kind::Optional, {});
}
Value Value::optional_of(Value inner) {
  return Value(Kind::Optional, {}, share(std::move(inner)));
}
Value Value::opaque(std::shared_ptr<const OpaqueData> data) {
  return Value(Kind::Opaque, {}, std::move(data));
}
Value Value::error(std::string message) {
  return Value(Kind::Error, {}, share(std::move(message)));
}

const std::string& Value::text() const {
  return p_ ? *static_cast<const std::string*>(p_.get()) : kEmpty;
}
const ListData& Value::list_data() const {
  return *static_cast<const ListData*>(p_.get());
}
const std::vector<Value>& Value::items() const {
  return list_data().items;
}
const MapData& Value::map_data() const {
  return *static_cast<const MapData*>(p_.get());
}
const OpaqueData& Value::opaque_data() const {
  return *static_cast<const OpaqueData*>(p_.get());
}
const Value& Value::optional_value() const {
  return *static_cast<const Value*>(p_.get());
}

const Value* MapData::find(const std::string& key) const {
  auto it = by_string.find(key);
  return it == by_string.end() ? nullptr : &entries[it->second].second;
}

const Value* MapData::find(const Value& key) const {
  if (key.is(Kind::String)) return find(key.text());
  if (!is_number(key) && !key.is(Kind::Bool)) return nullptr;
  for (const auto& [k, v] : entries) {
    if (k.is(Kind::String)) continue;
    if (equals(k, key)) return &v;
  }
  return nullptr;
}

bool MapData::insert(Value key, Value value) {
  if (key.is(Kind::String)) {
    if (by_string.count(key.text())) return false;
    by_string.emplace(key.text(), entries.size());
  } else if (key.is(Kind::Int) || key.is(Kind::Uint) || key.is(Kind::Bool)) {
    if (find(key)) return false;
  } else {
    return false;
  }
  entries.emplace_back(std::move(key), std::move(value));
  return true;
}

std::string type_name(const Value& v) {
  switch (v.kind()) {
    case Kind::Null:
      return "null_type";
    case Kind::Bool:
      return "bool";
    case Kind::Int:
      return "int";
    case Kind::Uint:
      return "uint";
    case Kind::Double:
      return "double";
    case Kind::String:
      return "string";
    case Kind::Bytes:
      return "bytes";
    case Kind::List:
      return "list";
    case Kind::Map:
      return v.map_data().type_name.empty() ? "map" : v.map_data().type_name;
    case Kind::Type:
      return "type";
    case Kind::Duration:
      return "google.protobuf.Duration";
    case Kind::Timestamp:
      return "google.protobuf.Timestamp";
    case Kind::Optional:
      return "optional_type";
    case Kind::Opaque:
      switch (v.opaque_data().type) {
        case OpaqueData::Type::Quantity:
          return "kubernetes.Quantity";
        case OpaqueData::Type::Url:
          return "kubernetes.URL";
        case OpaqueData::Type::Ip:
          return "net.IP";
        case OpaqueData::Type::Cidr:
          return "net.CIDR";
        case OpaqueData::Type::Format:
          return "kubernetes.NamedFormat";
      }
      return "opaque";
    case Kind::Error:
      return "error";
  }
  return "";
}

bool equals(const Value& a, const Value& b) {
  if (is_number(a) && is_number(b)) return compare_numbers(a, b) == Order::Equal;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Kind::Null:
      return true;
    case Kind::Bool:
      return a.as_bool() == b.as_bool();
    case Kind::String:
    case Kind::Bytes:
    case Kind::Type:
    case Kind::Error:
      return a.text() == b.text();
    case Kind::List:
      return list_equals(a.list_data(), b.list_data());
    case Kind::Map:
      return map_equals(a.map_data(), b.map_data());
    case Kind::Duration:
      return a.nanos() == b.nanos();
    case Kind::Timestamp:
      return a.seconds() == b.seconds() && a.subsecond_nanos() == b.subsecond_nanos();
    case Kind::Optional:
      if (a.has_value() != b.has_value()) return false;
      return !a.has_value() || equals(a.optional_value(), b.optional_value());
    case Kind::Opaque: {
      const OpaqueData& x = a.opaque_data();
      const OpaqueData& y = b.opaque_data();
      if (x.type != y.type) return false;
      if (x.type == OpaqueData::Type::Quantity) return x.nano == y.nano;
      if (x.type == OpaqueData::Type::Url || x.type == OpaqueData::Type::Format) {
        return x.text == y.text;
      }
      return x.addr == y.addr && x.prefix == y.prefix;
    }
    default:
      return false;
  }
}

Order compare(const Value& a, const Value& b) {
  if (is_number(a) && is_number(b)) return compare_numbers(a, b);
  if (a.kind() != b.kind()) return Order::NoOverload;
  switch (a.kind()) {
    case Kind::Bool:
      return cmp(a.as_bool(), b.as_bool());
    case Kind::String:
    case Kind::Bytes:
      return cmp(a.text(), b.text());
    case Kind::Duration:
      return cmp(a.nanos(), b.nanos());
    case Kind::Timestamp:
      if (a.seconds() != b.seconds()) return cmp(a.seconds(), b.seconds());
      return cmp(a.subsecond_nanos(), b.subsecond_nanos());
    default:
      return Order::NoOverload;
  }
}

std::string debug_string(const Value& v) {
  switch (v.kind()) {
    case Kind::Null:
      return "null";
    case Kind::Bool:
      return v.as_bool() ? "true" : "false";
    case Kind::Int:
      return std::to_string(v.as_int());
    case Kind::Uint:
      return std::to_string(v.as_uint());
    case Kind::Double:
      return format_double(v.as_double());
    case Kind::String:
    case Kind::Bytes:
    case Kind::Type:
    case Kind::Error:
      return v.text();
    case Kind::List: {
      std::string out = "[";
      for (std::size_t i = 0; i < v.items().size(); ++i) {
        if (i) out += ", ";
        out += debug_string(v.items()[i]);
      }
      return out + "]";
    }
    case Kind::Map: {
      std::vector<std::pair<std::string, std::string>> parts;
      for (const auto& [k, x] : v.map_data().entries)
        parts.emplace_back(debug_string(k), debug_string(x));
      std::sort(parts.begin(), parts.end());
      std::string out = "{";
      for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i) out += ", ";
        out += parts[i].first + ": " + parts[i].second;
      }
      return out + "}";
    }
    case Kind::Duration:
      return format_duration(v.nanos());
    case Kind::Timestamp:
      return format_timestamp(v.seconds(), v.subsecond_nanos());
    case Kind::Optional:
      return v.has_value() ? "optional(" + debug_string(v.optional_value()) + ")"
                           : "optional.none()";
    case Kind::Opaque:
      return v.opaque_data().text;
  }
  return "";
}

Value no_such_overload() {
  return Value::error("no such overload");
}

Value no_such_key(const Value& key) {
  return Value::error("no such key: " + debug_string(key));
}

}  // namespace respool::sandbox::cel
