#include "reconcilers/audit_ahead.hpp"

#include "reconcilers/context.hpp"

namespace respool::reconcilers {

bool AuditAhead::write(const std::string& object, const std::string& change,
                       const std::string& line) {
  std::lock_guard lock(mu_);
  auto [at, fresh] = written_.try_emplace(object, change);
  if (!fresh) {
    if (at->second == change) return false;
    at->second = change;
  }
  write_audit(line);
  return true;
}

void AuditAhead::forget(const std::string& object) {
  std::lock_guard lock(mu_);
  written_.erase(object);
}

}  // namespace respool::reconcilers
