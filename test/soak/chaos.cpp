#include "test/soak/chaos.hpp"

#include <chrono>
#include <thread>
#include <vector>

namespace respool::soak {

using namespace std::chrono_literals;

Chaos::Chaos(Replicas& replicas, sandbox::FaultInjector& faults, Rng rng)
    : replicas_(replicas), faults_(faults), rng_(std::move(rng)) {}

void Chaos::step(bool kill, const std::string& leader) {
  // A replica that stopped by itself (a lost Lease exits 1, by design) is started again.
  for (int slot = 0; slot < replicas_.count(); ++slot) {
    if (!replicas_.running(slot)) {
      replicas_.start(slot);
      injected_["restart after its own exit"]++;
    }
  }
  if (kill) return kill_one(leader);
  api_fault();
}

void Chaos::kill_one(const std::string& leader) {
  std::optional<int> slot;
  if (rng_.chance(0.7) && !leader.empty()) slot = replicas_.slot_of(leader);
  const bool of_leader = slot.has_value();
  if (!slot) slot = rng_.between(0, replicas_.count() - 1);
  replicas_.kill(*slot);
  injected_[of_leader ? "SIGKILL of the leader" : "SIGKILL of a replica"]++;
  std::this_thread::sleep_for(std::chrono::milliseconds(rng_.between(500, 4000)));
  replicas_.start(*slot);
}

void Chaos::api_fault() {
  using Action = sandbox::FaultRule::Action;
  const std::vector<std::string> any = {
      "*", "nodes", "pods", "resourcepools", "nodeoperations", "leases", "jobs"};
  const std::vector<std::string> respool = {"resourcepools", "nodeoperations", "leases"};
  const std::vector<std::string> verbs = {"get", "list", "update", "patch", "create"};
  auto fail = [&](std::string verb, std::string resource, Action action, int count,
                  const char* what) {
    faults_.fail_next({std::move(verb), std::move(resource), action, count, 1});
    injected_[what] += count;
  };
  switch (rng_.weighted({4, 3, 2, 2, 2, 1})) {
    case 0:
      fail("*", rng_.pick(any), Action::TooManyRequests, rng_.between(3, 10), "429s");
      break;
    case 1:
      fail(rng_.pick(verbs), rng_.pick(respool), Action::ServerError, rng_.between(1, 4), "500s");
      break;
    case 2:
      fail(rng_.chance(0.5) ? "update" : "patch", rng_.pick(respool), Action::Conflict,
           rng_.between(1, 2), "409s");
      break;
    case 3: {
      const std::string resource = rng_.pick(any);
      faults_.set_latency(std::chrono::milliseconds(rng_.between(200, 800)), "*", resource);
      std::this_thread::sleep_for(std::chrono::milliseconds(rng_.between(2000, 6000)));
      faults_.set_latency(0ms, "*", resource);
      injected_["slow stretches"]++;
      break;
    }
    case 4:
      faults_.close_watches();
      injected_["every watch dropped"]++;
      break;
    default:
      faults_.expire_next_watches(2);
      injected_["watches answered 410"] += 2;
      break;
  }
}

void Chaos::calm() {
  faults_.clear();
  for (int slot = 0; slot < replicas_.count(); ++slot)
    if (!replicas_.running(slot)) replicas_.start(slot);
}

}  // namespace respool::soak
