#pragma once
// What goes wrong during the soak, one seeded step at a time: a replica SIGKILLed (the leader
// most often, so that the other takes over through the Lease) and started again a moment
// later, and the API server's faults: bursts of 429s, 500s and 409s, slow responses, every
// watch dropped, watches answered 410.

#include <map>
#include <string>

#include "sandbox/apiserver/handlers/faults.hpp"
#include "test/soak/replicas.hpp"
#include "test/soak/rng.hpp"

namespace respool::soak {

class Chaos {
 public:
  Chaos(Replicas& replicas, sandbox::FaultInjector& faults, Rng rng);
  // A kill of one replica (restarted after a moment) when `kill`, else one API fault.
  // `leader` is the Lease's holderIdentity now.
  void step(bool kill, const std::string& leader);
  // Every replica running, every fault cleared.
  void calm();
  const std::map<std::string, int>& injected() const { return injected_; }

 private:
  void kill_one(const std::string& leader);
  void api_fault();

  Replicas& replicas_;
  sandbox::FaultInjector& faults_;
  Rng rng_;
  std::map<std::string, int> injected_;
};

}  // namespace respool::soak
