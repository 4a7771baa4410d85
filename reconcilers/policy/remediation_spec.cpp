// spec.remediation of a ResourcePool, read and checked (N10–N16). The CRD's rules refuse most of
// this at apply; the operator checks again (not every API server evaluates CEL), naming each
// field and rule.
#include "reconcilers/policy/node_state.hpp"
#include "reconcilers/policy/remediation.hpp"
#include "reconcilers/policy/time.hpp"

namespace respool::policy {

namespace {

using nlohmann::json;

std::optional<RemediationStep> read_step(const json& item, const std::string& at,
                                         std::vector<Violation>& out) {
  if (!item.is_object()) {
    out.push_back({at, "N13", "must be an object with an action"});
    return std::nullopt;
  }
  RemediationStep step;
  const auto a = item.find("action");
  auto action = a != item.end() && a->is_string() ? parse_node_operation_type(a->get<std::string>())
                                                  : std::nullopt;
  if (!action || *action == NodeOperationType::Delete) {
    out.push_back({at + ".action", "N13", "must be Reset or Replace"});
    return std::nullopt;
  }
  step.action = *action;
  step.os = item.contains("os") && item["os"].is_string() ? item["os"].get<std::string>() : "";
  if (step.action == NodeOperationType::Reset && step.os.empty())
    out.push_back({at + ".os", "N7", "a Reset names the operating system to install"});
  if (step.action == NodeOperationType::Replace && !step.os.empty())
    out.push_back({at + ".os", "N13", "only a Reset installs an operating system"});
  if (auto t = item.find("timeout"); t != item.end()) {
    auto d = t->is_string() ? parse_duration(t->get<std::string>())
                            : std::unexpected(std::string("must be a duration such as 45m"));
    if (!d)
      out.push_back({at + ".timeout", "N13", d.error()});
    else
      step.timeout = *d;
  }
  return step;
}

void read_matchers(const json& item, const std::string& at, RemediationRule& rule,
                   std::vector<Violation>& out) {
  const std::size_t said = out.size();
  for (const auto& c : item.value("codes", json::array())) {
    const std::string code = c.is_string() ? c.get<std::string>() : "";
    const IsolationCode* known = find_isolation_code(code);
    if (!known || known->operational)
      out.push_back({at + ".codes", "N10", "\"" + code + "\" is not a fault isolation code"});
    else
      rule.codes.push_back(code);
  }
  for (const auto& f : item.value("families", json::array())) {
    auto family = parse_fault_family(f.is_string() ? f.get<std::string>() : "");
    if (!family)
      out.push_back({at + ".families", "N10", "must be GPU, NPU, InfiniBand or Runtime"});
    else
      rule.families.push_back(*family);
  }
  if (rule.codes.empty() && rule.families.empty() && out.size() == said)
    out.push_back({at, "N10", "names at least one code or family"});
}

std::optional<RemediationRule> read_rule(const json& item, const std::string& at,
                                         std::vector<Violation>& out) {
  if (!item.is_object()) {
    out.push_back({at, "N10", "must be an object"});
    return std::nullopt;
  }
  RemediationRule rule;
  read_matchers(item, at, rule, out);
  if (auto a = item.find("after"); a != item.end()) {
    auto d = a->is_string() ? parse_duration(a->get<std::string>())
                            : std::unexpected(std::string("must be a duration such as 10m"));
    if (!d)
      out.push_back({at + ".after", "N11", d.error()});
    else if (*d < kMinRemediationAfter)
      out.push_back({at + ".after", "N11", "must be at least 30s (one check period)"});
    else
      rule.after = *d;
  }
  const json steps = item.value("steps", json::array());
  if (!steps.is_array() || steps.empty())
    out.push_back({at + ".steps", "N13", "lists at least one step"});
  for (std::size_t i = 0; steps.is_array() && i < steps.size(); ++i) {
    if (auto step = read_step(steps[i], at + ".steps[" + std::to_string(i) + "]", out))
      rule.steps.push_back(std::move(*step));
  }
  return rule;
}

}  // namespace

std::expected<std::optional<RemediationSpec>, std::vector<Violation>> check_remediation(
    const json& pool_spec) {
  auto it = pool_spec.find("remediation");
  if (it == pool_spec.end() || it->is_null()) return std::nullopt;
  std::vector<Violation> out;
  if (!it->is_object()) {
    out.push_back({"spec.remediation", "N10", "must be an object with rules"});
    return std::unexpected(std::move(out));
  }
  RemediationSpec spec;
  const json rules = it->value("rules", json::array());
  if (!rules.is_array() || rules.empty())
    out.push_back({"spec.remediation.rules", "N10", "lists at least one rule"});
  for (std::size_t i = 0; rules.is_array() && i < rules.size(); ++i) {
    const std::string at = "spec.remediation.rules[" + std::to_string(i) + "]";
    if (auto rule = read_rule(rules[i], at, out)) spec.rules.push_back(std::move(*rule));
  }
  if (auto m = it->find("maxUnhealthy"); m != it->end()) {
    auto parsed = parse_int_or_percent(*m);
    if (!parsed)
      out.push_back({"spec.remediation.maxUnhealthy", "N14", parsed.error()});
    else if (parsed->value < 0 || (parsed->percent && parsed->value > 100))
      out.push_back({"spec.remediation.maxUnhealthy", "N14", "must be 0 to 100% or a count"});
    else
      spec.max_unhealthy = *parsed;
  }
  if (auto d = it->find("dryRun"); d != it->end()) {
    if (!d->is_boolean())
      out.push_back({"spec.remediation.dryRun", "N16", "must be true or false"});
    else
      spec.dry_run = d->get<bool>();
  }
  if (!out.empty()) return std::unexpected(std::move(out));
  return spec;
}

}  // namespace respool::policy
