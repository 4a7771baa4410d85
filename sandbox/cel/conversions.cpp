// Type conversions (int, uint, double, string, bytes, bool, duration, timestamp, dyn, type)
// and the timestamp and duration accessors, with cel-go's range checks.

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "sandbox/cel/library.hpp"
#include "sandbox/cel/text.hpp"
#include "sandbox/cel/time.hpp"

namespace respool::sandbox::cel {
namespace {

Value conversion_error(const std::string& from, const std::string& to) {
  return Value::error("type conversion error from '" + from + "' to '" + to + "'");
}

bool one_arg(CallContext& c) {
  return !c.target && c.args.size() == 1;
}

Value to_int(CallContext& c) {
  if (!one_arg(c)) return no_such_overload();
  const Value& v = c.args[0];
  switch (v.kind()) {
    case Kind::Int:
      return v;
    case Kind::Uint:
      if (v.as_uint() > static_cast<std::uint64_t>(INT64_MAX)) {
        return Value::error("integer overflow");
      }
      return Value::integer(static_cast<std::int64_t>(v.as_uint()));
    case Kind::Double: {
      double d = v.as_double();
      if (std::isnan(d) || d <= -9223372036854775808.0 || d >= 9223372036854775807.0) {
        return Value::error("integer overflow");
      }
      return Value::integer(static_cast<std::int64_t>(d));
    }
    case Kind::String: {
      const std::string& s = v.text();
      std::int64_t out = 0;
      const char* begin = s.data();
      if (!s.empty() && s[0] == '+') ++begin;
      auto r = std::from_chars(begin, s.data() + s.size(), out);
      if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) {
        return Value::error("cannot convert string '" + s + "' to int");
      }
      return Value::integer(out);
    }
    case Kind::Timestamp:
      return Value::integer(v.seconds());
    default:
      return no_such_overload();
  }
}

Value to_uint(CallContext& c) {
  if (!one_arg(c)) return no_such_overload();
  const Value& v = c.args[0];
  switch (v.kind()) {
    case Kind::Uint:
      return v;
    case Kind::Int:
      if (v.as_int() < 0) return Value::error("unsigned integer overflow");
      return Value::uinteger(static_cast<std::uint64_t>(v.as_int()));
    case Kind::Double: {
      double d = v.as_double();
      if (std::isnan(d) || d < 0 || d >= 18446744073709551616.0) {
        return Value::error("unsigned integer overflow");
      }
      return Value::uinteger(static_cast<std::uint64_t>(d));
    }
    case Kind::String: {
      const std::string& s = v.text();
      std::uint64_t out = 0;
      auto r = std::from_chars(s.data(), s.data() + s.size(), out);
      if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) {
        return Value::error("cannot convert string '" + s + "' to uint");
      }
      return Value::uinteger(out);
    }
    default:
      return no_such_overload();
  }
}

// strconv.ParseFloat: decimal and hexadecimal forms, "inf", "infinity" and "nan" in any case.
bool parse_go_float(const std::string& s, double& out) {
  std::string lower;
  for (char ch : s)
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  std::string_view body = lower;
  bool neg = false;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
    neg = body[0] == '-';
    body.remove_prefix(1);
  }
  if (body == "inf" || body == "infinity") {
    out = neg ? -HUGE_VAL : HUGE_VAL;
    return true;
  }
  if (body == "nan") {
    out = std::nan("");
    return !(s[0] == '+' || s[0] == '-');
  }
  if (body.empty()) return false;
  for (char ch : body) {
    bool ok = (ch >= '0' && ch <= '9') || ch == '.' || ch == 'e' || ch == '+' || ch == '-' ||
              ch == 'x' || (ch >= 'a' && ch <= 'f') || ch == 'p' || ch == '_';
    if (!ok) return false;
  }
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

Value to_double(CallContext& c) {
  if (!one_arg(c)) return no_such_overload();
  const Value& v = c.args[0];
  switch (v.kind()) {
    case Kind::Double:
      return v;
    case Kind::Int:
      return Value::dbl(static_cast<double>(v.as_int()));
    case Kind::Uint:
      return Value::dbl(static_cast<double>(v.as_uint()));
    case Kind::String: {
      double d;
      if (!parse_go_float(v.text(), d)) {
        return Value::error("cannot convert string '" + v.text() + "' to double");
      }
      return Value::dbl(d);
    }
    default:
      return no_such_overload();
  }
}

Value to_string(CallContext& c) {
  if (!one_arg(c)) return no_such_overload();
  const Value& v = c.args[0];
  switch (v.kind()) {
    case Kind::String:
      return v;
    case Kind::Int:
    case Kind::Uint:
    case Kind::Bool:
    case Kind::Duration:
    case Kind::Timestamp:
      return Value::string(debug_string(v));
    case Kind::Double:
      return Value::string(go_float(v.as_double()));
    case Kind::Bytes:
      if (!utf8_valid(v.text())) return Value::error("invalid UTF-8 in bytes, cannot convert");
      return Value::string(v.text());
    case Kind::Opaque:
      if (v.opaque_data().type == OpaqueData::Type::Ip ||
          v.opaque_data().type == OpaqueData::Type::Cidr) {
        return Value::string(v.opaque_data().text);
      }
      return no_such_overload();
    default:
      return no_such_overload();
  }
}

Value to_bytes(CallContext& c) {
  if (!one_arg(c)) return no_such_overload();
  const Value& v = c.args[0];
  if (v.is(Kind::Bytes)) return v;
  if (v.is(Kind::String)) return Value::bytes(v.text());
  return no_such_overload();
}

Value to_bool(CallContext& c) {
  if (!one_arg(c)) return no_such_overload();
  const Value& v = c.args[0];
  if (v.is(Kind::Bool)) return v;
  if (!v.is(Kind::String)) return no_such_overload();
  const std::string& s = v.text();
  if (s == "1" || s == "t" || s == "true" || s == "TRUE" || s == "True") {
    return Value::boolean(true);
  }
  if (s == "0" || s == "f" || s == "false" || s == "FALSE" || s == "False") {
    return Value::boolean(false);
  }
  return conversion_error("string", "bool");
}

Value to_duration(CallContext& c) {
  if (!one_arg(c)) return no_such_overload();
  const Value& v = c.args[0];
  if (v.is(Kind::Duration)) return v;
  if (!v.is(Kind::String)) return no_such_overload();
  auto nanos = parse_duration(v.text());
  if (!nanos) return Value::error("invalid duration: \"" + v.text() + "\"");
  return Value::duration(*nanos);
}

Value to_timestamp(CallContext& c) {
  if (!one_arg(c)) return no_such_overload();
  const Value& v = c.args[0];
  if (v.is(Kind::Timestamp)) return v;
  if (v.is(Kind::Int)) {
    if (!timestamp_in_range(v.as_int())) return Value::error("timestamp overflow");
    return Value::timestamp(v.as_int(), 0);
  }
  if (!v.is(Kind::String)) return no_such_overload();
  auto ts = parse_timestamp(v.text());
  if (!ts) {
    return Value::error("parsing time \"" + v.text() + "\" as \"2006-01-02T15:04:05Z07:00\"");
  }
  if (!timestamp_in_range(ts->seconds)) return Value::error("timestamp overflow");
  return Value::timestamp(ts->seconds, ts->nanos);
}

Value dyn(CallContext& c) {
  if (!one_arg(c)) return no_such_overload();
  return c.args[0];
}

Value type_of(CallContext& c) {
  if (!one_arg(c)) return no_such_overload();
  return Value::type(type_name(c.args[0]));
}

// The civil time of a timestamp in the zone of the optional argument.
bool local_time(CallContext& c, Civil& out, Value& error) {
  if (!c.target || !c.target->is(Kind::Timestamp) || c.args.size() > 1) {
    error = no_such_overload();
    return false;
  }
  std::int64_t secs = c.target->seconds();
  if (c.args.size() == 1) {
    if (!c.args[0].is(Kind::String)) {
      error = no_such_overload();
      return false;
    }
    auto offset = zone_offset(c.args[0].text(), secs, c.options.zoneinfo);
    if (!offset) {
      error = Value::error("unknown time zone " + c.args[0].text());
      return false;
    }
    secs += *offset;
  }
  out = civil_time(secs);
  return true;
}

template <std::int64_t (*Field)(const Civil&)>
Value timestamp_field(CallContext& c) {
  Civil civ;
  Value error;
  if (!local_time(c, civ, error)) return error;
  return Value::integer(Field(civ));
}

std::int64_t full_year(const Civil& c) {
  return c.year;
}
std::int64_t month(const Civil& c) {
  return c.month - 1;
}
std::int64_t date(const Civil& c) {
  return c.day;
}
std::int64_t day_of_month(const Civil& c) {
  return c.day - 1;
}
std::int64_t day_of_week(const Civil& c) {
  return c.day_of_week;
}
std::int64_t day_of_year(const Civil& c) {
  return c.day_of_year;
}
std::int64_t hours(const Civil& c) {
  return c.hour;
}
std::int64_t minutes(const Civil& c) {
  return c.minute;
}
std::int64_t seconds(const Civil& c) {
  return c.second;
}

template <std::int64_t Unit>
Value duration_part(CallContext& c) {
  if (!c.target || !c.target->is(Kind::Duration) || !c.args.empty()) return no_such_overload();
  return Value::integer(c.target->nanos() / Unit);
}

template <std::int64_t Unit, Value (*TimestampForm)(CallContext&)>
Value duration_or_timestamp(CallContext& c) {
  if (c.target && c.target->is(Kind::Duration)) return duration_part<Unit>(c);
  return TimestampForm(c);
}

Value milliseconds(CallContext& c) {
  if (c.target && c.target->is(Kind::Duration)) return duration_part<1000000>(c);
  Civil civ;
  Value error;
  if (!local_time(c, civ, error)) return error;
  return Value::integer(c.target->subsecond_nanos() / 1000000);
}

}  // namespace

void add_conversions(FunctionTable& t) {
  t["int"] = to_int;
  t["uint"] = to_uint;
  t["double"] = to_double;
  t["string"] = to_string;
  t["bytes"] = to_bytes;
  t["bool"] = to_bool;
  t["duration"] = to_duration;
  t["timestamp"] = to_timestamp;
  t["dyn"] = dyn;
  t["type"] = type_of;
}

void add_time_functions(FunctionTable& t) {
  t[".getFullYear"] = timestamp_field<full_year>;
  t[".getMonth"] = timestamp_field<month>;
  t[".getDate"] = timestamp_field<date>;
  t[".getDayOfMonth"] = timestamp_field<day_of_month>;
  t[".getDayOfWeek"] = timestamp_field<day_of_week>;
  t[".getDayOfYear"] = timestamp_field<day_of_year>;
  t[".getHours"] = duration_or_timestamp<3600000000000, timestamp_field<hours>>;
  t[".getMinutes"] = duration_or_timestamp<60000000000, timestamp_field<minutes>>;
  t[".getSeconds"] = duration_or_timestamp<1000000000, timestamp_field<seconds>>;
  t[".getMilliseconds"] = milliseconds;
}

}  // namespace respool::sandbox::cel
