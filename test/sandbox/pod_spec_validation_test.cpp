// Pod specs refused as kube-apiserver v1.32 refuses them (ValidatePodSpec and friends in
// pkg/apis/core/validation): volumes and mounts, ports, env, probes and lifecycle hooks,
// security contexts, affinity, topology spread, DNS config and whole-number extended
// resources, each with the real 422 message and causes; and a driver-like DaemonSet (host
// paths, privileged, tolerations, downward API env, probes, affinity) that passes.

#include <catch2/catch.hpp>

#include "harness.hpp"
#include "invalid_reply.hpp"

using namespace respool::sandbox::testing;
using respool::sandbox::testing::invalid_message;
using respool::sandbox::testing::Json;

namespace {

const std::string kPods = "/api/v1/namespaces/default/pods";
const std::string kDaemonSets = "/apis/apps/v1/namespaces/default/daemonsets";

Json pod(const std::string& name, Json spec) {
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", name}}}, {"spec", spec}};
}

Json container(Json extra = Json::object()) {
  Json c = {{"name", "c"}, {"image", "app:1"}};
  c.update(extra);
  return c;
}

}  // namespace

TEST_CASE("Pod volumes and volume mounts", "[validation][pods]") {
  Harness h;
  Json spec = {
      {"volumes",
       {{{"name", "data"}},
        {{"name", "two"}, {"emptyDir", Json::object()}, {"hostPath", {{"path", "/x"}}}},
        {{"name", "host"}, {"hostPath", {{"path", "/a/../b"}, {"type", "Dir"}}}},
        {{"name", "cm"},
         {"configMap",
          {{"name", "c"}, {"defaultMode", 512}, {"items", {{{"key", "k"}, {"path", "/abs"}}}}}}},
        {{"name", "ok"}, {"emptyDir", Json::object()}}}},
      {"containers",
       {container({{"volumeMounts",
                    {{{"name", "cm"}, {"mountPath", "/m"}},
                     {{"name", "ok"}, {"mountPath", "/m"}, {"subPath", "../x"}}}}})}}};
  CHECK(invalid_message(h.post(kPods, pod("vols", spec)), 9) ==
        "Pod \"vols\" is invalid: [spec.volumes[0]: Required value: must specify a volume type, "
        "spec.volumes[1].hostPath: Forbidden: may not specify more than 1 volume type, "
        "spec.volumes[2].hostPath.path: Invalid value: \"/a/../b\": must not contain '..', "
        "spec.volumes[2].hostPath.type: Unsupported value: \"Dir\": supported values: \"\", "
        "\"BlockDevice\", \"CharDevice\", \"Directory\", \"DirectoryOrCreate\", \"File\", "
        "\"FileOrCreate\", \"Socket\", spec.volumes[3].configMap.defaultMode: Invalid value: 512: "
        "must be a number between 0 and 0777 (octal), both inclusive, "
        "spec.volumes[3].configMap.items[0].path: Invalid value: \"/abs\": must be a relative "
        "path, spec.containers[0].volumeMounts[0].name: Not found: \"cm\", "
        "spec.containers[0].volumeMounts[1].mountPath: Invalid value: \"/m\": must be unique, "
        "spec.containers[0].volumeMounts.subPath: Invalid value: \"../x\": must not contain "
        "'..']");

  Json dup = {{"volumes",
               {{{"name", "v"}, {"emptyDir", Json::object()}},
                {{"name", "v"}, {"secret", Json::object()}},
                {{"name", "api"},
                 {"projected",
                  {{"sources",
                    {{{"serviceAccountToken", {{"path", "token"}, {"expirationSeconds", 60}}}},
                     {{"downwardAPI",
                       {{"items", {{{"path", "ns"}, {"fieldRef", {{"fieldPath", "spec.x"}}}}}}}},
                      {"configMap", {{"name", "c"}}}}}}}}}}},
              {"containers", {container()}}};
  CHECK(invalid_message(h.post(kPods, pod("dup", dup)), 5) ==
        "Pod \"dup\" is invalid: [spec.volumes[1].secret.secretName: Required value, "
        "spec.volumes[1].name: Duplicate value: \"v\", "
        "spec.volumes[2].projected.sources[0].serviceAccountToken.expirationSeconds: Invalid "
        "value: 60: may not specify a duration less than 10 minutes, "
        "spec.volumes[2].projected.sources[1].downwardAPI.fieldRef.fieldPath: Invalid value: "
        "\"spec.x\": error converting fieldPath: field label not supported: spec.x, "
        "spec.volumes[2].projected.sources[1]: Forbidden: may not specify more than 1 volume type "
        "per source]");
}

TEST_CASE("Pod containers: ports, env, probes and lifecycle hooks", "[validation][pods]") {
  Harness h;
  Json c = container(
      {{"ports",
        {{{"containerPort", 0}},
         {{"containerPort", 70000}, {"name", "web"}},
         {{"containerPort", 80}, {"name", "web"}, {"protocol", "HTTP"}}}},
       {"env",
        {{{"name", "A=B"}, {"value", "x"}},
         {{"name", "PHASE"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "status.phase"}}}}}},
         {{"name", "K"},
          {"value", "v"},
          {"valueFrom", {{"configMapKeyRef", {{"name", "cm"}, {"key", "k"}}}}}},
         {{"name", "E"}, {"valueFrom", Json::object()}}}},
       {"lifecycle", {{"preStop", Json::object()}}},
       {"livenessProbe",
        {{"exec", {{"command", {"true"}}}},
         {"httpGet", {{"port", 8080}}},
         {"successThreshold", 2}}},
       {"readinessProbe", {{"tcpSocket", {{"port", "no_such"}}}, {"periodSeconds", -1}}}});
  CHECK(invalid_message(h.post(kPods, pod("busy", {{"containers", {c}}})), 13) ==
        "Pod \"busy\" is invalid: [spec.containers[0].ports[0].containerPort: Required value, "
        "spec.containers[0].ports[1].containerPort: Invalid value: 70000: must be between 1 and "
        "65535, inclusive, spec.containers[0].ports[2].name: Duplicate value: \"web\", "
        "spec.containers[0].ports[2].protocol: Unsupported value: \"HTTP\": supported values: "
        "\"SCTP\", \"TCP\", \"UDP\", spec.containers[0].env[0].name: Invalid value: \"A=B\": a "
        "valid environment variable name must consist only of printable ASCII characters other "
        "than '=', spec.containers[0].env[1].valueFrom.fieldRef.fieldPath: Unsupported value: "
        "\"status.phase\": supported values: \"metadata.name\", \"metadata.namespace\", "
        "\"metadata.uid\", \"spec.nodeName\", \"spec.serviceAccountName\", \"status.hostIP\", "
        "\"status.hostIPs\", \"status.podIP\", \"status.podIPs\", "
        "spec.containers[0].env[2].valueFrom: Invalid value: \"\": may not be specified when "
        "`value` is not empty, spec.containers[0].env[3].valueFrom: Invalid value: \"\": must "
        "specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`, "
        "spec.containers[0].lifecycle.preStop: Required value: must specify a handler type, "
        "spec.containers[0].livenessProbe.httpGet: Forbidden: may not specify more than 1 handler "
        "type, spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1, "
        "spec.containers[0].readinessProbe.tcpSocket.port: Invalid value: \"no_such\": must "
        "contain only alpha-numeric characters (a-z, 0-9), and hyphens (-), "
        "spec.containers[0].readinessProbe.periodSeconds: Invalid value: -1: must be greater than "
        "or equal to 0]");

  // Env names since 1.32 (RelaxedEnvironmentVariableValidation): any printable ASCII but '='.
  Json relaxed = container({{"env", {{{"name", "1st.var-name"}, {"value", "x"}}}}});
  CHECK(h.post(kPods, pod("relaxed", {{"containers", {relaxed}}})).status == 201);

  Json ports = container({{"ports", {{{"containerPort", 80}, {"hostPort", 8080}}}}});
  Json probe = {{"exec", {{"command", {"x"}}}}};
  Json init = container({{"name", "init"}, {"livenessProbe", probe}});
  Json second =
      container({{"name", "d"}, {"ports", {{{"containerPort", 81}, {"hostPort", 8080}}}}});
  Json hosts = {{"containers", {ports, second}}, {"initContainers", {init}}, {"hostNetwork", true}};
  CHECK(invalid_message(h.post(kPods, pod("hosts", hosts)), 4) ==
        "Pod \"hosts\" is invalid: [spec.containers[1].ports[0].hostPort: Duplicate value: "
        "\"TCP//8080\", spec.initContainers[0].livenessProbe: Forbidden: may not be set for init "
        "containers without restartPolicy=Always, spec.containers[0].ports[0].hostPort: Invalid "
        "value: 8080: must match `containerPort` when `hostNetwork` is true, "
        "spec.containers[1].ports[0].hostPort: Invalid value: 8080: must match `containerPort` "
        "when `hostNetwork` is true]");
}

TEST_CASE("Pod security contexts, affinity, topology spread and DNS", "[validation][pods]") {
  Harness h;
  Json spec = {
      {"containers",
       {container(
           {{"securityContext", {{"privileged", true}, {"allowPrivilegeEscalation", false}}}})}},
      {"dnsPolicy", "None"},
      {"securityContext", {{"runAsUser", -1}, {"seccompProfile", {{"type", "Localhost"}}}}},
      {"affinity",
       {{"nodeAffinity",
         {{"requiredDuringSchedulingIgnoredDuringExecution",
           {{"nodeSelectorTerms",
             {{{"matchExpressions",
                {{{"key", "zone"}, {"operator", "Near"}, {"values", {"a"}}}}}}}}}}}},
        {"podAntiAffinity",
         {{"preferredDuringSchedulingIgnoredDuringExecution",
           {{{"weight", 0}, {"podAffinityTerm", {{"topologyKey", "kubernetes.io/hostname"}}}}}}}}}},
      {"topologySpreadConstraints",
       {{{"maxSkew", 0}, {"topologyKey", "zone"}, {"whenUnsatisfiable", "DoNotSchedule"}},
        {{"maxSkew", 1}, {"topologyKey", "zone"}, {"whenUnsatisfiable", "DoNotSchedule"}}}}};
  CHECK(
      invalid_message(h.post(kPods, pod("strict", spec)), 8) ==
      "Pod \"strict\" is invalid: [spec.containers[0].securityContext: Invalid value: "
      "core.SecurityContext{Capabilities:(*core.Capabilities)(nil), "
      "Privileged:(*bool)(0xc000000000), SELinuxOptions:(*core.SELinuxOptions)(nil), "
      "WindowsOptions:(*core.WindowsSecurityContextOptions)(nil), RunAsUser:(*int64)(nil), "
      "RunAsGroup:(*int64)(nil), RunAsNonRoot:(*bool)(nil), ReadOnlyRootFilesystem:(*bool)(nil), "
      "AllowPrivilegeEscalation:(*bool)(0xc000000000), ProcMount:(*core.ProcMountType)(nil), "
      "SeccompProfile:(*core.SeccompProfile)(nil), AppArmorProfile:(*core.AppArmorProfile)(nil)}: "
      "cannot set `allowPrivilegeEscalation` to false and `privileged` to true, "
      "spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, "
      "inclusive, spec.securityContext.seccompProfile.localhostProfile: Required value: must be "
      "set when seccomp type is Localhost, "
      "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
      "nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: \"Near\": not a valid "
      "selector operator, "
      "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: "
      "Invalid value: 0: must be in the range 1-100, spec.dnsConfig: Required value: must "
      "provide `dnsConfig` when `dnsPolicy` is None, spec.topologySpreadConstraints[0].maxSkew: "
      "Invalid value: 0: must be greater than zero, "
      "spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "
      "\"{zone, DoNotSchedule}\"]");
}

TEST_CASE("Extended resources are whole numbers", "[validation][pods]") {
  Harness h;
  // A pod's requests default from its limits, so both are refused, as on a real server.
  Json half = container({{"resources", {{"limits", {{"nvidia.com/gpu", 0.5}}}}}});
  CHECK(invalid_message(h.post(kPods, pod("half", {{"containers", {half}}})), 2) ==
        "Pod \"half\" is invalid: [spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid "
        "value: resource.Quantity{i:resource.int64Amount{value:5, scale:-1}, "
        "d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"\", Format:\"DecimalSI\"}: must be an "
        "integer, spec.containers[0].resources.requests[nvidia.com/gpu]: Invalid value: "
        "resource.Quantity{i:resource.int64Amount{value:5, scale:-1}, "
        "d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"\", Format:\"DecimalSI\"}: must be an "
        "integer]");
  Json milli = container({{"resources",
                           {{"limits", {{"example.com/fpga", "1500m"}}},
                            {"requests", {{"example.com/fpga", "1500m"}}}}}});
  std::string message = invalid_message(h.post(kPods, pod("milli", {{"containers", {milli}}})), 2);
  CHECK_THAT(message, Catch::Contains("resource.Quantity{i:resource.int64Amount{value:1500, "
                                      "scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, "
                                      "s:\"1500m\", Format:\"DecimalSI\"}: must be an integer"));
  Json pages = container({{"resources", {{"limits", {{"hugepages-2Mi", "3Mi"}}}}}});
  CHECK(invalid_message(h.post(kPods, pod("pages", {{"containers", {pages}}})), 3) ==
        "Pod \"pages\" is invalid: [spec.containers[0].resources.limits[hugepages-2Mi]: Invalid "
        "value: \"3Mi\": 3Mi is not positive integer multiple of hugepages-2Mi, "
        "spec.containers[0].resources.requests[hugepages-2Mi]: Invalid value: \"3Mi\": 3Mi is not "
        "positive integer multiple of hugepages-2Mi, spec.containers[0].resources: Forbidden: "
        "HugePages require cpu or memory]");
  Json whole = container({{"resources", {{"limits", {{"nvidia.com/gpu", "2"}, {"cpu", "1.5"}}}}}});
  CHECK(h.post(kPods, pod("whole", {{"containers", {whole}}})).status == 201);
}

TEST_CASE("A driver-like DaemonSet passes", "[validation][daemonsets]") {
  Harness h;
  Json driver = container(
      {{"name", "driver"},
       {"securityContext", {{"privileged", true}, {"capabilities", {{"add", {"SYS_ADMIN"}}}}}},
       {"env",
        {{{"name", "NODE_NAME"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "spec.nodeName"}}}}}},
         {{"name", "MEM"},
          {"valueFrom",
           {{"resourceFieldRef", {{"resource", "limits.memory"}, {"divisor", "1Mi"}}}}}}}},
       {"ports", {{{"containerPort", 9400}, {"name", "metrics"}}}},
       {"volumeMounts",
        {{{"name", "host-root"}, {"mountPath", "/host"}, {"mountPropagation", "Bidirectional"}},
         {{"name", "run"}, {"mountPath", "/run/driver"}}}},
       {"readinessProbe", {{"exec", {{"command", {"cat", "/run/driver/ready"}}}}}},
       {"livenessProbe", {{"httpGet", {{"port", "metrics"}, {"path", "/healthz"}}}}},
       {"resources", {{"limits", {{"memory", "512Mi"}}}}}});
  Json spec = {{"selector", {{"matchLabels", {{"app", "driver"}}}}},
               {"template",
                {{"metadata", {{"labels", {{"app", "driver"}}}}},
                 {"spec",
                  {{"hostPID", true},
                   {"priorityClassName", "system-node-critical"},
                   {"tolerations", {{{"operator", "Exists"}}}},
                   {"affinity",
                    {{"nodeAffinity",
                      {{"requiredDuringSchedulingIgnoredDuringExecution",
                        {{"nodeSelectorTerms",
                          {{{"matchExpressions",
                             {{{"key", "respool.io/flavor"},
                               {"operator", "In"},
                               {"values", {"a100"}}}}}}}}}}}}}},
                   {"volumes",
                    {{{"name", "host-root"}, {"hostPath", {{"path", "/"}}}},
                     {{"name", "run"},
                      {"hostPath", {{"path", "/run/driver"}, {"type", "DirectoryOrCreate"}}}}}},
                   {"containers", {driver}}}}}}};
  Json ds = {{"apiVersion", "apps/v1"},
             {"kind", "DaemonSet"},
             {"metadata", {{"name", "driver"}}},
             {"spec", spec}};
  auto r = h.post(kDaemonSets, ds);
  INFO(r.body);
  CHECK(r.status == 201);
}

TEST_CASE("Pod os, host aliases, ephemeral containers and fields of disabled features",
          "[validation][pods]") {
  Harness h;
  Json spec = {{"os", {{"name", "windows"}}},
               {"securityContext", {{"runAsUser", 1000}}},
               {"hostAliases", {{{"ip", "1.2.3"}, {"hostnames", {"db.example"}}}}},
               {"ephemeralContainers", {{{"name", "debug"}, {"image", "busybox:1.36"}}}},
               {"containers", {container({{"securityContext", {{"privileged", true}}}})}}};
  CHECK(invalid_message(h.post(kPods, pod("win", spec)), 4) ==
        "Pod \"win\" is invalid: [spec.hostAliases[0].ip: Invalid value: \"1.2.3\": must be a "
        "valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff), spec.securityContext.runAsUser: "
        "Forbidden: cannot be set for a windows pod, "
        "spec.containers[0].securityContext.privileged: Forbidden: cannot be set for a windows "
        "pod, spec.ephemeralContainers: Forbidden: cannot be set on create]");

  Json ds = {{"apiVersion", "apps/v1"},
             {"kind", "DaemonSet"},
             {"metadata", {{"name", "agent"}}},
             {"spec",
              {{"selector", {{"matchLabels", {{"app", "agent"}}}}},
               {"template",
                {{"metadata", {{"labels", {{"app", "agent"}}}}},
                 {"spec",
                  {{"containers", {container()}},
                   {"ephemeralContainers", {{{"name", "debug"}, {"image", "busybox"}}}}}}}}}}};
  CHECK(invalid_message(h.post(kDaemonSets, ds), 1) ==
        "DaemonSet.apps \"agent\" is invalid: spec.template.spec.ephemeralContainers: Forbidden: "
        "ephemeral containers not allowed in pod template");

  // PodLevelResources and InPlacePodVerticalScaling are alpha in 1.32: their fields are dropped.
  Json alpha =
      container({{"resizePolicy", {{{"resourceName", "cpu"}, {"restartPolicy", "NotRequired"}}}}});
  Json created =
      h.post(kPods,
             pod("alpha", {{"resources", {{"limits", {{"cpu", "1"}}}}}, {"containers", {alpha}}}))
          .json();
  CHECK_FALSE(created["spec"].contains("resources"));
  CHECK_FALSE(created["spec"]["containers"][0].contains("resizePolicy"));
}

TEST_CASE("Pod volume devices", "[validation][pods]") {
  Harness h;
  Json c = container({{"volumeMounts", {{{"name", "claim"}, {"mountPath", "/dev/xvda"}}}},
                      {"volumeDevices",
                       {{{"name", "scratch"}, {"devicePath", "/dev/xvdb"}},
                        {{"name", "claim"}, {"devicePath", "/dev/xvda"}},
                        {{"name", "gone"}, {"devicePath", "/dev/../x"}}}}});
  Json spec = {{"volumes",
                {{{"name", "claim"}, {"persistentVolumeClaim", {{"claimName", "c"}}}},
                 {{"name", "scratch"}, {"emptyDir", Json::object()}}}},
               {"containers", {c}}};
  CHECK(invalid_message(h.post(kPods, pod("block", spec)), 7) ==
        "Pod \"block\" is invalid: [spec.containers[0].volumeMounts[0].name: Invalid value: "
        "\"claim\": must not already exist in volumeDevices, "
        "spec.containers[0].volumeMounts[0].mountPath: Invalid value: \"/dev/xvda\": must not "
        "already exist as a path in volumeDevices, spec.containers[0].volumeDevices[0].name: "
        "Invalid value: \"scratch\": can only use volume source type of PersistentVolumeClaim or "
        "Ephemeral for block mode, spec.containers[0].volumeDevices[1].name: Invalid value: "
        "\"claim\": must not already exist in volumeMounts, "
        "spec.containers[0].volumeDevices[1].devicePath: Invalid value: \"/dev/xvda\": must not "
        "already exist as a path in volumeMounts, spec.containers[0].volumeDevices[2].name: Not "
        "found: \"gone\", spec.containers[0].volumeDevices[2].devicePath: Invalid value: "
        "\"/dev/../x\": can not contain backsteps ('..')]");
}

TEST_CASE("Downward API resource divisors", "[validation][pods]") {
  Harness h;
  auto env = [](const std::string& resource, const std::string& divisor) {
    return Json{
        {"name", "V"},
        {"valueFrom", {{"resourceFieldRef", {{"resource", resource}, {"divisor", divisor}}}}}};
  };
  // 1000m is 1, 1024Ki is 1Mi; 1k of cpu and a 1024 (not 1Ki) of memory are refused.
  Json fine = container({{"env", {env("limits.cpu", "1000m"), env("limits.memory", "1024Ki")}}});
  CHECK(h.post(kPods, pod("fine", {{"containers", {fine}}})).status == 201);
  Json bad = container({{"env", {env("limits.cpu", "1k"), env("requests.memory", "1024")}}});
  CHECK(invalid_message(h.post(kPods, pod("bad", {{"containers", {bad}}})), 2) ==
        "Pod \"bad\" is invalid: [spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor: "
        "Invalid value: \"limits.cpu\": only divisor's values 1m and 1 are supported with the cpu "
        "resource, spec.containers[0].env[1].valueFrom.resourceFieldRef.divisor: Invalid value: "
        "\"requests.memory\": only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, "
        "1Ti, 1Pi, 1Ei are supported with the memory resource]");
}
