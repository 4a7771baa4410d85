// Field selectors with the syntax of k8s.io/apimachinery/pkg/fields (ParseSelector): terms split
// on unescaped commas, "!=", "==" or "=" at the first place one occurs, values unescaped.

#include <algorithm>

#include "operator/kube/selector.hpp"

namespace respool::kube {
namespace {

// Backslash-escaped commas are data, not delimiters; the backslash stays for unescape_value.
std::vector<std::string_view> split_terms(std::string_view text) {
  std::vector<std::string_view> terms;
  if (text.empty()) return terms;
  std::size_t start = 0;
  bool escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (escaped) {
      escaped = false;
    } else if (text[i] == '\\') {
      escaped = true;
    } else if (text[i] == ',') {
      terms.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  terms.push_back(text.substr(start));
  return terms;
}

struct Term {
  std::string_view lhs;
  std::string_view op;
  std::string_view rhs;
};

// "!=" before "==" before "=", so that "a==b" does not leave "=b" as the value.
std::optional<Term> split_term(std::string_view term) {
  for (std::size_t i = 0; i < term.size(); ++i) {
    for (std::string_view op : {"!=", "==", "="}) {
      if (term.substr(i).starts_with(op)) {
        return Term{term.substr(0, i), op, term.substr(i + op.size())};
      }
    }
  }
  return std::nullopt;
}

std::expected<std::string, std::string> unescape_value(std::string_view value) {
  std::string out;
  bool escaped = false;
  for (char c : value) {
    if (escaped) {
      if (c != '\\' && c != ',' && c != '=') {
        return std::unexpected(std::string("invalid field selector: invalid escape sequence: \\") +
                               c);
      }
      out += c;
      escaped = false;
      continue;
    }
    if (c == '\\') {
      escaped = true;
    } else if (c == ',' || c == '=') {
      // Go prints the rune with %v, which is its code point.
      return std::unexpected("invalid field selector: unescaped character in value: " +
                             std::to_string(static_cast<int>(static_cast<unsigned char>(c))));
    } else {
      out += c;
    }
  }
  if (escaped) return std::unexpected("invalid field selector: invalid escape sequence: \\");
  return out;
}

std::string escape_value(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == ',' || c == '=') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::expected<FieldSelector, std::string> FieldSelector::parse(std::string_view text) {
  std::vector<std::string_view> parts = split_terms(text);
  std::ranges::sort(parts);
  FieldSelector selector;
  for (std::string_view part : parts) {
    if (part.empty()) continue;
    const auto term = split_term(part);
    if (!term) {
      return std::unexpected("invalid selector: '" + std::string(text) + "'; can't understand '" +
                             std::string(part) + "'");
    }
    auto value = unescape_value(term->rhs);
    if (!value) return std::unexpected(value.error());
    selector.requirements_.push_back(
        FieldRequirement{std::string(term->lhs), term->op != "!=", std::move(*value)});
  }
  return selector;
}

bool FieldSelector::matches(const Lookup& fields) const {
  return std::ranges::all_of(requirements_, [&](const FieldRequirement& r) {
    const std::string_view actual = fields(r.field).value_or("");
    return (actual == r.value) == r.equals;
  });
}

std::optional<std::string_view> FieldSelector::required_value(std::string_view field) const {
  for (const FieldRequirement& r : requirements_) {
    if (r.field == field && r.equals) return r.value;
  }
  return std::nullopt;
}

std::string FieldSelector::to_string() const {
  std::string out;
  for (const FieldRequirement& r : requirements_) {
    if (!out.empty()) out += ",";
    out += r.field;
    out += r.equals ? "=" : "!=";
    out += escape_value(r.value);
  }
  return out;
}

}  // namespace respool::kube
