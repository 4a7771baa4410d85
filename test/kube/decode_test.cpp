#include <catch2/catch.hpp>

#include "apimachinery/time.hpp"
#include "operator/kube/decode.hpp"

using namespace respool::kube;
using respool::apimachinery::parse_time;

namespace {

const char* kNode = R"json({"kind":"Node","apiVersion":"v1","metadata":{"name":"gpu-1","uid":"u-1",
 "resourceVersion":"42","creationTimestamp":"2026-01-01T00:00:00Z",
 "labels":{"node.kubernetes.io/instance-type":"gpu-8x-a100","topology.kubernetes.io/zone":"az-1"},
 "annotations":{"respool.io/container-engine-space":"50","other":"x"},
 "managedFields":[{"manager":"kubelet","fieldsV1":{"f:status":{}}}]},
 "spec":{"unschedulable":true,"taints":[{"key":"respool.io/pool","value":"gpu-a","effect":"NoSchedule"},
   {"key":"node.kubernetes.io/not-ready","effect":"NoExecute"}]},
 "status":{"capacity":{"cpu":"96","memory":"1Ti","nvidia.com/gpu":"8"},
   "allocatable":{"cpu":"95500m","nvidia.com/gpu":"7"},
   "conditions":[{"type":"MemoryPressure","status":"False"},{"type":"Ready","status":"True"}]}})json";

const char* kPod = R"json({"metadata":{"name":"p","namespace":"ns","uid":"u","resourceVersion":"7",
 "annotations":{"respool.io/driver-version":"535","kubectl.kubernetes.io/last-applied-configuration":"{}"},
 "ownerReferences":[{"apiVersion":"apps/v1","kind":"DaemonSet","name":"ds","uid":"d","controller":true}],
 "deletionTimestamp":null},
 "spec":{"nodeName":"gpu-1","containers":[{"name":"a","resources":{"requests":{"cpu":"1","memory":"1Gi"}}},
   {"name":"b","resources":{"requests":{"cpu":"500m"}}}],
   "initContainers":[{"name":"i","resources":{"requests":{"cpu":"4"}}}]},
 "status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}})json";

// A training worker that failed after a restart, marked by the taint manager.
const char* kWorker = R"json({"metadata":{"name":"w-2","namespace":"ml","uid":"w",
 "labels":{"batch.kubernetes.io/job-completion-index":"2"}},
 "spec":{"nodeName":"gpu-3","restartPolicy":"OnFailure","containers":[{"name":"train"},{"name":"side"}]},
 "status":{"phase":"Failed","conditions":[{"type":"Ready","status":"False"},
   {"type":"DisruptionTarget","status":"True","reason":"DeletionByTaintManager"}],
   "containerStatuses":[
    {"name":"train","restartCount":2,"state":{"terminated":{"exitCode":137,"reason":"Error"}},
     "lastState":{"terminated":{"exitCode":1}}},
    {"name":"side","restartCount":1,"state":{"running":{"startedAt":"2026-03-01T10:00:05Z"}}}]}})json";

}  // namespace

TEST_CASE("a worker pod keeps its restart policy, disruption, restarts, exit code and start",
          "[kube][decode]") {
  auto pod = decode_object<Pod>(kWorker, {});
  REQUIRE(pod);
  CHECK(pod->restart_policy == "OnFailure");
  CHECK(pod->disruption == "DeletionByTaintManager");
  CHECK(pod->restart_count == 3);
  CHECK(pod->exit_code == std::optional<std::int32_t>(137));
  CHECK(pod->started_at == *parse_time("2026-03-01T10:00:05Z"));
  CHECK_FALSE(pod->ready);
  CHECK(pod->terminal());

  // A healthy running pod: none of them, and a DisruptionTarget that is False does not count.
  auto plain = decode_object<Pod>(
      R"({"metadata":{"name":"p"},"status":{"phase":"Running","conditions":[
        {"type":"DisruptionTarget","status":"False","reason":"PreemptionByScheduler"}],
        "containerStatuses":[{"restartCount":0,"state":{"terminated":{"exitCode":0}}}]}})",
      {});
  REQUIRE(plain);
  CHECK(plain->disruption.empty());
  CHECK_FALSE(plain->exit_code);
  CHECK(plain->started_at == TimePoint{});
}

TEST_CASE("a node decodes into its compact form", "[kube][decode]") {
  auto node = decode_object<Node>(kNode, {});
  REQUIRE(node);
  CHECK(node->meta.name == "gpu-1");
  CHECK(node->meta.key() == "gpu-1");
  CHECK(node->meta.resource_version == "42");
  CHECK(node->meta.labels.get("topology.kubernetes.io/zone") ==
        std::optional<std::string_view>("az-1"));
  CHECK(node->meta.annotations.size() == 2);
  CHECK(node->unschedulable);
  REQUIRE(node->taints.size() == 2);
  CHECK(node->find_taint("respool.io/pool")->value == "gpu-a");
  CHECK(node->find_taint("node.kubernetes.io/not-ready")->effect == "NoExecute");
  CHECK(node->ready == ConditionStatus::True);
  CHECK(node->capacity.get("nvidia.com/gpu").value() == 8);
  CHECK(node->allocatable.get("nvidia.com/gpu").value() == 7);
  CHECK(node->allocatable.get("cpu").milli() == 95500);
  CHECK(node->capacity.get("memory").value() == 1024LL * 1024 * 1024 * 1024);

  DecodeOptions only;
  only.keep_annotations = {"respool.io/"};
  auto trimmed = decode_object<Node>(kNode, only);
  REQUIRE(trimmed);
  CHECK(trimmed->meta.annotations.size() == 1);
}

TEST_CASE("a pod keeps requests, phase and listed annotations only", "[kube][decode]") {
  auto pod = decode_object<Pod>(kPod, {});
  REQUIRE(pod);
  CHECK(pod->meta.key() == "ns/p");
  CHECK(pod->meta.annotations.empty());
  CHECK(pod->node_name == "gpu-1");
  CHECK(pod->phase == "Running");
  CHECK(pod->ready);
  CHECK_FALSE(pod->terminal());
  CHECK(pod->owned_by_daemonset());
  CHECK_FALSE(pod->meta.deletion_timestamp);
  // containers sum to 1.5 cpu; the init container's 4 is larger.
  CHECK(pod->requests.get("cpu").milli() == 4000);
  CHECK(pod->requests.get("memory").value() == 1024LL * 1024 * 1024);

  DecodeOptions keep;
  keep.keep_annotations = {"respool.io/driver-version"};
  auto kept = decode_object<Pod>(kPod, keep);
  REQUIRE(kept);
  CHECK(kept->meta.annotations.get("respool.io/driver-version") ==
        std::optional<std::string_view>("535"));
  CHECK(kept->meta.annotations.size() == 1);
}

TEST_CASE("a node keeps whole only the condition types named", "[kube][decode]") {
  const char* json = R"json({"metadata":{"name":"gpu-2"},"status":{"conditions":[
   {"type":"Ready","status":"False","reason":"KubeletNotReady","message":"PLEG"},
   {"type":"GPUHealthy","status":"False","reason":"A050101","message":"GPU 3 lost",
    "lastHeartbeatTime":"2026-11-22T08:00:00Z"},
   {"type":"MemoryPressure","status":"False","reason":"KubeletHasSufficientMemory"}]}})json";
  auto plain = decode_object<Node>(json, {});
  REQUIRE(plain);
  CHECK(plain->ready == ConditionStatus::False);
  CHECK(plain->conditions.empty());

  DecodeOptions agent;
  agent.keep_condition_types = {"GPUHealthy", "ClockSynchronized"};
  auto node = decode_object<Node>(json, agent);
  REQUIRE(node);
  CHECK(node->ready == ConditionStatus::False);
  REQUIRE(node->conditions.size() == 1);
  const auto& c = node->conditions[0];
  CHECK(c.type == "GPUHealthy");
  CHECK(c.status == "False");
  CHECK(c.reason == "A050101");
  CHECK(c.message == "GPU 3 lost");
  CHECK(c.heartbeat == parse_time("2026-11-22T08:00:00Z"));
}

TEST_CASE("list pages and watch events decode", "[kube][decode]") {
  std::string page =
      std::string(R"json({"kind":"NodeList","items":[)json") + kNode + "," + kNode +
      R"json(],"metadata":{"resourceVersion":"99","continue":"abc"},"apiVersion":"v1"})json";
  std::vector<std::string> names;
  std::function<void(Node &&)> on = [&](Node&& n) { names.push_back(n.meta.name); };
  auto info = decode_list_page<Node>(page, {}, on);
  REQUIRE(info);
  CHECK(info->resource_version == "99");
  CHECK(info->continue_token == "abc");
  CHECK(names.size() == 2);

  auto added =
      decode_watch_event<Pod>(std::string(R"json({"type":"ADDED","object":)json") + kPod + "}", {});
  REQUIRE(added);
  CHECK(added->type == WatchEvent<Pod>::Type::Added);
  CHECK(added->resource_version == "7");
  CHECK(added->object->node_name == "gpu-1");

  // Key order does not matter (our sandbox sorts keys).
  auto deleted = decode_watch_event<Unstructured>(
      std::string(R"json({"object":)json") + kPod + R"json(,"type":"DELETED"})json", {});
  REQUIRE(deleted);
  CHECK(deleted->type == WatchEvent<Unstructured>::Type::Deleted);
  CHECK(deleted->object->object["spec"]["nodeName"] == "gpu-1");
  CHECK(deleted->object->meta.name == "p");

  auto bookmark = decode_watch_event<Node>(
      R"json({"type":"BOOKMARK","object":{"kind":"Node","apiVersion":"v1","metadata":{"resourceVersion":"123","creationTimestamp":null,"annotations":{"k8s.io/initial-events-end":"true"}},"spec":{},"status":{}}})json",
      {});
  REQUIRE(bookmark);
  CHECK(bookmark->type == WatchEvent<Node>::Type::Bookmark);
  CHECK(bookmark->resource_version == "123");
  CHECK(bookmark->initial_events_end);

  auto expired = decode_watch_event<Node>(
      R"json({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired","code":410
}
})json",
      {});
  REQUIRE(expired);
  CHECK(expired->type == WatchEvent<Node>::Type::Error);
  CHECK(expired->error->is(Error::Kind::Gone));
  CHECK(expired->error->message == "too old resource version: 1 (5)");

  CHECK_FALSE(
      decode_watch_event<Node>(R"json({"type":"ADDED","object":{"metadata":{"name":5}}})json", {}));
  CHECK_FALSE(decode_watch_event<Node>("not json", {}));
  CHECK_FALSE(decode_watch_event<Node>(R"json({"type":"WHAT","object":{}})json", {}));
}

TEST_CASE("errors map from Status bodies", "[kube][error]") {
  auto e = error_from_response(
      409,
      R"json({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"x already exists","reason":"AlreadyExists","code":409})json");
  CHECK(e.is(Error::Kind::AlreadyExists));
  CHECK(e.message == "x already exists");
  CHECK(error_from_response(409, R"json({"kind":"Status","reason":"Conflict"})json")
            .is(Error::Kind::Conflict));
  CHECK(error_from_response(404, "404 page not found\n").message == "404 page not found");
  auto r = error_from_response(
      429,
      R"json({"kind":"Status","reason":"TooManyRequests","details":{"retryAfterSeconds":3}})json");
  CHECK(r.is(Error::Kind::TooManyRequests));
  CHECK(r.retry_after == std::chrono::seconds(3));
  CHECK(error_from_response(504, "").is(Error::Kind::Timeout));
  CHECK(error_from_response(503, "").is(Error::Kind::ServerError));
}

TEST_CASE("a pod keeps its priority and the pool it selects or tolerates, for named keys only",
          "[kube][decode]") {
  constexpr std::string_view kWaiting = R"({
    "metadata": {"name": "w", "namespace": "ns", "uid": "u"},
    "spec": {
      "priority": 1000,
      "nodeSelector": {"respool.io/pool": "gpu-a", "kubernetes.io/os": "linux"},
      "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
          {"key": "respool.io/zone", "operator": "In", "values": ["az-1"]},
          {"key": "respool.io/flavor", "operator": "In", "values": ["a", "b"]},
          {"key": "respool.io/other", "operator": "NotIn", "values": ["x"]}]}]}}},
      "tolerations": [
        {"key": "respool.io/pool", "value": "gpu-b", "effect": "NoSchedule"},
        {"key": "respool.io/zone", "operator": "Exists"},
        {"operator": "Exists"}],
      "containers": [{"name": "c"}]},
    "status": {"phase": "Pending"}})";
  auto plain = decode_object<Pod>(kWaiting, {});
  REQUIRE(plain);
  CHECK(plain->priority == 1000);  // always kept: the queue's order
  CHECK(plain->node_selector.empty());
  CHECK(plain->tolerations.empty());

  DecodeOptions keep;
  keep.keep_scheduling_keys = {"respool.io/pool", "respool.io/zone", "respool.io/flavor"};
  auto pod = decode_object<Pod>(kWaiting, keep);
  REQUIRE(pod);
  CHECK(pod->node_selector.get("respool.io/pool") == std::optional<std::string_view>("gpu-a"));
  CHECK(pod->node_selector.get("respool.io/zone") == std::optional<std::string_view>("az-1"));
  CHECK_FALSE(pod->node_selector.contains("respool.io/flavor"));  // two values: no one node label
  CHECK_FALSE(pod->node_selector.contains("kubernetes.io/os"));   // not named
  CHECK(pod->tolerations.get("respool.io/pool") == std::optional<std::string_view>("gpu-b"));
  CHECK_FALSE(pod->tolerations.contains("respool.io/zone"));  // Exists names no value
  CHECK(pod->tolerations.size() == 1);
}
