// "...".format([args]) of cel-go's strings extension: %s %d %f %e %b %o %x %X and %%.

#include <cmath>
#include <cstdio>

#include "sandbox/cel/library.hpp"
#include "sandbox/cel/text.hpp"

namespace respool::sandbox::cel {
namespace {

Value format_error(const std::string& what, const Value& v) {
  return Value::error("error during formatting: " + what + ", was given " + type_name(v));
}

std::string non_finite(double d) {
  if (std::isnan(d)) return "NaN";
  return d > 0 ? "Infinity" : "-Infinity";
}

std::string in_base(UInt128 u, int base, bool upper) {
  if (u == 0) return "0";
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string out;
  while (u) {
    out.insert(out.begin(), digits[static_cast<int>(u % static_cast<unsigned>(base))]);
    u /= static_cast<unsigned>(base);
  }
  return out;
}

// Formats one integer in a base, with Go's sign handling.
bool integer_in_base(const Value& v, int base, bool upper, std::string& out) {
  if (v.is(Kind::Int)) {
    std::int64_t i = v.as_int();
    UInt128 mag = i < 0 ? static_cast<UInt128>(-static_cast<Int128>(i)) : static_cast<UInt128>(i);
    out = (i < 0 ? "-" : "") + in_base(mag, base, upper);
    return true;
  }
  if (v.is(Kind::Uint)) {
    out = in_base(v.as_uint(), base, upper);
    return true;
  }
  return false;
}

Value clause(char verb, int precision, const Value& v, std::string& out) {
  switch (verb) {
    case 's':
      out += debug_string(v);
      return Value::boolean(true);
    case 'd':
      if (v.is(Kind::Double) && !std::isfinite(v.as_double())) {
        out += non_finite(v.as_double());
        return Value::boolean(true);
      }
      if (v.is(Kind::Int) || v.is(Kind::Uint)) {
        out += debug_string(v);
        return Value::boolean(true);
      }
      return format_error("decimal clause can only be used on integers", v);
    case 'f':
    case 'e': {
      double d;
      if (v.is(Kind::Double)) {
        d = v.as_double();
      } else if (v.is(Kind::Int)) {
        d = static_cast<double>(v.as_int());
      } else if (v.is(Kind::Uint)) {
        d = static_cast<double>(v.as_uint());
      } else {
        return format_error(verb == 'f' ? "fixed-point clause can only be used on doubles"
                                        : "scientific clause can only be used on doubles",
                            v);
      }
      if (!std::isfinite(d)) {
        out += non_finite(d);
        return Value::boolean(true);
      }
      char buf[512];
      std::snprintf(buf, sizeof buf, verb == 'f' ? "%.*f" : "%.*e", precision < 0 ? 6 : precision,
                    d);
      out += buf;
      return Value::boolean(true);
    }
    case 'b': {
      if (v.is(Kind::Bool)) {
        out += v.as_bool() ? "1" : "0";
        return Value::boolean(true);
      }
      std::string s;
      if (!integer_in_base(v, 2, false, s)) {
        return format_error("only integers and bools can be formatted as binary", v);
      }
      out += s;
      return Value::boolean(true);
    }
    case 'o': {
      std::string s;
      if (!integer_in_base(v, 8, false, s)) {
        return format_error("octal clause can only be used on integers", v);
      }
      out += s;
      return Value::boolean(true);
    }
    case 'x':
    case 'X': {
      bool upper = verb == 'X';
      std::string s;
      if (integer_in_base(v, 16, upper, s)) {
        out += s;
        return Value::boolean(true);
      }
      if (v.is(Kind::String) || v.is(Kind::Bytes)) {
        for (unsigned char ch : v.text()) {
          out += in_base(ch >> 4, 16, upper);
          out += in_base(ch & 15, 16, upper);
        }
        return Value::boolean(true);
      }
      return format_error("only integers, byte buffers, and strings can be formatted as hex", v);
    }
    default:
      return Value::error("could not parse formatting clause: unrecognized formatting clause \"" +
                          std::string(1, verb) + "\"");
  }
}

Value format(CallContext& c) {
  if (!c.target || !c.target->is(Kind::String) || c.args.size() != 1 || !c.args[0].is(Kind::List)) {
    return no_such_overload();
  }
  const std::string& f = c.target->text();
  const auto& args = c.args[0].items();
  c.charge(f.size() / 10 + args.size());
  std::string out;
  std::size_t next = 0;
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') {
      out += f[i];
      continue;
    }
    if (i + 1 < f.size() && f[i + 1] == '%') {
      out += '%';
      ++i;
      continue;
    }
    int precision = -1;
    std::size_t k = i + 1;
    if (k < f.size() && f[k] == '.') {
      precision = 0;
      ++k;
      while (k < f.size() && f[k] >= '0' && f[k] <= '9' && precision < 100) {
        precision = precision * 10 + (f[k] - '0');
        ++k;
      }
    }
    if (k >= f.size()) {
      return Value::error("could not parse formatting clause: unexpected end of string");
    }
    char verb = f[k];
    i = k;
    if (std::string_view("sdfeboxX").find(verb) == std::string_view::npos) {
      return Value::error("could not parse formatting clause: unrecognized formatting clause \"" +
                          std::string(1, verb) + "\"");
    }
    if (next >= args.size()) {
      return Value::error("index " + std::to_string(next) + " out of range");
    }
    Value r = clause(verb, precision, args[next++], out);
    if (r.is_error()) return r;
  }
  return Value::string(std::move(out));
}

}  // namespace

void add_format(FunctionTable& t) {
  t[".format"] = format;
}

}  // namespace respool::sandbox::cel
