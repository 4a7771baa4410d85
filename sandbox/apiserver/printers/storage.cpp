// Printers of storage.k8s.io kinds.

#include "sandbox/apiserver/printers/printers.hpp"

namespace respool::sandbox::printers {

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

}  // namespace respool::sandbox::printers
