#include "reconcilers/policy/driver_upgrade_record.hpp"

#include <algorithm>

namespace respool::policy {

namespace {

Record* running(std::vector<Record>& records) {
  for (Record& r : records)
    if (r.operation == Operation::UpgradeDriver && r.phase == RecordPhase::Running) return &r;
  return nullptr;
}

// The latest step naming `node`, or nullptr.
const RecordStep* last_step_of(const Record& r, const std::string& node) {
  for (auto it = r.steps.rbegin(); it != r.steps.rend(); ++it)
    if (it->node == node) return &*it;
  return nullptr;
}

// The target the record last announced (its Started or Retargeted step).
std::string announced_target(const Record& r) {
  for (auto it = r.steps.rbegin(); it != r.steps.rend(); ++it)
    if (it->node.empty() && (it->step == kStepStarted || it->step == kStepRetargeted))
      return it->message;
  return {};
}

bool is(const RecordStep* s, const char* name) {
  return s && s->step == name;
}

// Whether an earlier UpgradeDriver record than `r` already has this step of the node at this
// time. Label times have whole seconds: a node that finished in the second the last record
// ended, and a new record began (a replacement claimed then), is not news to the new one.
bool told_before(const std::vector<Record>& records, const Record& r, const std::string& node,
                 const char* step, TimePoint time) {
  for (const Record& other : records) {
    if (&other == &r || other.operation != Operation::UpgradeDriver) continue;
    for (const RecordStep& s : other.steps)
      if (s.node == node && s.step == step && s.time == time) return true;
  }
  return false;
}

// The node's next step, if what its labels say is news to the record.
std::optional<RecordStep> node_step(const std::vector<Record>& records, const Record& r,
                                    const UpgradedNode& u, TimePoint now) {
  const UpgradeNode& n = u.node;
  const RecordStep* last = last_step_of(r, n.name);
  const TimePoint since = n.since.value_or(now);
  if (in_flight(n.state) || n.state == UpgradeState::Required) {
    if (is(last, kStepNodeStarted) || is(last, kStepNodeRetried)) return std::nullopt;
    if (n.state == UpgradeState::Required) return std::nullopt;  // marked, not started yet
    return RecordStep{is(last, kStepNodeFailed) ? kStepNodeRetried : kStepNodeStarted, now, n.name,
                      std::string(to_string(n.state))};
  }
  if (n.state == UpgradeState::Done && n.running == n.target && since >= r.start) {
    if (is(last, kStepNodeUpgraded) || told_before(records, r, n.name, kStepNodeUpgraded, since))
      return std::nullopt;
    return RecordStep{kStepNodeUpgraded, since, n.name, n.running};
  }
  if (n.state == UpgradeState::Failed && since >= r.start) {
    if (is(last, kStepNodeFailed) || told_before(records, r, n.name, kStepNodeFailed, since))
      return std::nullopt;
    return RecordStep{kStepNodeFailed, since, n.name, u.failure};
  }
  return std::nullopt;
}

std::string failed_words(const DriverProgress& p) {
  std::string names;
  for (const FailedUpgrade& f : p.failed)
    names += (names.empty() ? "" : ", ") + f.name + " (" + f.reason + ")";
  return names;
}

}  // namespace

std::optional<EndedRecord> track_driver_record(std::vector<Record>& records,
                                               const DriverRecordRound& round, TimePoint now) {
  const DriverProgress& p = *round.progress;
  const bool retries_due = std::any_of(round.nodes.begin(), round.nodes.end(), [&](const auto& u) {
    return u.node.state == UpgradeState::Failed && u.node.attempts < round.retry_limit;
  });
  Record* r = running(records);
  if (!r) {
    if (!p.upgrading) return std::nullopt;
    begin_record(records, Operation::UpgradeDriver, now, "upgrading to the " + round.target);
    add_step(records, Operation::UpgradeDriver, {kStepStarted, now, "", round.target});
    r = running(records);
  } else if (announced_target(*r) != round.target) {
    add_step(records, Operation::UpgradeDriver, {kStepRetargeted, now, "", round.target});
    r->message = "upgrading to the " + round.target;
  }
  std::vector<std::string> touched;
  for (const UpgradedNode& u : round.nodes) {
    if (u.node.target.empty()) continue;
    if (auto step = node_step(records, *r, u, now)) {
      touched.push_back(u.node.name);
      add_step(records, Operation::UpgradeDriver, std::move(*step));
    }
  }
  note_nodes(records, Operation::UpgradeDriver, touched);
  if (p.upgrading || retries_due) return std::nullopt;
  if (p.failed.empty()) {
    end_record(records, Operation::UpgradeDriver, RecordPhase::Succeeded, now,
               "every node runs the " + round.target + " (" + std::to_string(p.counts.upgraded) +
                   " upgraded)");
    return EndedRecord{"UpgradeDriver", "Succeeded"};
  }
  end_record(records, Operation::UpgradeDriver, RecordPhase::Failed, now,
             "the upgrade to the " + round.target + " failed on " + failed_words(p) + "; " +
                 std::to_string(p.counts.upgraded) + " upgraded");
  return EndedRecord{"UpgradeDriver", "Failed"};
}

}  // namespace respool::policy
