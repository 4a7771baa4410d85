#pragma once
// respool's finalizer on one of its objects, as kube-rs's finalizer() helper: added while the
// object must be kept, removed when it may go, by one merge patch guarded by the observed
// resourceVersion, and nothing written when the object is already as wanted.

#include <string_view>

#include "operator/kube/client.hpp"
#include "operator/kube/objects.hpp"
#include "reconcilers/reconcile_error.hpp"

namespace respool::reconcilers {

bool has_finalizer(const kube::ObjectMeta& meta, std::string_view finalizer);

enum class FinalizerWrite {
  Unchanged,  // already as wanted: nothing written
  Written,    // the update event brings the object back
  Conflict,   // 409: the next round, from a newer cache, decides again
  Gone,       // 404: the object is gone already
};

Outcome<FinalizerWrite> set_finalizer(kube::Client& client, const kube::Resource& resource,
                                      const kube::Unstructured& object, std::string_view finalizer,
                                      bool present);

}  // namespace respool::reconcilers
