// Validation of the built-in kinds the operator and the simulator write (Events of both APIs,
// Leases, Nodes, Pods, DaemonSets, ConfigMaps): each refusal with the message and causes of a
// real kube-apiserver v1.32 (pkg/apis/core/validation, apps/validation,
// coordination/validation).

#include <catch2/catch.hpp>

#include "harness.hpp"
#include "invalid_reply.hpp"

using namespace respool::sandbox::testing;
using respool::sandbox::testing::invalid_message;
using respool::sandbox::testing::Json;

namespace {

const std::string kEvents = "/api/v1/namespaces/default/events";
const std::string kEventsV1 = "/apis/events.k8s.io/v1/namespaces/default/events";
const std::string kQualifiedRegex =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

// The 422's message, after checking it is one with `causes` causes.
Json v1_event(const std::string& name) {
  return {{"apiVersion", "events.k8s.io/v1"},
          {"kind", "Event"},
          {"metadata", {{"name", name}}},
          {"regarding", {{"kind", "Pod"}, {"name", "p"}, {"namespace", "default"}}},
          {"note", "n"},
          {"reason", "Started"},
          {"type", "Normal"},
          {"action", "Start"},
          {"reportingController", "respool.io/operator"},
          {"reportingInstance", "respool-0"},
          {"eventTime", "2026-01-01T00:00:00.000000Z"}};
}

Json node(const std::string& name, Json spec) {
  return {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", name}}}, {"spec", spec}};
}

Json pod(const std::string& name, Json containers) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}}},
          {"spec", {{"containers", containers}}}};
}

Json daemon_set(const std::string& name) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "DaemonSet"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"selector", {{"matchLabels", {{"app", name}}}}},
            {"template",
             {{"metadata", {{"labels", {{"app", name}}}}},
              {"spec", {{"containers", {{{"name", "c"}, {"image", "busybox:1"}}}}}}}}}}};
}

Json config_map(const std::string& name, Json data) {
  return {
      {"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}, {"data", data}};
}

}  // namespace

TEST_CASE("core/v1 Events: the legacy rules only", "[validation][events]") {
  Harness h;
  // An old-style Event (no eventTime) needs no reason, source or object: the real server takes it.
  Json bare = {{"apiVersion", "v1"}, {"kind", "Event"}, {"metadata", {{"name", "bare"}}}};
  REQUIRE(h.post(kEvents, bare).status == 201);
  // Names: only what a path segment may not hold (the events.k8s.io API wants a subdomain).
  Json odd = bare;
  odd["metadata"]["name"] = "Odd_Name";
  REQUIRE(h.post(kEvents, odd).status == 201);
  odd["metadata"]["name"] = "a%b";
  CHECK(invalid_message(h.post(kEvents, odd), 1) ==
        "Event \"a%b\" is invalid: metadata.name: Invalid value: \"a%b\": may not contain '%'");
  Json elsewhere = bare;
  elsewhere["metadata"]["name"] = "elsewhere";
  elsewhere["involvedObject"] = {{"kind", "Pod"}, {"name", "p"}, {"namespace", "other"}};
  CHECK(invalid_message(h.post(kEvents, elsewhere), 1) ==
        "Event \"elsewhere\" is invalid: involvedObject.namespace: Invalid value: \"other\": "
        "does not match event.namespace");
  // With an eventTime, the reporting fields, action and reason are required.
  Json timed = bare;
  timed["metadata"]["name"] = "timed";
  timed["eventTime"] = "2026-01-01T00:00:00.000000Z";
  auto r = h.post(kEvents, timed);
  CHECK(invalid_message(r, 6) ==
        "Event \"timed\" is invalid: [reportingController: Required value, reportingController: "
        "Invalid value: \"\": name part must be non-empty, reportingController: Invalid value: "
        "\"\": name part " +
            kQualifiedRegex +
            ", reportingInstance: Required value, action: Required value, reason: Required "
            "value]");
  Json cause = r.json()["details"]["causes"][0];
  CHECK(cause == Json{{"reason", "FieldValueRequired"},
                      {"message", "Required value"},
                      {"field", "reportingController"}});
}

TEST_CASE("events.k8s.io/v1 Events: the strict rules", "[validation][events]") {
  Harness h;
  REQUIRE(h.post(kEventsV1, v1_event("ok")).status == 201);
  CHECK(
      invalid_message(h.post(kEventsV1, v1_event("Odd_Name")), 1)
          .starts_with("Event.events.k8s.io \"Odd_Name\" is invalid: metadata.name: Invalid value: "
                       "\"Odd_Name\": a lowercase RFC 1123 subdomain must consist of"));
  Json minimal = {
      {"apiVersion", "events.k8s.io/v1"}, {"kind", "Event"}, {"metadata", {{"name", "minimal"}}}};
  auto r = h.post(kEventsV1, minimal);
  CHECK(invalid_message(r, 2) ==
        "Event.events.k8s.io \"minimal\" is invalid: [eventTime: Required value, type: Invalid "
        "value: \"\": has invalid value: ]");
  CHECK(r.json()["details"]["group"] == "events.k8s.io");
  CHECK(r.json()["details"]["kind"] == "Event");

  Json no_reporter = v1_event("no-reporter");
  no_reporter.erase("reportingController");
  no_reporter.erase("reportingInstance");
  no_reporter.erase("action");
  no_reporter["reason"] = std::string(129, 'r');
  CHECK(invalid_message(h.post(kEventsV1, no_reporter), 6) ==
        "Event.events.k8s.io \"no-reporter\" is invalid: [reportingController: Required value, "
        "reportingController: Invalid value: \"\": name part must be non-empty, "
        "reportingController: Invalid value: \"\": name part " +
            kQualifiedRegex +
            ", reportingInstance: Required value, action: Required value, reason: Invalid value: "
            "\"\": can have at most 128 characters]");

  Json deprecated = v1_event("deprecated");
  deprecated["deprecatedCount"] = 3;
  deprecated["deprecatedSource"] = {{"component", "kubelet"}};
  deprecated["type"] = "Info";
  CHECK(invalid_message(h.post(kEventsV1, deprecated), 3) ==
        "Event.events.k8s.io \"deprecated\" is invalid: [type: Invalid value: \"\": has invalid "
        "value: Info, count: Invalid value: \"\": needs to be unset, source: Invalid value: \"\": "
        "needs to be unset]");

  Json cluster_scoped = v1_event("cluster-scoped");
  cluster_scoped["regarding"] = {{"kind", "Node"}, {"name", "n1"}};
  REQUIRE(h.post(kEventsV1, cluster_scoped).status == 201);  // "default" takes them
  auto other_ns = h.post("/apis/events.k8s.io/v1/namespaces/kube-public/events", cluster_scoped);
  CHECK(invalid_message(other_ns, 1) ==
        "Event.events.k8s.io \"cluster-scoped\" is invalid: involvedObject.namespace: Invalid "
        "value: \"\": does not match event.namespace");
}

TEST_CASE("events.k8s.io/v1 Event updates: series and immutable fields", "[validation][events]") {
  Harness h;
  REQUIRE(h.post(kEventsV1, v1_event("e")).status == 201);
  const std::string at = kEventsV1 + "/e";
  // What an event recorder sends for a repeat: accepted.
  Json series = {{"series", {{"count", 2}, {"lastObservedTime", "2026-01-01T00:01:00.000000Z"}}}};
  REQUIRE(h.patch(at, series).status == 200);
  CHECK(invalid_message(h.patch(at, {{"series", {{"count", 1}}}}), 1) ==
        "Event.events.k8s.io \"e\" is invalid: series.count: Invalid value: \"\": should be at "
        "least 2");
  CHECK(invalid_message(h.patch(at, {{"note", "changed"}, {"action", "Stop"}}), 2) ==
        "Event.events.k8s.io \"e\" is invalid: [message: Invalid value: \"changed\": field is "
        "immutable, action: Invalid value: \"Stop\": field is immutable]");
  // A merge patch of regarding keeps its namespace.
  CHECK(invalid_message(h.patch(at, {{"regarding", {{"kind", "Node"}, {"name", "n2"}}}}), 1) ==
        "Event.events.k8s.io \"e\" is invalid: involvedObject: Invalid value: "
        "core.ObjectReference{Kind:\"Node\", Namespace:\"default\", Name:\"n2\", UID:\"\", "
        "APIVersion:\"\", ResourceVersion:\"\", FieldPath:\"\"}: field is immutable");
  // Through core/v1 only the legacy rules apply.
  REQUIRE(h.patch(kEvents + "/e", {{"message", "changed"}}).status == 200);
}

TEST_CASE("Leases: duration and transitions ranges", "[validation][leases]") {
  Harness h;
  Json lease = {
      {"apiVersion", "coordination.k8s.io/v1"},
      {"kind", "Lease"},
      {"metadata", {{"name", "l"}}},
      {"spec", {{"holderIdentity", "a"}, {"leaseDurationSeconds", -1}, {"leaseTransitions", -2}}}};
  CHECK(
      invalid_message(h.post("/apis/coordination.k8s.io/v1/namespaces/default/leases", lease), 2) ==
      "Lease.coordination.k8s.io \"l\" is invalid: [spec.leaseDurationSeconds: Invalid value: "
      "-1: must be greater than 0, spec.leaseTransitions: Invalid value: -2: must be greater "
      "than or equal to 0]");
}

TEST_CASE("Nodes: taints, podCIDRs and providerID", "[validation][nodes]") {
  Harness h;
  Json bad_taints = node(
      "n1", {{"taints",
              {{{"key", "bad key!"}, {"value", "v"}}, {{"key", "gpu"}, {"effect", "Sometimes"}}}}});
  CHECK(invalid_message(h.post("/api/v1/nodes", bad_taints), 3) ==
        "Node \"n1\" is invalid: [metadata.taints[0].key: Invalid value: \"bad key!\": name part " +
            kQualifiedRegex +
            ", metadata.taints[0].effect: Required value, metadata.taints[1].effect: Unsupported "
            "value: \"Sometimes\": supported values: \"NoSchedule\", \"PreferNoSchedule\", "
            "\"NoExecute\"]");
  Json twice = node("n2", {{"taints",
                            {{{"key", "gpu"}, {"effect", "NoSchedule"}},
                             {{"key", "gpu"}, {"value", "x"}, {"effect", "NoSchedule"}}}}});
  CHECK(invalid_message(h.post("/api/v1/nodes", twice), 1) ==
        "Node \"n2\" is invalid: metadata.taints[1]: Duplicate value: core.Taint{Key:\"gpu\", "
        "Value:\"x\", Effect:\"NoSchedule\", TimeAdded:(*v1.Time)(nil)}: taints must be unique "
        "by key and effect pair");
  CHECK(invalid_message(h.post("/api/v1/nodes", node("n3", {{"podCIDR", "10.0.0.0/33"}})), 1) ==
        "Node \"n3\" is invalid: spec.podCIDRs[0]: Invalid value: \"10.0.0.0/33\": must be a "
        "valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)");

  REQUIRE(h.post("/api/v1/nodes", node("n4", Json::object())).status == 201);
  // Set once (as the node IPAM controller does), then fixed; so is the providerID.
  REQUIRE(h.patch("/api/v1/nodes/n4",
                  {{"spec", {{"podCIDR", "10.244.1.0/24"}, {"providerID", "sim://n4"}}}})
              .status == 200);
  CHECK(
      invalid_message(h.patch("/api/v1/nodes/n4", {{"spec", {{"podCIDR", "10.244.2.0/24"}}}}), 1) ==
      "Node \"n4\" is invalid: spec.podCIDRs: Forbidden: node updates may not change podCIDR "
      "except from \"\" to valid");
  CHECK(invalid_message(h.patch("/api/v1/nodes/n4", {{"spec", {{"providerID", "sim://other"}}}}),
                        1) ==
        "Node \"n4\" is invalid: spec.providerID: Forbidden: node updates may not change "
        "providerID except from \"\" to valid");
  // Taints and unschedulable may change.
  REQUIRE(h.patch("/api/v1/nodes/n4",
                  {{"spec",
                    {{"unschedulable", true},
                     {"taints", {{{"key", "respool.io/drain"}, {"effect", "NoSchedule"}}}}}}})
              .status == 200);
}

TEST_CASE("Pods: containers, resources, policies, tolerations", "[validation][pods]") {
  Harness h;
  const std::string pods = "/api/v1/namespaces/default/pods";
  Json dup = pod("dup", {{{"name", "c"}, {"image", "a:1"}}, {{"name", "c"}}});
  CHECK(invalid_message(h.post(pods, dup), 2) ==
        "Pod \"dup\" is invalid: [spec.containers[1].image: Required value, "
        "spec.containers[1].name: Duplicate value: \"c\"]");

  Json over = pod("over", {{{"name", "c"},
                            {"image", "a:1"},
                            {"resources",
                             {{"limits", {{"cpu", "1"}, {"memory", "-1Gi"}}},
                              {"requests", {{"cpu", "2"}, {"nvidia.com/gpu", "1"}}}}}}});
  // The memory limit also defaults the memory request (SetDefaults_Pod), so both are negative.
  CHECK(invalid_message(h.post(pods, over), 4) ==
        "Pod \"over\" is invalid: [spec.containers[0].resources.limits[memory]: Invalid value: "
        "\"-1Gi\": must be greater than or equal to 0, spec.containers[0].resources.requests: "
        "Invalid value: \"2\": must be less than or equal to cpu limit of 1, "
        "spec.containers[0].resources.requests[memory]: Invalid value: \"-1Gi\": must be greater "
        "than or equal to 0, spec.containers[0].resources.limits: Required value: Limit must be "
        "set for non overcommitable resources]");

  Json words =
      pod("words",
          {{{"name", "c"}, {"image", "a:1"}, {"resources", {{"requests", {{"cpu", "2 cores"}}}}}}});
  auto w = h.post(pods, words);
  REQUIRE(w.status == 400);
  CHECK(w.json()["message"] ==
        "Pod in version \"v1\" cannot be handled as a Pod: quantities must match the regular "
        "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");

  Json policy = pod("policy", {{{"name", "c"}, {"image", "a:1"}}});
  policy["spec"]["restartPolicy"] = "Sometimes";
  policy["spec"]["tolerations"] = {{{"operator", "Equal"}, {"value", "x"}}};
  CHECK(invalid_message(h.post(pods, policy), 2) ==
        "Pod \"policy\" is invalid: [spec.restartPolicy: Unsupported value: \"Sometimes\": "
        "supported values: \"Always\", \"OnFailure\", \"Never\", spec.tolerations[0].operator: "
        "Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means "
        "\"match all values and all keys\"]");
}

TEST_CASE("DaemonSets: the pod template and the update strategy", "[validation][daemonsets]") {
  Harness h;
  const std::string dss = "/apis/apps/v1/namespaces/default/daemonsets";
  REQUIRE(h.post(dss, daemon_set("ok")).status == 201);
  Json restart = daemon_set("restart");
  restart["spec"]["template"]["spec"]["restartPolicy"] = "OnFailure";
  restart["spec"]["template"]["spec"]["containers"][0].erase("image");
  CHECK(invalid_message(h.post(dss, restart), 2) ==
        "DaemonSet.apps \"restart\" is invalid: [spec.template.spec.containers[0].image: "
        "Required value, spec.template.spec.restartPolicy: Unsupported value: \"OnFailure\": "
        "supported values: \"Always\"]");
  Json still = daemon_set("still");
  still["spec"]["updateStrategy"] = {{"type", "RollingUpdate"},
                                     {"rollingUpdate", {{"maxUnavailable", 0}, {"maxSurge", 0}}}};
  CHECK(invalid_message(h.post(dss, still), 1) ==
        "DaemonSet.apps \"still\" is invalid: spec.updateStrategy.rollingUpdate.maxUnavailable: "
        "Required value: cannot be 0 when maxSurge is 0");
  Json moved = daemon_set("ok");
  moved["spec"]["selector"] = {{"matchLabels", {{"app", "new"}}}};
  moved["spec"]["template"]["metadata"]["labels"] = {{"app", "new"}};
  CHECK(invalid_message(h.put(dss + "/ok", moved), 1) ==
        "DaemonSet.apps \"ok\" is invalid: spec.selector: Invalid value: "
        "v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"new\"}, "
        "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable");
  Json empty = daemon_set("empty");
  empty["spec"]["selector"] = Json::object();
  CHECK(invalid_message(h.post(dss, empty), 1) ==
        "DaemonSet.apps \"empty\" is invalid: spec.selector: Invalid value: "
        "v1.LabelSelector{MatchLabels:map[string]string(nil), "
        "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for "
        "daemonset");
  Json mismatch = daemon_set("mismatch");
  mismatch["spec"]["template"]["metadata"]["labels"] = {{"app", "other"}};
  CHECK(invalid_message(h.post(dss, mismatch), 1) ==
        "DaemonSet.apps \"mismatch\" is invalid: spec.template.metadata.labels: Invalid value: "
        "map[string]string{\"app\":\"other\"}: `selector` does not match template `labels`");
}

TEST_CASE("ConfigMaps: keys, binaryData, size and immutability", "[validation][configmaps]") {
  Harness h;
  const std::string cms = "/api/v1/namespaces/default/configmaps";
  Json keys = config_map("keys", {{"bad key", "v"}, {"..dots", "v"}, {"k", "v"}});
  keys["binaryData"] = {{"k", "dg=="}};
  CHECK(invalid_message(h.post(cms, keys), 3) ==
        "ConfigMap \"keys\" is invalid: [data[..dots]: Invalid value: \"..dots\": must not start "
        "with '..', data[bad key]: Invalid value: \"bad key\": a valid config key must consist "
        "of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or "
        "'key-name', regex used for validation is '[-._a-zA-Z0-9]+'), data[k]: Invalid value: "
        "\"k\": duplicate of key present in binaryData]");

  Json big =
      config_map("big", {{"a", std::string(600 * 1024, 'x')}, {"b", std::string(600 * 1024, 'y')}});
  auto b = h.post(cms, big);
  CHECK(invalid_message(b, 1) ==
        "ConfigMap \"big\" is invalid: []: Too long: may not be more than 1048576 bytes");
  CHECK(b.json()["details"]["causes"][0]["reason"] == "FieldValueTooLong");

  Json frozen = config_map("frozen", {{"k", "v"}});
  frozen["immutable"] = true;
  REQUIRE(h.post(cms, frozen).status == 201);
  CHECK(invalid_message(h.patch(cms + "/frozen", {{"data", {{"k", "w"}}}}), 1) ==
        "ConfigMap \"frozen\" is invalid: data: Forbidden: field is immutable when `immutable` "
        "is set");
  CHECK(invalid_message(h.patch(cms + "/frozen", {{"immutable", false}}), 1) ==
        "ConfigMap \"frozen\" is invalid: immutable: Forbidden: field is immutable when "
        "`immutable` is set");
  REQUIRE(h.patch(cms + "/frozen", {{"metadata", {{"labels", {{"a", "b"}}}}}}).status == 200);
}
