// A Job's podFailurePolicy and successPolicy as validatePodFailurePolicy and
// validateSuccessPolicy (pkg/apis/batch/validation, v1.32) check them.

#include <expected>
#include <optional>
#include <set>

#include "sandbox/apiserver/validation/job.hpp"
#include "sandbox/apiserver/validation/pod.hpp"

namespace respool::sandbox::kinds {
namespace {

// field.TooMany.
Cause policy_too_many(std::string field, std::size_t count, int max) {
  return {"FieldValueTooMany",
          "Too many: " + std::to_string(count) + ": must have at most " + std::to_string(max) +
              " items",
          std::move(field)};
}

// field.Invalid with field.OmitValueType: no value shown.
Cause policy_invalid_omitted(std::string field, const std::string& detail) {
  return {"FieldValueInvalid", "Invalid value: " + detail, std::move(field)};
}

// %#v of a []int32.
std::string policy_go_int32s(const Json& values) {
  if (!values.is_array()) return "[]int32(nil)";
  std::string out = "[]int32{";
  for (std::size_t i = 0; i < values.size(); ++i)
    out += (i ? ", " : "") + values[i].dump();
  return out + "}";
}

void policy_on_exit_codes(const Json& on, const std::set<std::string>& containers,
                          const std::string& at, std::vector<Cause>& out) {
  const Json& op = member_or_null(on, "operator");
  if (!op.is_string() || op == "") {
    out.push_back(field_required(at + ".operator", "valid values: [\"In\" \"NotIn\"]"));
  } else if (op != "In" && op != "NotIn") {
    out.push_back(field_not_supported(at + ".operator", op, {"In", "NotIn"}));
  }
  const Json& container = member_or_null(on, "containerName");
  if (container.is_string() && !containers.contains(container.get<std::string>())) {
    out.push_back(
        field_invalid(at + ".containerName", container,
                      "must be one of the container or initContainer names in the pod template"));
  }
  const Json& values = member_or_null(on, "values");
  const std::size_t n = values.is_array() ? values.size() : 0;
  if (n == 0) {
    out.push_back(field_invalid_raw(at + ".values", policy_go_int32s(values),
                                    "at least one value is required"));
  } else if (n > 255) {
    out.push_back(policy_too_many(at + ".values", n, 255));
  }
  bool ordered = true;
  std::set<long long> seen;
  for (std::size_t j = 0; j < n; ++j) {
    const long long v = values[j].is_number_integer() ? values[j].get<long long>() : 0;
    const std::string v_at = indexed(at + ".values", j);
    if (op == "In" && v == 0)
      out.push_back(field_invalid(v_at, v, "must not be 0 for the In operator"));
    if (!seen.insert(v).second) out.push_back(field_duplicate_raw(v_at, std::to_string(v)));
    if (j > 0 && values[j - 1].is_number_integer() && values[j - 1].get<long long>() > v) {
      ordered = false;
    }
  }
  if (!ordered) {
    out.push_back(field_invalid_raw(at + ".values", policy_go_int32s(values), "must be ordered"));
  }
}

void policy_on_pod_conditions(const Json& patterns, const std::string& at,
                              std::vector<Cause>& out) {
  if (patterns.size() > 20) out.push_back(policy_too_many(at, patterns.size(), 20));
  for (std::size_t j = 0; j < patterns.size(); ++j) {
    const Json& p = object_or_empty(patterns[j]);
    const std::string p_at = indexed(at, j);
    const std::string type = text_of(p, "type");
    for (const std::string& msg : check_qualified_name(type))
      out.push_back(field_invalid(p_at + ".type", type, msg));
    const std::string status = text_of(p, "status");
    if (status.empty()) {
      out.push_back(
          field_required(p_at + ".status", "valid values: [\"False\" \"True\" \"Unknown\"]"));
    } else if (status != "True" && status != "False" && status != "Unknown") {
      out.push_back(field_not_supported(p_at + ".status", status, {"False", "True", "Unknown"}));
    }
  }
}

void policy_failure(const Json& spec, std::vector<Cause>& out) {
  const std::string at = "spec.podFailurePolicy.rules";
  const Json& rules = member_or_null(member_or_null(spec, "podFailurePolicy"), "rules");
  const std::size_t n = rules.is_array() ? rules.size() : 0;
  if (n > 20) out.push_back(policy_too_many(at, n, 20));
  std::set<std::string> containers;
  const Json& pod_spec = member_or_null(member_or_null(spec, "template"), "spec");
  for (const char* list : {"containers", "initContainers"}) {
    const Json& cs = member_or_null(pod_spec, list);
    for (std::size_t i = 0; cs.is_array() && i < cs.size(); ++i)
      containers.insert(text_of(object_or_empty(cs[i]), "name"));
  }
  for (std::size_t i = 0; i < n; ++i) {
    const Json& rule = object_or_empty(rules[i]);
    const std::string r_at = indexed(at, i);
    const std::string action = text_of(rule, "action");
    if (action.empty()) {
      out.push_back(field_required(
          r_at + ".action", "valid values: [\"Count\" \"FailIndex\" \"FailJob\" \"Ignore\"]"));
    } else if (action == "FailIndex") {
      if (member_or_null(spec, "backoffLimitPerIndex").is_null()) {
        out.push_back(
            field_invalid(r_at + ".action", action, "requires the backoffLimitPerIndex to be set"));
      }
    } else if (action != "Count" && action != "FailJob" && action != "Ignore") {
      out.push_back(field_not_supported(r_at + ".action", action,
                                        {"Count", "FailIndex", "FailJob", "Ignore"}));
    }
    const Json& on_exit = member_or_null(rule, "onExitCodes");
    const Json& on_conditions = member_or_null(rule, "onPodConditions");
    const bool conditions = on_conditions.is_array() && !on_conditions.empty();
    if (!on_exit.is_null()) {
      policy_on_exit_codes(object_or_empty(on_exit), containers, r_at + ".onExitCodes", out);
    }
    if (conditions) policy_on_pod_conditions(on_conditions, r_at + ".onPodConditions", out);
    if (!on_exit.is_null() && conditions) {
      out.push_back(policy_invalid_omitted(
          r_at, "specifying both OnExitCodes and OnPodConditions is not supported"));
    }
    if (on_exit.is_null() && !conditions) {
      out.push_back(policy_invalid_omitted(
          r_at, "specifying one of OnExitCodes and OnPodConditions is required"));
    }
  }
}

// validateIndexesFormat: the number of indexes in "1,3-5", or why it does not parse.
std::expected<long long, std::string> policy_indexes(const std::string& text,
                                                     long long completions) {
  if (text.empty()) return 0;
  long long total = 0;
  std::optional<long long> last;
  std::size_t start = 0;
  auto number = [](const std::string& s) -> std::optional<long long> {
    if (s.empty() || s.size() > 10) return std::nullopt;
    std::size_t i = s[0] == '-' || s[0] == '+' ? 1 : 0;
    if (i == s.size() || s.find_first_not_of("0123456789", i) != std::string::npos) {
      return std::nullopt;
    }
    return std::stoll(s);
  };
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string interval = text.substr(start, comma - start);
    std::vector<std::string> parts;
    for (std::size_t p = 0;;) {
      std::size_t dash = interval.find('-', p);
      parts.push_back(interval.substr(p, dash == std::string::npos ? std::string::npos : dash - p));
      if (dash == std::string::npos) break;
      p = dash + 1;
    }
    if (parts.size() > 2) {
      return std::unexpected("the fragment \"" + interval +
                             "\" violates the requirement that an index interval can have at "
                             "most two parts separated by '-'");
    }
    for (std::size_t k = 0; k < parts.size(); ++k) {
      auto x = number(parts[k]);
      if (!x)
        return std::unexpected("cannot convert string to integer for index: \"" + parts[k] + "\"");
      if (*x >= completions) return std::unexpected("too large index: \"" + parts[k] + "\"");
      if (last && *last >= *x) {
        return std::unexpected("non-increasing order, previous: " + std::to_string(*last) +
                               ", current: " + std::to_string(*x));
      }
      total += k == 0 ? 1 : *x - *last;
      last = *x;
    }
    start = comma + 1;
  }
  return total;
}

// %#v of a batch.SuccessPolicy.
std::string policy_go_success(const Json& policy) {
  const Json& rules = member_or_null(policy, "rules");
  if (!rules.is_array()) return "batch.SuccessPolicy{Rules:[]batch.SuccessPolicyRule(nil)}";
  std::string out = "batch.SuccessPolicy{Rules:[]batch.SuccessPolicyRule{";
  for (std::size_t i = 0; i < rules.size(); ++i) {
    auto ptr = [&](const char* key, const char* type) {
      return std::string("(*") + type + ")(" +
             (member_or_null(rules[i], key).is_null() ? "nil" : kGoPointer) + ")";
    };
    out += std::string(i ? ", " : "") +
           "batch.SuccessPolicyRule{SucceededIndexes:" + ptr("succeededIndexes", "string") +
           ", SucceededCount:" + ptr("succeededCount", "int32") + "}";
  }
  return out + "}}";
}

void policy_success(const Json& spec, std::vector<Cause>& out) {
  const Json& policy = member_or_null(spec, "successPolicy");
  if (member_or_null(spec, "completionMode") != "Indexed") {
    out.push_back(field_invalid_raw("spec.successPolicy", policy_go_success(policy),
                                    "requires indexed completion mode"));
    return;
  }
  const std::string at = "spec.successPolicy.rules";
  const Json& rules = member_or_null(policy, "rules");
  const std::size_t n = rules.is_array() ? rules.size() : 0;
  if (n == 0) {
    out.push_back(field_required(at,
                                 "at least one rules must be specified when the successPolicy "
                                 "is specified"));
  }
  if (n > 20) out.push_back(policy_too_many(at, n, 20));
  const Json& completions_v = member_or_null(spec, "completions");
  if (!completions_v.is_number_integer()) return;  // already required for Indexed
  const long long completions = completions_v.get<long long>();
  for (std::size_t i = 0; i < n; ++i) {
    const Json& rule = object_or_empty(rules[i]);
    const std::string r_at = indexed(at, i);
    const Json& indexes = member_or_null(rule, "succeededIndexes");
    const Json& count = member_or_null(rule, "succeededCount");
    if (indexes.is_null() && count.is_null()) {
      out.push_back(field_required(
          r_at, "at least one of succeededCount or succeededIndexes must be specified"));
    }
    long long total = 0;
    if (indexes.is_string()) {
      auto parsed = policy_indexes(indexes.get<std::string>(), completions);
      if (parsed) {
        total = *parsed;
      } else {
        out.push_back(field_invalid(r_at + ".succeededIndexes", indexes,
                                    "error parsing succeededIndexes: " + parsed.error()));
      }
    }
    if (count.is_number_integer()) {
      const long long c = count.get<long long>();
      non_negative(rule, "succeededCount", r_at, out);
      if (c > completions) {
        out.push_back(field_invalid(r_at + ".succeededCount", c,
                                    "must be less than or equal to " + std::to_string(completions) +
                                        " (the number of specified completions)"));
      }
      if (indexes.is_string() && c > total) {
        out.push_back(field_invalid(r_at + ".succeededCount", c,
                                    "must be less than or equal to " + std::to_string(total) +
                                        " (the number of indexes in the specified succeededIndexes "
                                        "field)"));
      }
    }
  }
}

}  // namespace

void job_policy_rules(const Json& spec, std::vector<Cause>& out) {
  if (!member_or_null(spec, "podFailurePolicy").is_null()) policy_failure(spec, out);
  if (!member_or_null(spec, "successPolicy").is_null()) policy_success(spec, out);
}

}  // namespace respool::sandbox::kinds
