#pragma once
// The writes the workload controllers share: a status through /status, adoption and release of
// claimed objects; and the namespace index their informers carry and their watches' mappers.

#include <expected>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sandbox/simulator/cluster.hpp"
#include "sandbox/simulator/workload_util.hpp"

namespace respool::sandbox::sim {

// Objects by metadata.namespace (added before the informer starts; adding twice is harmless).
inline constexpr const char* kByNamespace = "namespace";
void add_namespace_index(ObjectInformer& informer);

// A watch mapper: the "ns/name" key of the `kind` that controls an object; none when another
// kind or nobody does.
std::function<std::vector<std::string>(const kube::Unstructured&)> controlled_by(std::string kind);
// The same key, but an orphan maps to every `owners` of its namespace whose selector
// (`selector_of` the owner) matches its labels: those that would adopt it. `owners` carries the
// namespace index.
std::vector<std::string> claimants(
    const kube::Unstructured& object, std::string_view kind, ObjectInformer& owners,
    const std::function<kube::LabelSelector(const Json&)>& selector_of);

// Writes `status` when it differs from the object's: a merge patch on /status, since the status
// is the controller's alone and derived from its caches (no resourceVersion guard, as the
// DaemonSet controller does). `metadata`, when not null, is merged into the same write (the
// Deployment controller records its revision annotation with its status, as the real one
// does through UpdateStatus). NotFound is not an error: the object went.
std::expected<void, std::string> write_status(kube::Client& client, const kube::Resource& resource,
                                              const Json& object, const Json& status,
                                              const Json& metadata = nullptr);

// Adopts and releases what claim_objects decided (guarded patches); returns the objects the
// owner holds now: those it owned and those it adopted. Failures are appended to `failures`.
std::vector<const Json*> settle_claims(kube::Client& client, const kube::Resource& resource,
                                       const Claimed& claimed, const Json& owner_reference,
                                       std::string& failures);

}  // namespace respool::sandbox::sim
