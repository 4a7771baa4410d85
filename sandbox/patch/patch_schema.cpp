// The tags below were read from k8s.io/api (core/v1, apps/v1, batch/v1, policy/v1,
// coordination.k8s.io/v1) and k8s.io/apimachinery (metav1.ObjectMeta). Fields that carry no
// tag and hold nothing tagged are left out: they behave as untagged. Notable absences, as in
// k8s.io/api: Node spec.taints, Pod spec.tolerations, spec.readinessGates, status
// .containerStatuses and DaemonSet spec.updateStrategy have no patch strategy (lists are
// replaced whole).

#include "sandbox/patch/patch_schema.hpp"

namespace respool::sandbox::patch {
namespace {

PatchField merge_by(std::string_view key, const PatchType* type = nullptr) {
  return {"merge", key, type};
}

struct Types {
  PatchType object_meta;
  PatchType container;
  PatchType pod_spec;
  PatchType pod_status;
  PatchType pod_template;
  PatchType conditions_status;  // a status whose only tagged field is conditions (by type)
  PatchType pod, node, node_spec, node_status, namespace_, service, service_spec, service_account;
  PatchType deployment, deployment_spec, daemon_set, daemon_set_spec, job, job_spec;
  PatchType pod_disruption_budget, metadata_only;
  PatchType template_spec, templated, stateful_set_spec, stateful_set, job_template, cron_job_spec,
      cron_job, pod_template_kind;

  Types() {
    object_meta.fields = {
        {"finalizers", {"merge", "", nullptr}},
        {"ownerReferences", merge_by("uid")},
    };
    container.fields = {
        {"ports", merge_by("containerPort")},
        {"env", merge_by("name")},
        {"volumeMounts", merge_by("mountPath")},
        {"volumeDevices", merge_by("devicePath")},
    };
    pod_spec.fields = {
        {"volumes", {"merge,retainKeys", "name", nullptr}},
        {"initContainers", merge_by("name", &container)},
        {"containers", merge_by("name", &container)},
        {"ephemeralContainers", merge_by("name", &container)},
        {"imagePullSecrets", merge_by("name")},
        {"hostAliases", merge_by("ip")},
        {"topologySpreadConstraints", merge_by("topologyKey")},
        {"schedulingGates", merge_by("name")},
        {"resourceClaims", {"merge,retainKeys", "name", nullptr}},
    };
    pod_status.fields = {
        {"conditions", merge_by("type")},
        {"podIPs", merge_by("ip")},
        {"hostIPs", merge_by("ip")},
        {"resourceClaimStatuses", {"merge,retainKeys", "name", nullptr}},
    };
    pod_template.fields = {{"metadata", {"", "", &object_meta}}, {"spec", {"", "", &pod_spec}}};
    conditions_status.fields = {{"conditions", merge_by("type")}};
    metadata_only.fields = {{"metadata", {"", "", &object_meta}}};

    pod.fields = {{"metadata", {"", "", &object_meta}},
                  {"spec", {"", "", &pod_spec}},
                  {"status", {"", "", &pod_status}}};
    node_spec.fields = {{"podCIDRs", {"merge", "", nullptr}}};
    node_status.fields = {{"conditions", merge_by("type")}, {"addresses", merge_by("type")}};
    node.fields = {{"metadata", {"", "", &object_meta}},
                   {"spec", {"", "", &node_spec}},
                   {"status", {"", "", &node_status}}};
    namespace_.fields = {{"metadata", {"", "", &object_meta}},
                         {"status", {"", "", &conditions_status}}};
    service_spec.fields = {{"ports", merge_by("port")}};
    service.fields = {{"metadata", {"", "", &object_meta}},
                      {"spec", {"", "", &service_spec}},
                      {"status", {"", "", &conditions_status}}};
    service_account.fields = {{"metadata", {"", "", &object_meta}}, {"secrets", merge_by("name")}};
    deployment_spec.fields = {{"template", {"", "", &pod_template}},
                              {"strategy", {"retainKeys", "", nullptr}}};
    deployment.fields = {{"metadata", {"", "", &object_meta}},
                         {"spec", {"", "", &deployment_spec}},
                         {"status", {"", "", &conditions_status}}};
    daemon_set_spec.fields = {{"template", {"", "", &pod_template}}};
    daemon_set.fields = {{"metadata", {"", "", &object_meta}},
                         {"spec", {"", "", &daemon_set_spec}},
                         {"status", {"", "", &conditions_status}}};
    job_spec.fields = {{"template", {"", "", &pod_template}}};
    job.fields = {{"metadata", {"", "", &object_meta}},
                  {"spec", {"", "", &job_spec}},
                  {"status", {"", "", &conditions_status}}};
    pod_disruption_budget.fields = {{"metadata", {"", "", &object_meta}},
                                    {"status", {"", "", &conditions_status}}};
    // ReplicaSet, ReplicationController: a spec holding a pod template.
    template_spec.fields = {{"template", {"", "", &pod_template}}};
    templated.fields = {{"metadata", {"", "", &object_meta}},
                        {"spec", {"", "", &template_spec}},
                        {"status", {"", "", &conditions_status}}};
    stateful_set_spec.fields = {{"template", {"", "", &pod_template}}};
    stateful_set.fields = {{"metadata", {"", "", &object_meta}},
                           {"spec", {"", "", &stateful_set_spec}},
                           {"status", {"", "", &conditions_status}}};
    job_template.fields = {{"metadata", {"", "", &object_meta}}, {"spec", {"", "", &job_spec}}};
    cron_job_spec.fields = {{"jobTemplate", {"", "", &job_template}}};
    cron_job.fields = {{"metadata", {"", "", &object_meta}}, {"spec", {"", "", &cron_job_spec}}};
    pod_template_kind.fields = {{"metadata", {"", "", &object_meta}},
                                {"template", {"", "", &pod_template}}};
  }
};

const Types& types() {
  static const Types instance;
  return instance;
}

bool has_strategy(std::string_view tag, std::string_view strategy) {
  while (!tag.empty()) {
    const std::size_t comma = tag.find(',');
    if (tag.substr(0, comma) == strategy) return true;
    if (comma == std::string_view::npos) break;
    tag.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

bool PatchField::merges() const {
  return has_strategy(strategy, "merge");
}
bool PatchField::replaces() const {
  return has_strategy(strategy, "replace");
}

PatchField PatchType::field(std::string_view name) const {
  const auto it = fields.find(name);
  return it == fields.end() ? PatchField{} : it->second;
}

const PatchType* patch_type_for_kind(std::string_view kind) {
  const Types& t = types();
  if (kind == "Pod") return &t.pod;
  if (kind == "Node") return &t.node;
  if (kind == "Namespace") return &t.namespace_;
  if (kind == "Service") return &t.service;
  if (kind == "ServiceAccount") return &t.service_account;
  if (kind == "Deployment") return &t.deployment;
  if (kind == "DaemonSet") return &t.daemon_set;
  if (kind == "Job") return &t.job;
  if (kind == "PodDisruptionBudget") return &t.pod_disruption_budget;
  if (kind == "ReplicaSet" || kind == "ReplicationController") return &t.templated;
  if (kind == "StatefulSet") return &t.stateful_set;
  if (kind == "CronJob") return &t.cron_job;
  if (kind == "PodTemplate") return &t.pod_template_kind;
  if (kind == "ConfigMap" || kind == "Secret" || kind == "Event" || kind == "Lease") {
    return &t.metadata_only;
  }
  return nullptr;
}

}  // namespace respool::sandbox::patch
