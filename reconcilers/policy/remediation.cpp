#include "reconcilers/policy/remediation.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "reconcilers/policy/json_read.hpp"
#include "reconcilers/policy/node_state.hpp"
#include "reconcilers/policy/time.hpp"

namespace respool::policy {

namespace {

constexpr std::array<std::string_view, 4> kFamilies{"GPU", "NPU", "InfiniBand", "Runtime"};

}  // namespace

std::string_view to_string(FaultFamily family) {
  return kFamilies[static_cast<std::size_t>(family)];
}

std::optional<FaultFamily> parse_fault_family(std::string_view text) {
  for (std::size_t i = 0; i < kFamilies.size(); ++i)
    if (kFamilies[i] == text) return static_cast<FaultFamily>(i);
  return std::nullopt;
}

std::optional<FaultFamily> family_of(std::string_view code) {
  const IsolationCode* known = find_isolation_code(code);
  if (!known || known->operational) return std::nullopt;
  const std::string_view c = known->category;
  if (c == "GPU" || c == "GPU memory") return FaultFamily::GPU;
  if (c == "NPU" || c == "NPU link" || c == "NPU memory") return FaultFamily::NPU;
  if (c == "IB link") return FaultFamily::InfiniBand;
  if (c == "runtime") return FaultFamily::Runtime;
  return std::nullopt;
}

bool RemediationRule::matches(std::string_view code) const {
  if (std::find(codes.begin(), codes.end(), code) != codes.end()) return true;
  auto family = family_of(code);
  return family && std::find(families.begin(), families.end(), *family) != families.end();
}

std::chrono::seconds remediation_backoff(int attempts) {
  std::chrono::seconds wait = std::chrono::minutes(1);
  for (int i = 1; i < attempts && wait < std::chrono::hours(1); ++i)
    wait *= 2;
  return std::min<std::chrono::seconds>(wait, std::chrono::hours(1));
}

std::string remediation_operation_name(std::string_view node, std::string_view code, int step,
                                       int attempt) {
  std::string lower(code);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  const std::string suffix =
      "-" + lower + "-" + std::to_string(step + 1) + "-" + std::to_string(attempt);
  // Object names are DNS subdomains of at most 253 characters; node names are too, so the
  // node's part is cut to leave room for the prefix and the suffix.
  std::string middle(node.substr(0, 253 - 5 - suffix.size()));
  return "auto-" + middle + suffix;
}

nlohmann::json to_json(const std::vector<NodeRemediation>& nodes) {
  nlohmann::json out = nlohmann::json::array();
  for (const NodeRemediation& n : nodes) {
    nlohmann::json item = {{"node", n.node},
                           {"code", n.code},
                           {"since", format_time(n.since)},
                           {"step", n.step},
                           {"attempts", n.attempts}};
    if (n.step_start) item["stepStart"] = format_time(*n.step_start);
    if (n.retry_at) item["retryAt"] = format_time(*n.retry_at);
    if (n.exhausted) item["exhausted"] = true;
    out.push_back(std::move(item));
  }
  return out;
}

std::vector<NodeRemediation> node_remediations_from_json(const nlohmann::json& array) {
  std::vector<NodeRemediation> out;
  if (!array.is_array()) return out;
  for (const auto& item : array) {
    if (!item.is_object()) continue;
    auto since = json_read::time_at(item, "since");
    NodeRemediation n{json_read::string_at(item, "node"), json_read::string_at(item, "code")};
    if (n.node.empty() || n.code.empty() || !since) continue;  // lenient: skipped, not guessed
    n.since = *since;
    n.step = json_read::int_at(item, "step");
    n.attempts = json_read::int_at(item, "attempts");
    n.step_start = json_read::time_at(item, "stepStart");
    n.retry_at = json_read::time_at(item, "retryAt");
    n.exhausted = json_read::bool_at(item, "exhausted");
    out.push_back(std::move(n));
  }
  return out;
}

namespace {

struct Match {
  const RemediationRule* rule = nullptr;
  std::string code;
};

// N10: the first rule (in order) that one of the node's codes matches; the code is the node's
// first that rule matches.
Match match(const RemediationSpec& spec, const std::vector<std::string>& codes) {
  for (const RemediationRule& rule : spec.rules)
    for (const std::string& code : codes)
      if (rule.matches(code)) return {&rule, code};
  return {};
}

// N14: more abnormal nodes than maxUnhealthy allows (exactly at it: not paused).
bool breaker_open(const IntOrPercent& max, int abnormal, int total) {
  if (max.percent) return static_cast<long>(abnormal) * 100 > static_cast<long>(max.value) * total;
  return abnormal > max.value;
}

std::string share_words(int abnormal, int total, const IntOrPercent& max) {
  const int percent = total > 0 ? abnormal * 100 / total : 0;
  return std::to_string(abnormal) + " of " + std::to_string(total) + " nodes abnormal (" +
         std::to_string(percent) + "%), more than maxUnhealthy " + max.to_string();
}

class Round {
 public:
  explicit Round(const RemediationInput& in) : in_(in) {}

  RemediationPlan run() {
    int abnormal = 0;
    for (const auto& n : in_.nodes)
      abnormal += n.abnormal;
    const int total = static_cast<int>(in_.nodes.size());
    plan_.paused = breaker_open(in_.spec->max_unhealthy, abnormal, total);
    if (plan_.paused) plan_.paused_message = share_words(abnormal, total, in_.spec->max_unhealthy);
    std::vector<const RemediationNode*> nodes;
    for (const auto& n : in_.nodes)
      nodes.push_back(&n);
    std::sort(nodes.begin(), nodes.end(), [](auto* a, auto* b) { return a->name < b->name; });
    for (const RemediationNode* n : nodes)
      node(*n);
    return std::move(plan_);
  }

 private:
  void node(const RemediationNode& n) {
    const Match m = match(*in_.spec, n.fault_codes);
    if (!m.rule) return;  // no fault a rule names (or it cleared): nothing is kept (N11)
    NodeRemediation r = remembered(n.name, m.code);
    decide(n, *m.rule, r);
    plan_.memory.push_back(std::move(r));
  }

  // What the status kept for the node's fault; a fault of another code starts afresh.
  NodeRemediation remembered(const std::string& node, const std::string& code) const {
    for (const NodeRemediation& r : in_.memory)
      if (r.node == node && r.code == code) return r;
    return NodeRemediation{node, code, in_.now};
  }

  void say(const NodeRemediation& r, std::string state, std::string message,
           std::optional<TimePoint> next = std::nullopt) {
    plan_.nodes.push_back({r.node, r.code, std::move(state), std::move(message), next});
    if (next && (!plan_.next_check || *next < *plan_.next_check)) plan_.next_check = next;
  }

  void decide(const RemediationNode& n, const RemediationRule& rule, NodeRemediation& r) {
    if (r.exhausted) return say(r, "Exhausted", exhausted_words(rule));
    if (n.person_operation)
      return say(r, "Held", "in NodeOperation " + *n.person_operation + "; waits for it");
    const auto current = current_operation(n, r);
    if (current && !current->ended()) {
      // A Pending operation waits for the budget (N1, N2) or a slot (N5): said with its reason.
      const std::string waits = current->phase == "Pending" && !current->reason.empty()
                                    ? " (Pending: " + current->reason + ")"
                                    : "";
      return say(r, "Running", step_words(rule, r) + ": NodeOperation " + current->name + waits);
    }
    const TimePoint due = r.since + rule.after;
    if (in_.now < due)
      return say(r, "Waiting", "the fault must last " + duration_words(rule.after), due);
    if (current && !advance(rule, r, *current)) return;
    if (r.step >= static_cast<int>(rule.steps.size())) {
      r.exhausted = true;
      return say(r, "Exhausted", exhausted_words(rule));
    }
    if (plan_.paused) return say(r, "Paused", plan_.paused_message);
    if (in_.driver_upgrading) return say(r, "Held", "the pool's driver is being upgraded (N6)");
    start(rule, r);
  }

  // The automatic operation of the node's current step and attempt, if it exists.
  static std::optional<AutomaticOperation> current_operation(const RemediationNode& n,
                                                             const NodeRemediation& r) {
    if (!n.automatic || n.automatic->step != r.step || n.automatic->attempt != r.attempts)
      return std::nullopt;
    return n.automatic;
  }

  // After the step's operation ended with the fault still there: true when the next action is
  // due now (r says which), false when it waits (said).
  bool advance(const RemediationRule& rule, NodeRemediation& r, const AutomaticOperation& op) {
    const RemediationStep& step = rule.steps[r.step];
    if (op.phase == "Previewed") {
      // N16: a dry run shows the step and goes no further; once dryRun is off, the step runs
      // for real (a new attempt, so a new operation beside the preview).
      if (!in_.spec->dry_run) return true;
      say(r, "Previewed", step_words(rule, r) + " previewed: NodeOperation " + op.name);
      return false;
    }
    // A Reset that ended with the node still abnormal (AbnormalAfterReset) did its work: the
    // fault may yet clear once the node agent checks again, within the step's timeout (N13).
    const bool succeeded =
        op.phase == "Succeeded" || (op.phase == "Failed" && op.reason == "AbnormalAfterReset");
    if (!succeeded && step.action == NodeOperationType::Replace) {
      // N15: no idle node, a refused admission: the same step again, after a growing back-off.
      if (!r.retry_at) r.retry_at = in_.now + remediation_backoff(r.attempts);
      if (in_.now < *r.retry_at) {
        say(r, "Retrying",
            step_words(rule, r) + " " + op.phase +
                (op.reason.empty() ? "" : " (" + op.reason + ")") + "; tried again at " +
                format_time(*r.retry_at),
            *r.retry_at);
        return false;
      }
      r.retry_at.reset();
      return true;
    }
    // N13: a reset that did not clear the fault within its step's timeout escalates.
    const TimePoint escalate = r.step_start.value_or(in_.now) + step.timeout;
    if (succeeded && in_.now < escalate) {
      say(r, "Escalating",
          step_words(rule, r) + " done, the fault remains; the next step at " +
              format_time(escalate),
          escalate);
      return false;
    }
    ++r.step;
    r.attempts = 0;
    r.step_start.reset();
    r.retry_at.reset();
    return true;
  }

  void start(const RemediationRule& rule, NodeRemediation& r) {
    ++r.attempts;
    r.step_start = in_.now;
    plan_.create.push_back(
        {r.node, r.code, r.step, r.attempts, rule.steps[r.step], in_.spec->dry_run});
    say(r, "Running", step_words(rule, r) + " starts");
  }

  static std::string step_words(const RemediationRule& rule, const NodeRemediation& r) {
    const int step = std::min<int>(r.step, static_cast<int>(rule.steps.size()) - 1);
    return "step " + std::to_string(step + 1) + " of " + std::to_string(rule.steps.size()) + " (" +
           std::string(to_string(rule.steps[step].action)) + ")";
  }

  static std::string exhausted_words(const RemediationRule& rule) {
    return "every step of its rule (" + std::to_string(rule.steps.size()) +
           ") is done and the fault remains: left to an administrator";
  }

  static std::string duration_words(std::chrono::seconds d) {
    return std::to_string(d.count()) + "s";
  }

  const RemediationInput& in_;
  RemediationPlan plan_;
};

}  // namespace

RemediationPlan plan_remediation(const RemediationInput& input) {
  if (!input.spec) return {};
  return Round(input).run();
}

}  // namespace respool::policy
