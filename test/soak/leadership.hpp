#pragma once
// No two leaders acting at once: every audit record a replica wrote (it writes them only while
// it reconciles) falls within a time it held the Lease, as the Lease's own history says
// (holderIdentity, acquireTime, leaseTransitions, seen by the soak's watch). A transition the
// watch missed (leaseTransitions jumped) leaves that stretch unjudged rather than misjudged.

#include <chrono>
#include <string>
#include <vector>

#include "test/soak/invariants.hpp"

namespace respool::soak {

struct LeaseTerm {
  std::string holder;
  Clock::time_point acquired;
  long transitions = 0;
  bool after_gap = false;  // the term before it was not seen
};

class LeaseHistory {
 public:
  // A Lease as the watch saw it; a new term when the holder or the acquireTime changed.
  void observe(const Json& lease);
  const std::vector<LeaseTerm>& terms() const { return terms_; }

 private:
  std::vector<LeaseTerm> terms_;
};

struct AuditRecord {
  std::string identity;  // the replica run that wrote it
  Clock::time_point time;
  std::string line;
};

// Reads a run's audit log: one record per JSON line with a "time".
std::vector<AuditRecord> read_audit(const std::string& path, const std::string& identity);

// Records written where their writer held the Lease at no moment within `slack` of them.
std::vector<Breach> leadership_breaches(const LeaseHistory& history,
                                        const std::vector<AuditRecord>& records,
                                        std::chrono::milliseconds slack);

}  // namespace respool::soak
