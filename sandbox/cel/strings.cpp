// String functions: contains, startsWith, endsWith, and cel-go's strings extension (charAt,
// indexOf, lastIndexOf, lowerAscii, upperAscii, replace, split, substring, trim, join, quote,
// reverse). Indices count code points, as in cel-go.

#include "sandbox/cel/library.hpp"
#include "sandbox/cel/text.hpp"

namespace respool::sandbox::cel {
namespace {

bool is_string(const Value* v) {
  return v && v->is(Kind::String);
}
bool args_are(CallContext& c, std::initializer_list<Kind> kinds) {
  if (c.args.size() != kinds.size()) return false;
  std::size_t k = 0;
  for (Kind kind : kinds) {
    if (!c.args[k++].is(kind)) return false;
  }
  return true;
}

Value out_of_range(std::int64_t i) {
  return Value::error("index out of range: " + std::to_string(i));
}

template <bool (*Test)(const std::string&, const std::string&)>
Value string_test(CallContext& c) {
  if (!is_string(c.target) || !args_are(c, {Kind::String})) return no_such_overload();
  c.charge(c.target->text().size() / 10);
  return Value::boolean(Test(c.target->text(), c.args[0].text()));
}
bool contains(const std::string& s, const std::string& x) {
  return s.find(x) != std::string::npos;
}
bool starts_with(const std::string& s, const std::string& x) {
  return s.rfind(x, 0) == 0;
}
bool ends_with(const std::string& s, const std::string& x) {
  return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
}

Value char_at(CallContext& c) {
  if (!is_string(c.target) || !args_are(c, {Kind::Int})) return no_such_overload();
  auto cps = utf8_decode(c.target->text());
  std::int64_t i = c.args[0].as_int();
  if (i < 0 || i > static_cast<std::int64_t>(cps.size())) return out_of_range(i);
  auto k = static_cast<std::size_t>(i);
  return Value::string(utf8_encode(cps, k, k + 1));
}

// The code-point index of `sub` in `cps` at or after `from` (or at or before, for last).
std::int64_t find_cps(const std::vector<char32_t>& cps, const std::vector<char32_t>& sub,
                      std::int64_t from, bool last) {
  auto n = static_cast<std::int64_t>(cps.size());
  auto m = static_cast<std::int64_t>(sub.size());
  auto match = [&](std::int64_t at) {
    if (at < 0 || at + m > n) return false;
    for (std::int64_t k = 0; k < m; ++k) {
      if (cps[static_cast<std::size_t>(at + k)] != sub[static_cast<std::size_t>(k)]) return false;
    }
    return true;
  };
  if (last) {
    for (std::int64_t at = std::min(from, n - m); at >= 0; --at) {
      if (match(at)) return at;
    }
    return -1;
  }
  for (std::int64_t at = from; at + m <= n; ++at) {
    if (match(at)) return at;
  }
  return -1;
}

Value index_of(CallContext& c, bool last) {
  if (c.target && c.target->is(Kind::List)) return list_index_of(c, last);
  if (!is_string(c.target)) return no_such_overload();
  if (!args_are(c, {Kind::String}) && !args_are(c, {Kind::String, Kind::Int})) {
    return no_such_overload();
  }
  c.charge(c.target->text().size() / 10);
  auto cps = utf8_decode(c.target->text());
  auto sub = utf8_decode(c.args[0].text());
  auto n = static_cast<std::int64_t>(cps.size());
  std::int64_t from = last ? n : 0;
  if (c.args.size() == 2) {
    from = c.args[1].as_int();
    if (from < 0 || from > n) return out_of_range(from);
  }
  if (sub.empty()) return Value::integer(from);
  return Value::integer(find_cps(cps, sub, from, last));
}
Value index_of_first(CallContext& c) {
  return index_of(c, false);
}
Value index_of_last(CallContext& c) {
  return index_of(c, true);
}

template <bool Upper>
Value ascii_case(CallContext& c) {
  if (!is_string(c.target) || !c.args.empty()) return no_such_overload();
  std::string s = c.target->text();
  for (char& ch : s) {
    if (Upper && ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 32);
    if (!Upper && ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch + 32);
  }
  return Value::string(std::move(s));
}

Value replace(CallContext& c) {
  if (!is_string(c.target)) return no_such_overload();
  if (!args_are(c, {Kind::String, Kind::String}) &&
      !args_are(c, {Kind::String, Kind::String, Kind::Int})) {
    return no_such_overload();
  }
  std::int64_t n = c.args.size() == 3 ? c.args[2].as_int() : -1;
  const std::string& s = c.target->text();
  const std::string& from = c.args[0].text();
  const std::string& to = c.args[1].text();
  c.charge(s.size() / 10);
  if (n == 0) return *c.target;
  std::string out;
  if (from.empty()) {  // Go inserts `to` before every code point and at the end
    auto cps = utf8_decode(s);
    std::int64_t done = 0;
    for (std::size_t k = 0; k <= cps.size(); ++k) {
      if (n < 0 || done < n) {
        out += to;
        ++done;
      }
      if (k < cps.size()) utf8_append(out, cps[k]);
    }
    return Value::string(std::move(out));
  }
  std::size_t at = 0;
  for (std::int64_t done = 0; n < 0 || done < n; ++done) {
    std::size_t hit = s.find(from, at);
    if (hit == std::string::npos) break;
    out += s.substr(at, hit - at) + to;
    at = hit + from.size();
  }
  out += s.substr(at);
  return Value::string(std::move(out));
}

Value split(CallContext& c) {
  if (!is_string(c.target)) return no_such_overload();
  if (!args_are(c, {Kind::String}) && !args_are(c, {Kind::String, Kind::Int})) {
    return no_such_overload();
  }
  std::int64_t n = c.args.size() == 2 ? c.args[1].as_int() : -1;
  const std::string& s = c.target->text();
  const std::string& sep = c.args[0].text();
  c.charge(s.size() / 10);
  std::vector<Value> parts;
  if (n == 0) return Value::list(std::move(parts));
  if (sep.empty()) {
    auto cps = utf8_decode(s);
    for (std::size_t k = 0; k < cps.size(); ++k) {
      if (n > 0 && static_cast<std::int64_t>(parts.size()) == n - 1) {
        parts.push_back(Value::string(utf8_encode(cps, k)));
        break;
      }
      parts.push_back(Value::string(utf8_encode(cps, k, k + 1)));
    }
    return Value::list(std::move(parts));
  }
  std::size_t at = 0;
  for (;;) {
    if (n > 0 && static_cast<std::int64_t>(parts.size()) == n - 1) break;
    std::size_t hit = s.find(sep, at);
    if (hit == std::string::npos) break;
    parts.push_back(Value::string(s.substr(at, hit - at)));
    at = hit + sep.size();
  }
  parts.push_back(Value::string(s.substr(at)));
  return Value::list(std::move(parts));
}

Value substring(CallContext& c) {
  if (!is_string(c.target)) return no_such_overload();
  if (!args_are(c, {Kind::Int}) && !args_are(c, {Kind::Int, Kind::Int})) {
    return no_such_overload();
  }
  auto cps = utf8_decode(c.target->text());
  auto n = static_cast<std::int64_t>(cps.size());
  std::int64_t start = c.args[0].as_int();
  std::int64_t end = c.args.size() == 2 ? c.args[1].as_int() : n;
  if (start < 0 || start > n) return out_of_range(start);
  if (end < 0 || end > n) return out_of_range(end);
  if (start > end) {
    return Value::error("invalid substring range. start: " + std::to_string(start) +
                        ", end: " + std::to_string(end));
  }
  return Value::string(
      utf8_encode(cps, static_cast<std::size_t>(start), static_cast<std::size_t>(end)));
}

bool is_space(char32_t cp) {
  switch (cp) {
    case '\t':
    case '\n':
    case '\v':
    case '\f':
    case '\r':
    case ' ':
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
      return true;
    default:
      return cp >= 0x2000 && cp <= 0x200A;
  }
}

Value trim(CallContext& c) {
  if (!is_string(c.target) || !c.args.empty()) return no_such_overload();
  auto cps = utf8_decode(c.target->text());
  std::size_t b = 0, e = cps.size();
  while (b < e && is_space(cps[b]))
    ++b;
  while (e > b && is_space(cps[e - 1]))
    --e;
  return Value::string(utf8_encode(cps, b, e));
}

Value join(CallContext& c) {
  if (!c.target || !c.target->is(Kind::List)) return no_such_overload();
  if (!c.args.empty() && !args_are(c, {Kind::String})) return no_such_overload();
  std::string sep = c.args.empty() ? "" : c.args[0].text();
  std::string out;
  const auto& items = c.target->items();
  c.charge(items.size() / 10);
  for (std::size_t k = 0; k < items.size(); ++k) {
    if (!items[k].is(Kind::String)) return no_such_overload();
    if (k) out += sep;
    out += items[k].text();
  }
  return Value::string(std::move(out));
}

Value quote_fn(CallContext& c) {
  if (c.target || !args_are(c, {Kind::String})) return no_such_overload();
  return Value::string(quote(c.args[0].text()));
}

Value reverse(CallContext& c) {
  if (!is_string(c.target) || !c.args.empty()) return no_such_overload();
  auto cps = utf8_decode(c.target->text());
  return Value::string(utf8_encode(std::vector<char32_t>(cps.rbegin(), cps.rend())));
}

}  // namespace

void add_strings(FunctionTable& t) {
  t[".contains"] = string_test<contains>;
  t[".startsWith"] = string_test<starts_with>;
  t[".endsWith"] = string_test<ends_with>;
  t[".charAt"] = char_at;
  t[".indexOf"] = index_of_first;
  t[".lastIndexOf"] = index_of_last;
  t[".lowerAscii"] = ascii_case<false>;
  t[".upperAscii"] = ascii_case<true>;
  t[".replace"] = replace;
  t[".split"] = split;
  t[".substring"] = substring;
  t[".trim"] = trim;
  t[".join"] = join;
  t["strings.quote"] = quote_fn;
  t[".reverse"] = reverse;
}

}  // namespace respool::sandbox::cel
