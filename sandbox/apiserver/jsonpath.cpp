#include "sandbox/apiserver/jsonpath.hpp"

#include <charconv>

namespace respool::sandbox {
namespace {

struct Step {
  enum class Kind { Field, Index, All, Filter } kind = Kind::Field;
  std::string field;       // Field; Filter: the @.key compared
  long index = 0;          // Index
  std::string value;       // Filter: the literal compared with
  bool not_equal = false;  // Filter: != instead of ==
};

// Parses a filter body "@.type==\"Ready\"" (quotes ' or ").
std::optional<Step> parse_filter(std::string_view body) {
  Step s;
  s.kind = Step::Kind::Filter;
  if (body.substr(0, 2) != "@.") return std::nullopt;
  std::size_t op = body.find("==");
  if (op == std::string_view::npos) {
    op = body.find("!=");
    if (op == std::string_view::npos) return std::nullopt;
    s.not_equal = true;
  }
  s.field = std::string(body.substr(2, op - 2));
  std::string_view lit = body.substr(op + 2);
  while (!lit.empty() && lit.front() == ' ')
    lit.remove_prefix(1);
  while (!lit.empty() && lit.back() == ' ')
    lit.remove_suffix(1);
  if (lit.size() >= 2 && (lit.front() == '"' || lit.front() == '\'') && lit.back() == lit.front()) {
    lit = lit.substr(1, lit.size() - 2);
  }
  s.value = std::string(lit);
  return s;
}

std::optional<std::vector<Step>> parse(std::string_view path) {
  if (path.size() >= 2 && path.front() == '{' && path.back() == '}') {
    path = path.substr(1, path.size() - 2);
  }
  std::vector<Step> steps;
  std::size_t i = 0;
  if (i < path.size() && path[i] == '$') ++i;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      std::string field;
      while (i < path.size() && path[i] != '.' && path[i] != '[') {
        if (path[i] == '\\' && i + 1 < path.size()) ++i;
        field += path[i++];
      }
      if (field.empty()) {
        if (i >= path.size()) break;
        continue;
      }
      Step s;
      s.field = std::move(field);
      steps.push_back(std::move(s));
    } else if (path[i] == '[') {
      std::size_t close = path.find(']', i);
      if (close == std::string_view::npos) return std::nullopt;
      std::string_view body = path.substr(i + 1, close - i - 1);
      i = close + 1;
      Step s;
      if (body == "*") {
        s.kind = Step::Kind::All;
      } else if (body.size() > 3 && body.substr(0, 2) == "?(" && body.back() == ')') {
        auto f = parse_filter(body.substr(2, body.size() - 3));
        if (!f) return std::nullopt;
        s = *f;
      } else if (body.size() >= 2 && (body.front() == '\'' || body.front() == '"')) {
        s.field = std::string(body.substr(1, body.size() - 2));
      } else {
        auto [p, ec] = std::from_chars(body.data(), body.data() + body.size(), s.index);
        if (ec != std::errc() || p != body.data() + body.size()) return std::nullopt;
        s.kind = Step::Kind::Index;
      }
      steps.push_back(std::move(s));
    } else {
      // A leading name without a dot ("spec.replicas").
      std::string field;
      while (i < path.size() && path[i] != '.' && path[i] != '[')
        field += path[i++];
      Step s;
      s.field = std::move(field);
      steps.push_back(std::move(s));
    }
  }
  return steps;
}

std::string scalar_text(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

}  // namespace

std::vector<const Json*> json_path_find(const Json& root, std::string_view path) {
  auto steps = parse(path);
  if (!steps) return {};
  std::vector<const Json*> current{&root};
  for (const Step& s : *steps) {
    std::vector<const Json*> next;
    for (const Json* v : current) {
      switch (s.kind) {
        case Step::Kind::Field:
          if (v->is_object()) {
            auto it = v->find(s.field);
            if (it != v->end()) next.push_back(&*it);
          }
          break;
        case Step::Kind::Index:
          if (v->is_array()) {
            long n = static_cast<long>(v->size());
            long idx = s.index < 0 ? n + s.index : s.index;
            if (idx >= 0 && idx < n) next.push_back(&(*v)[static_cast<std::size_t>(idx)]);
          }
          break;
        case Step::Kind::All:
          if (v->is_array() || v->is_object()) {
            for (const Json& item : *v)
              next.push_back(&item);
          }
          break;
        case Step::Kind::Filter:
          if (v->is_array()) {
            for (const Json& item : *v) {
              if (!item.is_object()) continue;
              auto it = item.find(s.field);
              bool equal = it != item.end() && scalar_text(*it) == s.value;
              if (equal != s.not_equal) next.push_back(&item);
            }
          }
          break;
      }
    }
    current = std::move(next);
    if (current.empty()) break;
  }
  return current;
}

const Json* json_path_first(const Json& root, std::string_view path) {
  auto all = json_path_find(root, path);
  return all.empty() ? nullptr : all.front();
}

std::optional<std::vector<std::string>> json_path_fields(std::string_view path) {
  auto steps = parse(path);
  if (!steps || steps->empty()) return std::nullopt;
  std::vector<std::string> out;
  for (const Step& s : *steps) {
    if (s.kind != Step::Kind::Field) return std::nullopt;
    out.push_back(s.field);
  }
  return out;
}

}  // namespace respool::sandbox
