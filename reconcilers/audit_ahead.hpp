#pragma once
// A1's records of changes that a later API write acknowledges (a status's observedGeneration,
// the removal of a finalizer). The record is written ahead of that write: written after it, an
// operator killed between the answer and the record (the soak does this) left the change with
// no record at all, and the next run, seeing it acknowledged, wrote none either. Ahead, a run
// killed in between leaves the record, and its successor may write it once more: a record
// twice, never none. Within one run, the retries after a failed write (a 409, a 429) do not
// repeat it: each object's last record is remembered by its uid, operation and generation.

#include <map>
#include <mutex>
#include <string>

#include "operator/kube/objects.hpp"
#include "reconcilers/policy/audit.hpp"

namespace respool::reconcilers {

class AuditAhead {
 public:
  // Writes `record` to the audit stream unless this run already wrote `operation` for this
  // version of the object (its uid and generation). Returns whether it wrote.
  bool write(const kube::ObjectMeta& object, const policy::AuditRecord& record);
  // The object is gone: its last record need not be remembered.
  void forget(const std::string& object);

 private:
  std::mutex mu_;
  std::map<std::string, std::string> written_;  // object -> its last change written
};

}  // namespace respool::reconcilers
