#include "test/soak/leadership.hpp"

#include <fstream>

#include "apimachinery/time.hpp"

namespace respool::soak {

void LeaseHistory::observe(const Json& lease) {
  const Json spec = lease.value("spec", Json::object());
  LeaseTerm term;
  term.holder = spec.value("holderIdentity", "");
  term.transitions = spec.value("leaseTransitions", 0L);
  term.acquired =
      apimachinery::parse_time(spec.value("acquireTime", "")).value_or(Clock::time_point{});
  if (!terms_.empty()) {
    const LeaseTerm& last = terms_.back();
    if (last.holder == term.holder && last.acquired == term.acquired) return;
    term.after_gap = term.transitions > last.transitions + 1;
  }
  terms_.push_back(std::move(term));
}

std::vector<AuditRecord> read_audit(const std::string& path, const std::string& identity) {
  std::vector<AuditRecord> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    const Json record = Json::parse(line, nullptr, false);
    if (!record.is_object() || !record.contains("time")) continue;
    auto at = apimachinery::parse_time(record.value("time", ""));
    if (at) out.push_back({identity, *at, line});
  }
  return out;
}

namespace {

// Whether `identity` held the Lease at some moment in [from, to]: a term runs from its
// acquireTime to the next term's.
bool held_within(const std::vector<LeaseTerm>& terms, const std::string& identity,
                 Clock::time_point from, Clock::time_point to, bool& unknown) {
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const auto begin = terms[i].acquired;
    const auto end = i + 1 < terms.size() ? terms[i + 1].acquired : Clock::time_point::max();
    if (end < from || begin > to) continue;
    if (terms[i].holder == identity) return true;
    if (i + 1 < terms.size() && terms[i + 1].after_gap) unknown = true;
  }
  return false;
}

}  // namespace

std::vector<Breach> leadership_breaches(const LeaseHistory& history,
                                        const std::vector<AuditRecord>& records,
                                        std::chrono::milliseconds slack) {
  std::vector<Breach> out;
  const auto& terms = history.terms();
  for (const auto& r : records) {
    bool unknown = false;
    // Audit times are whole seconds: the write was within the second after.
    if (held_within(terms, r.identity, r.time - slack, r.time + std::chrono::seconds(1) + slack,
                    unknown) ||
        unknown) {
      continue;
    }
    out.push_back(
        {"leader",
         r.identity + " wrote an audit record while it did not hold the Lease: " + r.line});
  }
  return out;
}

}  // namespace respool::soak
