#pragma once
// The DaemonSets respool renders and owns, plug-ins and drivers alike: created when missing,
// replaced (guarded by the cached resourceVersion) when their rendering changed, removed when
// no longer wanted. The rendering's hash rides in an annotation, so a round that renders the
// same manifest writes nothing.

#include <memory>
#include <string>
#include <string_view>

#include "operator/kube/client.hpp"
#include "operator/runtime/informer.hpp"
#include "reconcilers/reconcile_error.hpp"

namespace respool::reconcilers {

struct RenderedDaemonSet {
  std::string namespace_name, name;
  kube::Json manifest;
  std::string_view what;  // for errors: "plug-in", "driver DaemonSet"
};

struct DaemonSetSync {
  bool written = false;  // created or replaced: its status is not the new rendering's yet
  std::shared_ptr<const kube::Unstructured> current;  // the cached object, when it matched
};

// `cache` holds respool's DaemonSets; `hash_annotation` names the annotation that carries the
// rendering's hash (one per kind of DaemonSet, as the objects in clusters already carry it).
Outcome<DaemonSetSync> sync_daemonset(kube::Client& client,
                                      const runtime::Informer<kube::Unstructured>& cache,
                                      const RenderedDaemonSet& wanted,
                                      std::string_view hash_annotation);

// Removes one (already gone is no failure).
Outcome<void> remove_daemonset(kube::Client& client, const std::string& namespace_name,
                               const std::string& name, std::string_view what);

}  // namespace respool::reconcilers
