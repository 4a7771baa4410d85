// Printers of networking, rbac, storage, certificates, admissionregistration, scheduling, node,
// discovery, flowcontrol and apiregistration kinds.

#include <set>

#include "sandbox/apiserver/printers/printers.hpp"
#include "sandbox/apiserver/printers/tables.hpp"

namespace respool::sandbox::printers {
namespace {

OJson rbac_binding_row(const Json& o, runtime::TimePoint now) {
  std::vector<std::string> users, groups, sas;
  const Json& subjects = at(o, {"subjects"});
  if (subjects.is_array()) {
    for (const Json& s : subjects) {
      std::string kind = text(at(s, {"kind"}));
      if (kind == "User") users.push_back(text(at(s, {"name"})));
      if (kind == "Group") groups.push_back(text(at(s, {"name"})));
      if (kind == "ServiceAccount") {
        sas.push_back(text(at(s, {"namespace"})) + std::string("/") + text(at(s, {"name"})));
      }
    }
  }
  return {name_of(o),
          text(at(o, {"roleRef", "kind"})) + std::string("/") + text(at(o, {"roleRef", "name"})),
          age(o, now),
          join(users, ", "),
          join(groups, ", "),
          join(sas, ", ")};
}

std::vector<PrinterColumnDef> rbac_binding_columns(const std::string& what) {
  return {{"Role", "string",
           "RoleRef can reference a Role in the current namespace or a "
           "ClusterRole in the global namespace. If the RoleRef cannot be "
           "resolved, the Authorizer must return an error. This field is "
           "immutable."},
          {"Age", "string", kAgeDesc},
          {"Users", "string", "Users in the " + what, 1},
          {"Groups", "string", "Groups in the " + what, 1},
          {"ServiceAccounts", "string", "ServiceAccounts in the " + what, 1}};
}

std::string more_list(const std::vector<std::string>& list, std::size_t count, std::size_t max) {
  std::string out = join(list, ",");
  if (count > max) return out + std::string(" + ") + std::to_string(count - max) + " more...";
  return out.empty() ? "<unset>" : out;
}

OJson endpoint_slice_row(const Json& o, runtime::TimePoint now) {
  std::vector<std::string> ports, addrs;
  std::size_t nports = 0, naddrs = 0, max = 3;
  const Json& p = at(o, {"ports"});
  if (p.is_array()) {
    for (const Json& port : p) {
      if (ports.size() < max) {
        const Json& n = at(port, {"port"});
        ports.push_back(n.is_number_integer() ? std::to_string(n.get<long long>())
                                              : text(at(port, {"name"}), "*"));
      }
      ++nports;
    }
  }
  const Json& e = at(o, {"endpoints"});
  if (e.is_array()) {
    for (const Json& ep : e) {
      const Json& a = at(ep, {"addresses"});
      if (!a.is_array()) continue;
      for (const Json& addr : a) {
        if (addrs.size() < max) addrs.push_back(text(addr));
        ++naddrs;
      }
    }
  }
  return {name_of(o), text(at(o, {"addressType"})), more_list(ports, nports, max),
          more_list(addrs, naddrs, max), age(o, now)};
}

std::string ing_hosts(const Json& o) {
  const Json& rules = at(o, {"spec", "rules"});
  std::vector<std::string> list;
  std::size_t max = 3;
  bool more = false;
  if (rules.is_array()) {
    for (const Json& r : rules) {
      if (list.size() == max) more = true;
      if (!more && !text(at(r, {"host"})).empty()) list.push_back(text(at(r, {"host"})));
    }
  }
  if (list.empty()) return "*";
  std::string out = join(list, ",");
  if (more) out += std::string(" + ") + std::to_string(rules.size() - max) + " more...";
  return out;
}

std::string ing_address(const Json& o) {
  std::set<std::string> seen;
  const Json& ing = at(o, {"status", "loadBalancer", "ingress"});
  if (ing.is_array()) {
    for (const Json& i : ing) {
      std::string v = text(at(i, {"ip"}), text(at(i, {"hostname"})));
      if (!v.empty()) seen.insert(v);
    }
  }
  return join({seen.begin(), seen.end()}, ",");
}

std::string csr_status_text(const Json& o) {
  bool approved = false, denied = false, failed = false;
  const Json& conds = at(o, {"status", "conditions"});
  if (conds.is_array()) {
    for (const Json& c : conds) {
      std::string t = text(at(c, {"type"}));
      approved = approved || t == "Approved";
      denied = denied || t == "Denied";
      failed = failed || t == "Failed";
    }
  }
  std::string s = denied ? "Denied" : approved ? "Approved" : "Pending";
  if (failed) s += ",Failed";
  if (!text(at(o, {"status", "certificate"})).empty()) s += ",Issued";
  return s;
}

std::string vap_param_ref(const Json& o) {
  const Json& pr = at(o, {"spec", "paramRef"});
  if (!pr.is_object()) return "<unset>";
  std::string n = text(at(pr, {"name"}));
  if (!n.empty()) {
    std::string ns = text(at(pr, {"namespace"}));
    return (ns.empty() ? "*" : ns) + "/" + n;
  }
  if (!at(pr, {"selector"}).is_null()) return format_selector(at(pr, {"selector"}));
  return "<unset>";
}

OJson int_or_none(const Json& v) {
  return v.is_number_integer() ? OJson(v.get<long long>()) : OJson("<none>");
}

}  // namespace

const PrinterDef api_service{
    {{"Service", "string", "The reference to the service that hosts this API endpoint."},
     {"Available", "string", "Whether this service is available."},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      const Json& svc = at(o, {"spec", "service"});
      std::string service = svc.is_object() ? text(at(svc, {"namespace"})) + std::string("/") +
                                                  text(at(svc, {"name"}))
                                            : "Local";
      std::string available = "Unknown";
      const Json& conds = at(o, {"status", "conditions"});
      if (conds.is_array()) {
        for (const Json& c : conds) {
          if (text(at(c, {"type"})) != "Available") continue;
          available = text(at(c, {"status"}));
          if (available != "True") available += std::string(" (") + text(at(c, {"reason"})) + ")";
        }
      }
      return {name_of(o), service, available, age(o, now)};
    }};

const PrinterDef certificate_signing_request{
    {{"Age", "string", kAgeDesc},
     {"SignerName", "string", "Requested signer for the request."},
     {"Requestor", "string", "Name of the user that created the request."},
     {"RequestedDuration", "string",
      "expirationSeconds is the requested duration of validity of "
      "the issued certificate."},
     {"Condition", "string", "Conditions applied to the request."}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      const Json& secs = at(o, {"spec", "expirationSeconds"});
      std::string duration = "<none>";
      if (secs.is_number_integer()) {
        duration = human_duration(std::chrono::seconds(secs.get<long long>()));
      }
      return {name_of(o),
              age(o, now),
              text(at(o, {"spec", "signerName"}), "<none>"),
              text(at(o, {"spec", "username"})),
              duration,
              csr_status_text(o)};
    }};

const PrinterDef ingress_class{
    {{"Controller", "string", "Controller that is responsible for handling this class"},
     {"Parameters", "string", "A reference to a resource with additional parameters"},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      std::string params = "<none>";
      const Json& p = at(o, {"spec", "parameters"});
      if (p.is_object()) {
        params = text(at(p, {"kind"}));
        if (at(p, {"apiGroup"}).is_string()) params += std::string(".") + text(at(p, {"apiGroup"}));
        params += std::string("/") + text(at(p, {"name"}));
      }
      return {name_of(o), text(at(o, {"spec", "controller"})), params, age(o, now)};
    }};

const PrinterDef ingress{
    {{"Class", "string",
      "The name of the IngressClass resource that should be used for additional configuration"},
     {"Hosts", "string",
      "Hosts that incoming requests are matched against before the ingress rule"},
     {"Address", "string", "Address is a list containing ingress points for the load-balancer"},
     {"Ports", "string", "Ports of TLS configurations that open"},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      const Json& tls = at(o, {"spec", "tls"});
      return {name_of(o),     text(at(o, {"spec", "ingressClassName"}), "<none>"), ing_hosts(o),
              ing_address(o), tls.is_array() && !tls.empty() ? "80, 443" : "80",   age(o, now)};
    }};

const PrinterDef network_policy{
    {{"Pod-Selector", "string",
      "Selects the pods to which this NetworkPolicy object applies. The array of ingress rules "
      "is applied to any pods selected by this field. Multiple network policies can select the "
      "same set of pods. In this case, the ingress rules for each are combined additively. This "
      "field is NOT optional and follows standard label selector semantics. An empty "
      "podSelector matches all pods in this namespace."},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      return {name_of(o), format_selector(at(o, {"spec", "podSelector"})), age(o, now)};
    }};

const PrinterDef cluster_role_binding{rbac_binding_columns("clusterRoleBinding"), rbac_binding_row};
const PrinterDef role_binding{rbac_binding_columns("roleBinding"), rbac_binding_row};

const PrinterDef csi_driver{{{"AttachRequired", "boolean",
                              "attachRequired indicates this CSI volume driver requires an "
                              "attach operation."},
                             {"PodInfoOnMount", "boolean",
                              "podInfoOnMount indicates this CSI volume driver requires "
                              "additional pod information during mount operations."},
                             {"StorageCapacity", "boolean",
                              "storageCapacity indicates that the CSI volume driver wants "
                              "pod scheduling to consider the storage capacity."},
                             {"TokenRequests", "string",
                              "tokenRequests indicates the CSI driver needs pods' service "
                              "account tokens it is mounting volume for."},
                             {"RequiresRepublish", "boolean",
                              "requiresRepublish indicates the CSI driver wants "
                              "`NodePublishVolume` being periodically called."},
                             {"Modes", "string",
                              "volumeLifecycleModes defines what kind of volumes this CSI volume "
                              "driver supports."},
                             {"Age", "string", kAgeDesc}},
                            [](const Json& o, runtime::TimePoint now) -> OJson {
                              auto flag = [&](const char* f, bool dflt) {
                                const Json& v = at(o, {"spec", f});
                                return v.is_boolean() ? v.get<bool>() : dflt;
                              };
                              std::string tokens = "<unset>";
                              const Json& tr = at(o, {"spec", "tokenRequests"});
                              if (tr.is_array()) {
                                std::vector<std::string> aud;
                                for (const Json& t : tr)
                                  aud.push_back(text(at(t, {"audience"})));
                                tokens = join(aud, ",");
                              }
                              std::vector<std::string> modes;
                              const Json& m = at(o, {"spec", "volumeLifecycleModes"});
                              if (m.is_array()) {
                                for (const Json& x : m)
                                  modes.push_back(text(x));
                              }
                              return {name_of(o),
                                      flag("attachRequired", true),
                                      flag("podInfoOnMount", false),
                                      flag("storageCapacity", false),
                                      tokens,
                                      flag("requiresRepublish", false),
                                      modes.empty() ? "<none>" : join(modes, ","),
                                      age(o, now)};
                            }};

const PrinterDef csi_node{
    {{"Drivers", "integer", "Drivers indicates the number of CSI drivers registered on the node"},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      const Json& d = at(o, {"spec", "drivers"});
      return {name_of(o), d.is_array() ? d.size() : 0, age(o, now)};
    }};

const PrinterDef csi_storage_capacity{
    {{"StorageClassName", "string",
      "storageClassName represents the name of the StorageClass "
      "that the reported capacity applies to."},
     {"Capacity", "string",
      "capacity is the value reported by the CSI driver in its "
      "GetCapacityResponse for a GetCapacityRequest with topology and "
      "parameters that match the previous fields."}},
    [](const Json& o, runtime::TimePoint) -> OJson {
      return {name_of(o), text(at(o, {"storageClassName"})),
              int_or_string(at(o, {"capacity"}), "<unset>")};
    }};

const PrinterDef storage_class{
    {{"Provisioner", "string", "provisioner indicates the type of the provisioner."},
     {"ReclaimPolicy", "string",
      "reclaimPolicy controls the reclaimPolicy for dynamically "
      "provisioned PersistentVolumes of this storage class."},
     {"VolumeBindingMode", "string",
      "volumeBindingMode indicates how PersistentVolumeClaims "
      "should be provisioned and bound."},
     {"AllowVolumeExpansion", "string",
      "allowVolumeExpansion shows whether the storage class "
      "allow volume expand."},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      std::string n = text(name_of(o));
      const Json& ann = at(o, {"metadata", "annotations"});
      if (text(at(ann, {"storageclass.kubernetes.io/is-default-class"})) == "true" ||
          text(at(ann, {"storageclass.beta.kubernetes.io/is-default-class"})) == "true") {
        n += " (default)";
      }
      const Json& expand = at(o, {"allowVolumeExpansion"});
      return {n,
              text(at(o, {"provisioner"})),
              text(at(o, {"reclaimPolicy"}), "Delete"),
              text(at(o, {"volumeBindingMode"}), "Immediate"),
              expand.is_boolean() && expand.get<bool>(),
              age(o, now)};
    }};

const PrinterDef volume_attachment{
    {{"Attacher", "string",
      "attacher indicates the name of the volume driver that MUST handle "
      "this request.",
      0, "name"},
     {"PV", "string",
      "persistentVolumeName represents the name of the persistent volume to "
      "attach."},
     {"Node", "string", "nodeName represents the node that the volume should be attached to."},
     {"Attached", "boolean", "attached indicates the volume is successfully attached."},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      const Json& attached = at(o, {"status", "attached"});
      return {name_of(o),
              text(at(o, {"spec", "attacher"})),
              text(at(o, {"spec", "source", "persistentVolumeName"})),
              text(at(o, {"spec", "nodeName"})),
              attached.is_boolean() && attached.get<bool>(),
              age(o, now)};
    }};

const PrinterDef webhook_configuration{
    {{"Webhooks", "integer",
      "Webhooks indicates the number of webhooks registered in this configuration"},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      const Json& w = at(o, {"webhooks"});
      return {name_of(o), w.is_array() ? w.size() : 0, age(o, now)};
    }};

const PrinterDef validating_admission_policy{
    {{"Validations", "integer",
      "Validations indicates the number of validation rules defined in this configuration"},
     {"ParamKind", "string",
      "ParamKind specifies the kind of resources used to parameterize this policy"},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      const Json& v = at(o, {"spec", "validations"});
      const Json& pk = at(o, {"spec", "paramKind"});
      std::string kind =
          pk.is_object() ? text(at(pk, {"apiVersion"})) + std::string("/") + text(at(pk, {"kind"}))
                         : "<unset>";
      return {name_of(o), v.is_array() ? v.size() : 0, kind, age(o, now)};
    }};

const PrinterDef validating_admission_policy_binding{
    {{"PolicyName", "string",
      "PolicyName indicates the policy definition which the policy binding binded to"},
     {"ParamRef", "string",
      "ParamRef indicates the param resource which sets the configration param"},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      return {name_of(o), text(at(o, {"spec", "policyName"})), vap_param_ref(o), age(o, now)};
    }};

const PrinterDef priority_class{
    {{"Value", "integer",
      "value represents the integer value of this priority class. This is "
      "the actual priority that pods receive when they have the name of this "
      "class in their pod spec."},
     {"Global-Default", "boolean",
      "globalDefault specifies whether this PriorityClass should be "
      "considered as the default priority for pods that do not "
      "have any priority class."},
     {"Age", "string", kAgeDesc},
     {"PreemptionPolicy", "string",
      "preemptionPolicy is the Policy for preempting pods with "
      "lower priority.",
      1}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      const Json& g = at(o, {"globalDefault"});
      return {name_of(o), number(at(o, {"value"})), g.is_boolean() && g.get<bool>(), age(o, now),
              text(at(o, {"preemptionPolicy"}))};
    }};

const PrinterDef runtime_class{{{"Handler", "string", ""}, {"Age", "string", kAgeDesc}},
                               [](const Json& o, runtime::TimePoint now) -> OJson {
                                 return {name_of(o), text(at(o, {"handler"})), age(o, now)};
                               }};

const PrinterDef endpoint_slice{
    {{"AddressType", "string",
      "addressType specifies the type of address carried by this "
      "EndpointSlice."},
     {"Ports", "string",
      "ports specifies the list of network ports exposed by each endpoint in "
      "this slice."},
     {"Endpoints", "string", "endpoints is a list of unique endpoints in this slice."},
     {"Age", "string", kAgeDesc}},
    endpoint_slice_row};

const PrinterDef flow_schema{
    {{"PriorityLevel", "string",
      "`name` is the name of the priority level configuration being "
      "referenced Required."},
     {"MatchingPrecedence", "string",
      "`matchingPrecedence` is used to choose among the "
      "FlowSchemas that match a given request."},
     {"DistinguisherMethod", "string",
      "`distinguisherMethod` defines how to compute the flow "
      "distinguisher for requests that match this schema."},
     {"Age", "string", kAgeDesc},
     {"MissingPL", "string", "references a broken or non-existent PriorityLevelConfiguration"}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      std::string dangling = "?";
      const Json& conds = at(o, {"status", "conditions"});
      if (conds.is_array()) {
        for (const Json& c : conds) {
          if (text(at(c, {"type"})) == "Dangling") {
            dangling = text(at(c, {"status"}));
            break;
          }
        }
      }
      return {name_of(o),
              text(at(o, {"spec", "priorityLevelConfiguration", "name"})),
              number(at(o, {"spec", "matchingPrecedence"})),
              text(at(o, {"spec", "distinguisherMethod", "type"}), "<none>"),
              age(o, now),
              dangling};
    }};

const PrinterDef priority_level_configuration{
    {{"Type", "string",
      "`type` indicates whether this priority level is subject to limitation "
      "on request execution."},
     {"NominalConcurrencyShares", "string",
      "`nominalConcurrencyShares` (NCS) contributes to "
      "the computation of the NominalConcurrencyLimit."},
     {"Queues", "string", "`queues` is the number of queues for this priority level."},
     {"HandSize", "string",
      "`handSize` is a small positive number that configures the shuffle "
      "sharding of requests into queues."},
     {"QueueLengthLimit", "string",
      "`queueLengthLimit` is the maximum number of requests "
      "allowed to be waiting in a given queue of this priority "
      "level at a time."},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      const Json& limited = at(o, {"spec", "limited"});
      const Json& q = at(limited, {"limitResponse", "queuing"});
      return {name_of(o),
              text(at(o, {"spec", "type"})),
              int_or_none(at(limited, {"nominalConcurrencyShares"})),
              int_or_none(at(q, {"queues"})),
              int_or_none(at(q, {"handSize"})),
              int_or_none(at(q, {"queueLengthLimit"})),
              age(o, now)};
    }};

}  // namespace respool::sandbox::printers
