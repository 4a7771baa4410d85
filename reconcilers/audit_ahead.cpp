#include "reconcilers/audit_ahead.hpp"

#include "reconcilers/context.hpp"

namespace respool::reconcilers {

bool AuditAhead::write(const kube::ObjectMeta& object, const policy::AuditRecord& record) {
  const std::string change = object.uid.str() + " " +
                             std::string(policy::to_string(record.operation)) + " " +
                             std::to_string(object.generation);
  std::lock_guard lock(mu_);
  auto [at, fresh] = written_.try_emplace(object.name, change);
  if (!fresh) {
    if (at->second == change) return false;
    at->second = change;
  }
  write_audit(policy::audit_line(record));
  return true;
}

void AuditAhead::forget(const std::string& object) {
  std::lock_guard lock(mu_);
  written_.erase(object);
}

}  // namespace respool::reconcilers
