// Regular expressions with RE2, the syntax and linear-time semantics of Go's regexp that
// cel-go uses: matches (unanchored), and Kubernetes' find and findAll.

#include "sandbox/cel/regex.hpp"

#include <re2/re2.h>

#include <unordered_map>

#include "sandbox/cel/library.hpp"

namespace respool::sandbox::cel {
namespace {

// Compiled patterns, per thread: rules run the same few patterns over and over.
std::shared_ptr<const RE2> compiled(const std::string& pattern, std::string& error) {
  thread_local std::unordered_map<std::string, std::shared_ptr<const RE2>> cache;
  auto it = cache.find(pattern);
  if (it != cache.end()) return it->second;
  RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(8 << 20);
  auto re = std::make_shared<const RE2>(pattern, options);
  if (!re->ok()) {
    error = "error parsing regexp: " + re->error();
    return nullptr;
  }
  if (cache.size() > 256) cache.clear();
  cache.emplace(pattern, re);
  return re;
}

Value matches(CallContext& c) {
  const Value* text = c.target;
  const Value* pattern = c.args.empty() ? nullptr : &c.args[0];
  if (!c.target && c.args.size() == 2) text = &c.args[0], pattern = &c.args[1];
  if (!text || !pattern || !text->is(Kind::String) || !pattern->is(Kind::String) ||
      c.args.size() != (c.target ? 1u : 2u)) {
    return no_such_overload();
  }
  c.charge(text->text().size() * (1 + pattern->text().size()) / 4 / 10 + 1);
  std::string error;
  auto re = compiled(pattern->text(), error);
  if (!re) return Value::error(error);
  return Value::boolean(RE2::PartialMatch(text->text(), *re));
}

// Up to `limit` non-overlapping matches (all when negative), as Go's FindAllString.
std::vector<std::string> find_all(const RE2& re, const std::string& text, std::int64_t limit) {
  std::vector<std::string> out;
  re2::StringPiece input(text);
  std::size_t at = 0;
  std::size_t prev_end = std::string::npos;
  while (at <= text.size() && (limit < 0 || static_cast<std::int64_t>(out.size()) < limit)) {
    re2::StringPiece match;
    if (!re.Match(input, at, text.size(), RE2::UNANCHORED, &match, 1)) break;
    std::size_t start = static_cast<std::size_t>(match.data() - text.data());
    std::size_t end = start + match.size();
    if (match.empty() && start == prev_end) {
      // Go skips an empty match right after the previous match.
      if (start >= text.size()) break;
      at = start + 1;
      continue;
    }
    out.emplace_back(match.data(), match.size());
    prev_end = end;
    at = end > start ? end : end + 1;
  }
  return out;
}

Value find(CallContext& c, bool all) {
  if (!c.target || !c.target->is(Kind::String) || c.args.empty() || !c.args[0].is(Kind::String))
    return no_such_overload();
  std::int64_t limit = all ? -1 : 1;
  if (c.args.size() == 2 && all && c.args[1].is(Kind::Int)) {
    limit = c.args[1].as_int();
  } else if (c.args.size() != 1) {
    return no_such_overload();
  }
  c.charge(c.target->text().size() * (1 + c.args[0].text().size()) / 4 / 10 + 1);
  std::string error;
  auto re = compiled(c.args[0].text(), error);
  if (!re) return Value::error(error);
  std::vector<std::string> found =
      limit == 0 ? std::vector<std::string>{} : find_all(*re, c.target->text(), limit);
  if (!all) return Value::string(found.empty() ? "" : found[0]);
  std::vector<Value> items;
  for (std::string& s : found)
    items.push_back(Value::string(std::move(s)));
  return Value::list(std::move(items));
}

Value find_first(CallContext& c) {
  return find(c, false);
}
Value find_every(CallContext& c) {
  return find(c, true);
}

}  // namespace

std::string regex_error(const std::string& pattern) {
  std::string error;
  compiled(pattern, error);
  return error;
}

void add_regex(FunctionTable& t) {
  t["matches"] = matches;
  t[".matches"] = matches;
  t[".find"] = find_first;
  t[".findAll"] = find_every;
}

}  // namespace respool::sandbox::cel
