#pragma once
// What the per-kind validation files (kinds_rules*.cpp) share: the apimachinery name checks
// (IsQualifiedName, IsValidLabelValue, IsConfigMapKey) and the kinds' rules, each as the real
// server's validation function words its field errors.

#include <string>
#include <vector>

#include "sandbox/apiserver/strategies/kinds.hpp"
#include "sandbox/apiserver/util.hpp"

namespace respool::sandbox::kinds {

// obj[key], null when obj is no object or has no such key.
const Json& member_or_null(const Json& obj, const char* key);
// v when it is an object, else an empty object.
const Json& object_or_empty(const Json& v);
// "<at>[i]".
std::string indexed(const std::string& at, std::size_t i);

// validation.IsQualifiedName ("prefix/name"): its messages, empty when valid.
std::vector<std::string> check_qualified_name(const std::string& key);
// validation.IsValidLabelValue: its messages, empty when valid.
std::vector<std::string> check_label_value(const std::string& value);
// validation.IsConfigMapKey: its messages, empty when valid.
std::vector<std::string> check_config_map_key(const std::string& key);
// validation.IsValidPortName (an IANA service name): its messages, empty when valid.
std::vector<std::string> check_port_name(const std::string& name);

// A field error whose value is shown as Go's %#v / String() shows it (a struct, a time), where
// render_value would show JSON.
Cause field_invalid_raw(std::string field, const std::string& rendered, std::string_view detail);
Cause field_duplicate_raw(std::string field, const std::string& rendered,
                          std::string_view detail = {});

// Go's %#v of a map[string]string and of a metav1.LabelSelector (a pointer Go dereferences), as
// "Invalid value: ..." shows them (validation/render.cpp).
std::string go_string_map(const Json& m);
std::string go_label_selector(const Json& selector);
// %#v of a resource.Quantity decoded from `text` ("0.5", "500m"), as ParseQuantity builds it:
// resource.Quantity{i:resource.int64Amount{value:5, scale:-1}, d:..., s:"", Format:"DecimalSI"}.
std::string go_quantity(const std::string& text);
// Quantity.String() of what ParseQuantity makes of `text`: "1000" is "1k", "1024Ki" is "1Mi",
// "1024" stays "1024" (the format of the text is kept, as the real type keeps it).
std::string go_quantity_string(const std::string& text);

// The name rule's message for `name`, none when it is valid.
std::optional<std::string> name_rule_message(const std::string& name, NameRule rule);
// metav1.Time's String() of an RFC 3339 text ("2026-01-01 00:00:00 +0000 UTC").
std::string go_time_string(const std::string& rfc3339);

// ValidateObjectMeta (create, `old` null) / ValidateObjectMetaUpdate of obj's metadata.
void validate_metadata(const ResourceType& type, const Json& obj, const Json* old,
                       std::vector<Cause>& out);

// %#v of an intstr.IntOrString.
std::string go_int_or_string(const Json& v);
// ValidatePositiveIntOrPercent at `at` (+ IsNotMoreThan100Percent when at_most_100); the value
// (percent or int), 0 for a string that is no percentage.
long long int_or_percent_rules(const Json& v, const std::string& at, std::vector<Cause>& out,
                               bool at_most_100);
// ValidateNonnegativeField of spec[key], at "<at>.<key>", when it is an integer.
void non_negative(const Json& spec, const char* key, const std::string& at,
                  std::vector<Cause>& out);

// ValidateLabels / ValidateAnnotations of a map at `at` ("metadata.labels", ...).
void label_map_rules(const Json& labels, const std::string& at, std::vector<Cause>& out);
void annotation_map_rules(const Json& annotations, const std::string& at, std::vector<Cause>& out);
// ValidateLabelSelector (label values strict) at `at`; true when the selector converts
// (LabelSelectorAsSelector succeeds: no errors).
bool label_selector_rules(const Json& selector, const std::string& at, std::vector<Cause>& out);
// ValidatePodTemplateSpec: the template's labels and annotations (at "<at>.labels", as the real
// server names them) and its pod spec at "<at>.spec".
void pod_template_rules(const Json& tmpl, const std::string& at, std::vector<Cause>& out);

// Deployments, ReplicaSets, StatefulSets (validation/apps.cpp) and Services
// (validation/service.cpp), on create (old null) and update.
void validate_deployment(const Json& obj, const Json* old, std::vector<Cause>& out);
void validate_replica_set(const Json& obj, const Json* old, std::vector<Cause>& out);
void validate_stateful_set(const Json& obj, const Json* old, std::vector<Cause>& out);
void validate_daemon_set(const Json& obj, const Json* old, std::vector<Cause>& out);
void validate_job(const Json& obj, const Json* old, std::vector<Cause>& out);
void validate_service(const Json& obj, const Json* old, std::vector<Cause>& out);

// ValidateEventCreate / ValidateEventUpdate on the stored (core/v1) form; `events_v1` when the
// request came through events.k8s.io/v1 (the strict rules), else only the legacy ones.
void validate_event(const Json& event, const Json* old, bool events_v1, std::vector<Cause>& out);
// ValidateConfigMap / ValidateConfigMapUpdate: keys, binaryData duplicates, size, immutable.
void validate_config_map(const Json& cm, const Json* old, std::vector<Cause>& out);
// ValidateNode / ValidateNodeUpdate: taints, podCIDRs, providerID.
void validate_node(const Json& node, const Json* old, std::vector<Cause>& out);
// ValidatePodSpec's rules users meet (containers, resources, policies, nodeName) at `at`
// ("spec" or "spec.template.spec").
void validate_pod_spec(const Json& spec, const std::string& at, std::vector<Cause>& out);
// ValidateDaemonSetSpec beyond the selector: restartPolicy Always, no activeDeadlineSeconds,
// non-negative counts, the update strategy.
void validate_daemon_set_spec(const Json& spec, std::vector<Cause>& out);

}  // namespace respool::sandbox::kinds
