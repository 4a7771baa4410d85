#pragma once
// Per-kind semantics of the built-in types, as their registry strategies in kube-apiserver have
// them: server-set fields and defaults on create, what the main and /status endpoints may
// change, conversions, validation and the fields a field selector may use.

#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "operator/runtime/clock.hpp"
#include "sandbox/apiserver/errors.hpp"
#include "sandbox/apiserver/registry/registry.hpp"

namespace respool::sandbox::kinds {

// Checks the JSON types of metadata (and of the few typed fields served) as Go's decoder would:
// a 400 BadRequest naming the field, or nothing.
std::optional<ApiError> decode_check(const ResourceType& type, const Json& obj);

// Defaults and server-set fields of a new object (namespace finalizers and phase, pod status
// Pending and spec defaults, Job selector, Service cluster IP, ...).
void prepare_create(const ResourceType& type, Json& obj, runtime::TimePoint now);
// What a built-in kind's row declares (strategies/builtin.cpp): its defaults and pod-template
// defaults, applied to every object written (as decoding defaults them), and the status a create
// starts from.
void apply_defaults(const ResourceType& type, Json& obj);
void start_status(const ResourceType& type, Json& obj);
// The pod defaults of `parent`'s "template" (a pod template spec).
void default_pod_template(Json& parent);
// A type's objects as stored (for types shown converted: events.k8s.io/v1 Events, autoscaling/v1
// HorizontalPodAutoscalers) and back.
Json to_storage(const ResourceType& type, const Json& obj);
Json from_storage(const ResourceType& type, const Json& stored);

// An update through the main endpoint: what it may not change is taken from `old`.
void prepare_update(const ResourceType& type, Json& obj, const Json& old);
// An update through /status: only status (and, for built-ins, metadata) is taken from `obj`.
void prepare_status_update(const ResourceType& type, Json& obj, const Json& old);

// Validation of built-in kinds (names, labels, immutable fields, Lease spec). For custom
// resources only the metadata rules apply here; the schema is checked elsewhere.
std::vector<Cause> validate(const ResourceType& type, const Json& obj, const Json* old);

// What a kind adds to the engine's generic create and update beside the functions above, as its
// registry strategy and REST storage do in kube-apiserver (the table: strategies/table.cpp).
struct Strategy {
  void (*prepare_create)(Json& obj) = nullptr;                   // PrepareForCreate
  void (*prepare_update)(Json& obj, const Json& old) = nullptr;  // PrepareForUpdate
  std::vector<Cause> (*validate)(const Json& obj, const Json* old,
                                 std::vector<std::string>* warnings) = nullptr;
  bool allocates_node_ports = false;  // on create before validation, on update after it
};
const Strategy& strategy(const ResourceType& type);

// Whether the object's spec changed in the sense of metadata.generation.
bool spec_changed(const ResourceType& type, const Json& obj, const Json& old);

// Field selectors: whether `field` may be used, and the field values of an object.
bool field_supported(const ResourceType& type, const std::string& field);
std::string unsupported_field_message(const ResourceType& type, const std::string& field);
std::map<std::string, std::string> field_values(const ResourceType& type, const Json& obj);

// events.k8s.io/v1 <-> core/v1 Event (the stored form).
Json event_to_v1(const Json& core);
Json event_from_v1(const Json& v1);

// obj[key] = value unless obj has a non-null key.
void set_default(Json& obj, const char* key, Json value);

// A Node's status.daemonEndpoints and status.nodeInfo as the real server shows them empty.
Json empty_daemon_endpoints();
Json empty_node_info();

// Shared by the defaults and the conversions: the field at `path`, if there is one; an
// autoscaling/v2 CPU Resource metric.
const Json* find_field(const Json& obj, std::initializer_list<const char*> path);
Json hpa_cpu_metric(const char* field, const Json& value, bool target);

// Name validation messages (RFC 1123 subdomain / label, RFC 1035 label).
std::optional<std::string> check_dns_subdomain(const std::string& name);
std::optional<std::string> check_dns_label(const std::string& name);

}  // namespace respool::sandbox::kinds
