#pragma once
// Server-side printers: the Table columns kube-apiserver's printers (pkg/printers/internalversion)
// give each built-in kind, and the cells they compute. A kind's row in builtin_types.cpp names
// its printer; kinds without one get the default Name / Created At table.

#include <initializer_list>
#include <string>
#include <vector>

#include "operator/runtime/clock.hpp"
#include "sandbox/apiserver/errors.hpp"
#include "sandbox/apiserver/registry/store.hpp"

namespace respool::sandbox {

struct PrinterColumnDef {
  std::string name, type, description;
  int priority = 0;
  std::string format = "";
};

// Every cell of one row, the Name cell first.
using RowCells = OJson (*)(const Json& obj, runtime::TimePoint now);

struct PrinterDef {
  std::vector<PrinterColumnDef> columns;  // after Name
  RowCells cells;
};

namespace printers {

// core/v1
extern const PrinterDef component_status, config_map, endpoints, event, namespace_, node,
    persistent_volume_claim, persistent_volume, pod, pod_template, replication_controller,
    resource_quota, secret, service_account, service;
// apps, batch, autoscaling, policy, coordination (a file each)
extern const PrinterDef controller_revision, daemon_set, deployment, replica_set, stateful_set,
    cron_job, job, horizontal_pod_autoscaler, pod_disruption_budget, lease;
// apiregistration, certificates, networking, rbac, storage, admissionregistration, scheduling,
// node, discovery, flowcontrol (a file each)
extern const PrinterDef api_service, certificate_signing_request, ingress_class, ingress,
    network_policy, cluster_role_binding, role_binding, csi_driver, csi_node, csi_storage_capacity,
    storage_class, volume_attachment, webhook_configuration, validating_admission_policy,
    validating_admission_policy_binding, priority_class, runtime_class, endpoint_slice, flow_schema,
    priority_level_configuration;

// Shared by the printers.
extern const char* const kAgeDesc;
extern const char* const kContainersDesc;
extern const char* const kImagesDesc;
const Json& at(const Json& obj, std::initializer_list<const char*> path);
const Json& name_of(const Json& obj);  // metadata.name
std::string text(const Json& v, const std::string& fallback = "");
std::string age(const Json& obj, runtime::TimePoint now);
std::string since(const Json& timestamp, runtime::TimePoint now);  // "<unknown>" when unset
std::string condition_status(const Json& obj, const std::string& type);
long long number(const Json& v);
std::string int_or_string(const Json& v, const std::string& fallback = "N/A");
std::string format_labels(const Json& map);               // "a=b,c=d" or "<none>"
std::string format_selector(const Json& label_selector);  // metav1.FormatLabelSelector
const Json& template_pod_spec(const Json& obj);           // spec.template.spec
std::string container_names(const Json& pod_spec);
std::string container_images(const Json& pod_spec);
std::string join(const std::vector<std::string>& parts, const std::string& sep);

}  // namespace printers
}  // namespace respool::sandbox
