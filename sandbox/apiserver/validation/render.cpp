// Go's %#v of the values field.Error prints as they are (no String() method on the value type):
// maps of strings and label selectors, as "Invalid value: ..." shows them.

#include "apimachinery/quantity.hpp"
#include "sandbox/apiserver/validation/rules.hpp"

namespace respool::sandbox::kinds {
namespace {

// %#v of a []string: nil when missing, else the quoted items.
std::string go_string_list(const Json& v) {
  if (!v.is_array()) return "[]string(nil)";
  std::string out = "[]string{";
  for (std::size_t i = 0; i < v.size(); ++i) {
    out += (i ? ", " : "") + render_value(v[i].is_string() ? v[i] : Json(v[i].dump()));
  }
  return out + "}";
}

}  // namespace

std::string go_string_map(const Json& m) {
  if (!m.is_object()) return "map[string]string(nil)";
  // fmt prints a map's keys sorted, as the JSON object here holds them.
  std::string out = "map[string]string{";
  bool first = true;
  for (auto it = m.begin(); it != m.end(); ++it) {
    out += (first ? "" : ", ") + render_value(it.key()) + ":" + render_value(it.value());
    first = false;
  }
  return out + "}";
}

std::string go_label_selector(const Json& selector) {
  if (!selector.is_object()) return "null";
  std::string out =
      "v1.LabelSelector{MatchLabels:" + go_string_map(selector.value("matchLabels", Json())) +
      ", MatchExpressions:";
  const Json exprs = selector.value("matchExpressions", Json());
  if (!exprs.is_array()) return out + "[]v1.LabelSelectorRequirement(nil)}";
  out += "[]v1.LabelSelectorRequirement{";
  for (std::size_t i = 0; i < exprs.size(); ++i) {
    const Json& e = exprs[i].is_object() ? exprs[i] : Json::object();
    out += std::string(i ? ", " : "") +
           "v1.LabelSelectorRequirement{Key:" + render_value(text_of(e, "key")) +
           ", Operator:" + render_value(text_of(e, "operator")) +
           ", Values:" + go_string_list(e.value("values", Json())) + "}";
  }
  return out + "}}";
}

std::string go_quantity(const std::string& text) {
  // parseQuantityString: sign, numerator without leading zeros, denominator, suffix.
  std::size_t pos = 0;
  bool positive = true;
  if (pos < text.size() && (text[pos] == '-' || text[pos] == '+')) positive = text[pos++] == '+';
  while (pos < text.size() && text[pos] == '0')
    ++pos;
  auto digits = [&]() {
    std::size_t start = pos;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])))
      ++pos;
    return text.substr(start, pos - start);
  };
  std::string num = digits();
  if (num.empty()) num = "0";
  std::string denom;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    denom = digits();
  }
  const std::string suffix = text.substr(pos);
  int exponent = 0;
  std::string format = "DecimalSI";
  static const std::pair<const char*, int> kDecimal[] = {{"", 0},   {"n", -9}, {"u", -6}, {"m", -3},
                                                         {"k", 3},  {"M", 6},  {"G", 9},  {"T", 12},
                                                         {"P", 15}, {"E", 18}};
  static const std::pair<const char*, int> kBinary[] = {{"Ki", 10}, {"Mi", 20}, {"Gi", 30},
                                                        {"Ti", 40}, {"Pi", 50}, {"Ei", 60}};
  bool known = false;
  for (const auto& [s, e] : kDecimal) {
    if (suffix == s) known = true, exponent = e;
  }
  for (const auto& [s, e] : kBinary) {
    if (suffix == s) known = true, exponent = e, format = "BinarySI";
  }
  if (!known && suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    known = true;
    format = "DecimalExponent";
    exponent = std::atoi(suffix.c_str() + 1);
  }
  auto shown = [&](long long value, int scale, const std::string& cached) {
    return "resource.Quantity{i:resource.int64Amount{value:" + std::to_string(value) +
           ", scale:" + std::to_string(scale) +
           "}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:" + render_value(cached) +
           ", Format:\"" + format + "\"}";
  };
  // ParseQuantity's fast path: an int64 mantissa and a decimal scale (binary suffixes multiply).
  int precision = -1;
  int scale = 0;
  long long mantissa = 1;
  if (format == "BinarySI") {
    if (denom.empty()) {
      mantissa = 1LL << exponent;
      precision = 15 - static_cast<int>(num.size()) -
                  static_cast<int>(static_cast<float>(exponent) * 3 / 10) - 1;
    }
  } else {
    scale = exponent;
    precision = 18 - static_cast<int>(num.size() + denom.size());
  }
  if (known && precision >= 0) {
    scale -= static_cast<int>(denom.size());
    const std::string shifted = num + denom;
    long long value = 0;
    if (scale >= -9 && !__builtin_mul_overflow(std::stoll(shifted), mantissa, &value)) {
      const long long unscaled = std::stoll(shifted);
      if (!positive) value = -value;
      bool canonical = format == "BinarySI"
                           ? exponent % 10 == 0 && (unscaled & 0x07) != 0
                           : scale % 3 == 0 && !shifted.ends_with("000") && shifted[0] != '0';
      return shown(value, scale, canonical ? text : "");
    }
  }
  // The inf.Dec slow path keeps the number in d.
  return "resource.Quantity{i:resource.int64Amount{value:0, scale:0}, "
         "d:resource.infDecAmount{Dec:(*inf.Dec)(0xc000000000)}, s:\"\", Format:\"" +
         format + "\"}";
}

// Quantity.String() of what the text parses to (its canonical form), or the text itself.
std::string go_quantity_string(const std::string& text) {
  auto parsed = apimachinery::Quantity::parse(text);
  return parsed ? parsed->to_string() : text;
}

}  // namespace respool::sandbox::kinds
