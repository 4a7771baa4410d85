#pragma once
// What the per-kind validation files (kinds_rules*.cpp) share: the apimachinery name checks
// (IsQualifiedName, IsValidLabelValue, IsConfigMapKey) and the kinds' rules, each as the real
// server's validation function words its field errors.

#include <string>
#include <vector>

#include "sandbox/apiserver/kinds.hpp"

namespace respool::sandbox::kinds {

// validation.IsQualifiedName ("prefix/name"): its messages, empty when valid.
std::vector<std::string> check_qualified_name(const std::string& key);
// validation.IsValidLabelValue: its messages, empty when valid.
std::vector<std::string> check_label_value(const std::string& value);
// validation.IsConfigMapKey: its messages, empty when valid.
std::vector<std::string> check_config_map_key(const std::string& key);

// A field error whose value is shown as Go's %#v / String() shows it (a struct, a time), where
// render_value would show JSON.
Cause field_invalid_raw(std::string field, const std::string& rendered, std::string_view detail);
Cause field_duplicate_raw(std::string field, const std::string& rendered,
                          std::string_view detail = {});

// Go's %#v of a map[string]string and of a metav1.LabelSelector (a pointer Go dereferences), as
// "Invalid value: ..." shows them (kinds_rules_render.cpp).
std::string go_string_map(const Json& m);
std::string go_label_selector(const Json& selector);

// The object's string at `key`, "" when missing or not a string.
std::string text_of(const Json& obj, const char* key);

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
// ValidateDaemonSetSpec beyond the selector: the template's pod spec, restartPolicy Always, no
// activeDeadlineSeconds, non-negative counts, the update strategy.
void validate_daemon_set_spec(const Json& spec, std::vector<Cause>& out);

}  // namespace respool::sandbox::kinds
