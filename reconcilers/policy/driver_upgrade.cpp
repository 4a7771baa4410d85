#include "reconcilers/policy/driver_upgrade.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "reconcilers/policy/enum_words.hpp"

namespace respool::policy {

namespace {

constexpr EnumWords<UpgradeState, 10> kUpgradeStateNames{{
    {UpgradeState::None, ""},
    {UpgradeState::Required, "upgrade-required"},
    {UpgradeState::CordonRequired, "cordon-required"},
    {UpgradeState::WaitForJobsRequired, "wait-for-jobs-required"},
    {UpgradeState::PodDeletionRequired, "pod-deletion-required"},
    {UpgradeState::DriverRestartRequired, "driver-restart-required"},
    {UpgradeState::ValidationRequired, "validation-required"},
    {UpgradeState::UncordonRequired, "uncordon-required"},
    {UpgradeState::Done, "upgrade-done"},
    {UpgradeState::Failed, "upgrade-failed"},
}};

bool driver_validated(const UpgradeNode& n) {
  return n.driver_pod && !n.driver_pod->deleting && n.driver_pod->version == n.target &&
         n.driver_pod->ready && n.running == n.target;
}

// What validation saw, for the failure's message.
std::string validation_seen(const UpgradeNode& n) {
  if (!n.driver_pod) return "no driver pod on the node";
  std::string out = "driver pod " + n.driver_pod->name + " (" + n.driver_pod->version + ") ";
  out += n.driver_pod->ready ? "Ready" : "not Ready";
  out += "; the node's respool.io/driver-version is " +
         (n.running.empty() ? std::string("unset") : "\"" + n.running + "\"");
  return out;
}

std::string seconds_words(std::chrono::seconds s) {
  return std::to_string(s.count()) + "s";
}

class UpgradePlanner {
 public:
  UpgradePlanner(const UpgradeSettings& settings, TimePoint now) : s_(settings), now_(now) {}

  // Steps that need no slot: a node moves on through the machine, or is marked.
  std::optional<UpgradeStep> advance(const UpgradeNode& n) {
    const bool at_target = n.running == n.target;
    switch (n.state) {
      case UpgradeState::None:
      case UpgradeState::Done:
        if (at_target || n.skip) return std::nullopt;
        return step(n, UpgradeState::Required);
      case UpgradeState::Required:
        if (n.skip) return step(n, UpgradeState::None);
        if (at_target && driver_validated(n)) return step(n, UpgradeState::Done);
        if (n.admitting && n.driver_pod && !n.driver_pod->deleting &&
            n.driver_pod->version != n.target) {
          UpgradeStep s = step(n, n.state);
          s.action = UpgradeAction::DeleteDriverPod;
          return s;
        }
        return std::nullopt;  // waits for a slot (admission: for its driver to validate)
      case UpgradeState::CordonRequired:
        return step(n, s_.mode == UpgradeMode::Secure ? UpgradeState::WaitForJobsRequired
                                                      : UpgradeState::PodDeletionRequired);
      case UpgradeState::WaitForJobsRequired:
        if (n.jobs > 0) return std::nullopt;  // D1: its jobs finish first
        return step(n, UpgradeState::DriverRestartRequired);
      case UpgradeState::PodDeletionRequired:
        if (n.jobs > 0) {
          UpgradeStep s = step(n, n.state);
          s.action = UpgradeAction::DeleteJobPods;
          return s;
        }
        return step(n, UpgradeState::DriverRestartRequired);
      case UpgradeState::DriverRestartRequired: {
        UpgradeStep s = step(n, UpgradeState::ValidationRequired);
        if (n.driver_pod && !n.driver_pod->deleting && n.driver_pod->version != n.target)
          s.action = UpgradeAction::DeleteDriverPod;
        return s;
      }
      case UpgradeState::ValidationRequired: {
        if (driver_validated(n)) return step(n, UpgradeState::UncordonRequired);
        // Retargeted while it validated: its pod is of another version; restart it again.
        if (n.driver_pod && !n.driver_pod->deleting && n.driver_pod->version != n.target)
          return step(n, UpgradeState::DriverRestartRequired);
        const TimePoint due = (n.since ? *n.since : now_) + s_.validation_timeout;
        if (now_ < due) {
          due_at(due);
          return std::nullopt;
        }
        UpgradeStep s = step(n, UpgradeState::Failed);
        s.reason = "ValidationTimeout";
        s.message = "the driver " + n.target + " was not validated within " +
                    seconds_words(s_.validation_timeout) + ": " + validation_seen(n);
        return s;
      }
      case UpgradeState::UncordonRequired:
        return step(n, UpgradeState::Done);
      case UpgradeState::Failed:
        if (driver_validated(n)) return step(n, UpgradeState::UncordonRequired);  // it recovered
        return std::nullopt;  // a retry takes a slot
    }
    return std::nullopt;
  }

  // A failed node's retry, when its interval has passed and retries are left.
  bool retry_due(const UpgradeNode& n) {
    if (n.state != UpgradeState::Failed || n.attempts >= s_.retry_limit) return false;
    const TimePoint due = (n.since ? *n.since : now_) + s_.retry_interval;
    if (now_ >= due) return true;
    due_at(due);
    return false;
  }

  UpgradeStep step(const UpgradeNode& n, UpgradeState to) const {
    return UpgradeStep{n.name, n.state, to, UpgradeAction::None, "", ""};
  }
  void due_at(TimePoint t) {
    if (!next_ || t < *next_) next_ = t;
  }
  std::optional<TimePoint> next() const { return next_; }

 private:
  const UpgradeSettings& s_;
  TimePoint now_;
  std::optional<TimePoint> next_;
};

void count_node(UpgradeCounts& c, const UpgradeNode& n, UpgradeState state) {
  if (in_flight(state)) {
    ++c.upgrading;
  } else if (state == UpgradeState::Failed) {
    ++c.failed;
  } else if (state == UpgradeState::Required ||
             ((state == UpgradeState::None || state == UpgradeState::Done) && !n.skip &&
              n.running != n.target)) {
    ++c.pending;
  } else if (n.running == n.target) {
    ++c.upgraded;
  }
}

}  // namespace

std::string_view to_string(UpgradeState state) {
  return word_of(kUpgradeStateNames, state);
}

UpgradeState parse_upgrade_state(std::string_view label) {
  return value_of(kUpgradeStateNames, label).value_or(UpgradeState::Required);
}

bool in_flight(UpgradeState state) {
  switch (state) {
    case UpgradeState::CordonRequired:
    case UpgradeState::WaitForJobsRequired:
    case UpgradeState::PodDeletionRequired:
    case UpgradeState::DriverRestartRequired:
    case UpgradeState::ValidationRequired:
    case UpgradeState::UncordonRequired:
      return true;
    default:
      return false;
  }
}

int batch_size(const std::optional<IntOrPercent>& max_unavailable, int pool_nodes) {
  if (!max_unavailable) return std::max(1, pool_nodes);
  return max_unavailable->of_rounding_up(pool_nodes);
}

UpgradePlan plan_upgrade(std::span<const UpgradeNode> nodes, const UpgradeSettings& settings,
                         TimePoint now) {
  UpgradePlanner planner(settings, now);
  UpgradePlan plan;
  std::vector<UpgradeState> after;
  after.reserve(nodes.size());
  for (const UpgradeNode& n : nodes) {
    auto s = planner.advance(n);
    after.push_back(s ? s->to : n.state);
    if (s) plan.steps.push_back(std::move(*s));
  }

  // The slots: the batch, less what is between cordon and uncordon (after this round's steps:
  // a node that uncordons now frees its slot only once that is written, next round), less the
  // unavailable nodes that are not.
  int taken = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (in_flight(nodes[i].state) || in_flight(after[i]) || !nodes[i].healthy) ++taken;
  }
  plan.slots = std::max(0, settings.batch - taken);

  // Handed out in name order (the caller's), retries first: they have waited longest.
  for (int pass = 0; pass < 2 && plan.slots > 0; ++pass) {
    for (std::size_t i = 0; i < nodes.size() && plan.slots > 0; ++i) {
      const UpgradeNode& n = nodes[i];
      if (!n.healthy || n.held || after[i] != n.state) continue;
      if (pass == 0 && planner.retry_due(n)) {
        plan.steps.push_back(planner.step(n, UpgradeState::DriverRestartRequired));
      } else if (pass == 1 && n.state == UpgradeState::Required && !n.skip) {
        plan.steps.push_back(planner.step(n, UpgradeState::CordonRequired));
      } else {
        continue;
      }
      after[i] = plan.steps.back().to;
      --plan.slots;
    }
  }
  for (std::size_t i = 0; i < nodes.size(); ++i)
    count_node(plan.counts, nodes[i], after[i]);
  plan.next_check = planner.next();
  return plan;
}

}  // namespace respool::policy
