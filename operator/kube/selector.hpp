#pragma once
// Label and field selectors: the string syntax of ?labelSelector= / ?fieldSelector= and the
// metav1.LabelSelector object, with the semantics of k8s.io/apimachinery/pkg/labels and fields.

#include <expected>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::kube {

// Looks a key up in whatever holds the labels (or fields) being matched.
using Lookup = std::function<std::optional<std::string_view>(std::string_view key)>;

// A Lookup over a JSON object of string values (metadata.labels); null or absent = empty.
// The Lookup refers to `labels`, which must outlive it; non-string values are not found.
Lookup json_lookup(const nlohmann::json& labels);

struct LabelRequirement {
  // GreaterThan/LessThan ("a>5", "a<5") are accepted by the string syntax only, as in labels.Parse;
  // they match a label whose value is an integer beyond the bound.
  enum class Op { Equals, NotEquals, In, NotIn, Exists, DoesNotExist, GreaterThan, LessThan };
  std::string key;
  Op op = Op::Equals;
  std::vector<std::string> values;  // one for Equals/NotEquals/GreaterThan/LessThan; sorted
                                    // and without duplicates for In/NotIn
  bool matches(const Lookup& labels) const;
};

class LabelSelector {
 public:
  // "a=b,c!=d,e in (x,y),f notin (z),g,!h" (also "=="). The empty string selects everything.
  // Errors name the offending part, as the API server's 400 message does.
  static std::expected<LabelSelector, std::string> parse(std::string_view text);
  // metav1.LabelSelector {matchLabels, matchExpressions}; null selects everything (note: the
  // API's LabelSelectorAsSelector makes a null selector select nothing, and kinds such as
  // policy/v1 PodDisruptionBudget rely on that: callers that need it use nothing()). An operator
  // other than In, NotIn, Exists, DoesNotExist is an error.
  static std::expected<LabelSelector, std::string> from_json(const nlohmann::json& selector);
  // labels.Nothing(): matches no object at all.
  static LabelSelector nothing();

  bool matches(const Lookup& labels) const;
  bool matches(const nlohmann::json& labels) const { return matches(json_lookup(labels)); }
  bool empty() const { return !nothing_ && requirements_.empty(); }
  bool matches_nothing() const { return nothing_; }
  const std::vector<LabelRequirement>& requirements() const { return requirements_; }
  // Canonical text form (sorted by key), parseable by parse().
  std::string to_string() const;

 private:
  std::vector<LabelRequirement> requirements_;
  bool nothing_ = false;
};

struct FieldRequirement {
  std::string field;   // "metadata.name", "spec.nodeName", ...
  bool equals = true;  // "=" / "==" versus "!="
  std::string value;
};

class FieldSelector {
 public:
  // "spec.nodeName=n1,status.phase!=Succeeded". Escapes (\\ \, \=) as in fields.ParseSelector.
  // A field the Lookup does not find has the value "" (so "f!=x" matches it, "f=" too).
  static std::expected<FieldSelector, std::string> parse(std::string_view text);
  bool matches(const Lookup& fields) const;
  bool empty() const { return requirements_.empty(); }
  const std::vector<FieldRequirement>& requirements() const { return requirements_; }
  // The value required for `field` with "=", if any (for a watch of one object by name).
  std::optional<std::string_view> required_value(std::string_view field) const;
  // Canonical text form (terms sorted, values escaped), parseable by parse().
  std::string to_string() const;

 private:
  std::vector<FieldRequirement> requirements_;
};

}  // namespace respool::kube
