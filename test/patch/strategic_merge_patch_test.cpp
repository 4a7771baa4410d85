#include <catch2/catch.hpp>

#include "sandbox/patch/patch.hpp"

using respool::sandbox::patch::strategic_merge_patch;
using Json = nlohmann::json;

namespace {

struct Case {
  const char* name;
  const char* kind;
  const char* original;
  const char* patch;
  const char* result;
};

void check(const Case& c) {
  CAPTURE(c.name);
  auto result = strategic_merge_patch(Json::parse(c.original), Json::parse(c.patch), c.kind);
  if (!result) FAIL(result.error().code << " " << result.error().message);
  CHECK(result->dump() == Json::parse(c.result).dump());
}

struct Failure {
  const char* name;
  const char* kind;
  const char* original;
  const char* patch;
  int code;
  const char* message;
};

void check(const Failure& c) {
  CAPTURE(c.name);
  auto result = strategic_merge_patch(Json::parse(c.original), Json::parse(c.patch), c.kind);
  REQUIRE_FALSE(result.has_value());
  CHECK(result.error().code == c.code);
  CHECK(result.error().message == c.message);
}

}  // namespace

TEST_CASE("what kubectl label, annotate, cordon and taint send", "[patch][strategic]") {
  const std::vector<Case> cases = {
      {"kubectl label: add one, remove one", "Node",
       R"({"metadata":{"name":"n1","labels":{"a":"1","b":"2"}}})",
       R"({"metadata":{"labels":{"a":null,"c":"3"}}})",
       R"({"metadata":{"name":"n1","labels":{"b":"2","c":"3"}}})"},
      {"kubectl annotate on an object without annotations", "Pod", R"({"metadata":{"name":"p"}})",
       R"({"metadata":{"annotations":{"x":"y","gone":null}}})",
       R"({"metadata":{"annotations":{"x":"y"},"name":"p"}})"},
      {"kubectl cordon", "Node", R"({"metadata":{"name":"n1"},"spec":{"podCIDR":"10.0.0.0/24"}})",
       R"({"spec":{"unschedulable":true}})",
       R"({"metadata":{"name":"n1"},"spec":{"podCIDR":"10.0.0.0/24","unschedulable":true}})"},
      {"kubectl uncordon", "Node", R"({"spec":{"unschedulable":true}})",
       R"({"spec":{"unschedulable":null}})", R"({"spec":{}})"},
      {"kubectl taint: taints have no patch strategy, the list is replaced", "Node",
       R"({"spec":{"taints":[{"key":"a","effect":"NoSchedule"},{"key":"b","effect":"NoExecute"}]}})",
       R"({"spec":{"taints":[{"key":"b","effect":"NoExecute"},{"key":"c","value":"v","effect":"NoSchedule"}]}})",
       R"({"spec":{"taints":[{"effect":"NoExecute","key":"b"},{"effect":"NoSchedule","key":"c","value":"v"}]}})"},
      {"kubectl taint removing the last taint", "Node", R"({"spec":{"taints":[{"key":"a"}]}})",
       R"({"spec":{"taints":null}})", R"({"spec":{}})"},
      {"the reference ConfigMap patch (cm-strategic-merge-patch.txt)", "ConfigMap",
       R"({"metadata":{"name":"ref-cm","labels":{"x":"y"}},"data":{"k":"v5"}})",
       R"({"data":{"k2":"v"}})",
       R"({"data":{"k":"v5","k2":"v"},"metadata":{"labels":{"x":"y"},"name":"ref-cm"}})"},
      {"a null for a field that is absent changes nothing", "Node", R"({"spec":{}})",
       R"({"spec":{"unschedulable":null},"status":null})", R"({"spec":{}})"},
  };
  for (const Case& c : cases)
    check(c);
}

TEST_CASE("lists with a merge key merge by it", "[patch][strategic]") {
  const std::vector<Case> cases = {
      {"containers by name, env by name within", "Pod",
       R"({"spec":{"containers":[{"name":"a","image":"a:1"},
           {"name":"b","image":"b:1","env":[{"name":"X","value":"1"},{"name":"Y","value":"2"}]}]}})",
       R"({"spec":{"containers":[
           {"name":"b","image":"b:2","env":[{"name":"Y","value":"3"},{"name":"Z","value":"4"}]},
           {"name":"c","image":"c:1"}]}})",
       R"({"spec":{"containers":[{"image":"a:1","name":"a"},
           {"env":[{"name":"X","value":"1"},{"name":"Y","value":"3"},{"name":"Z","value":"4"}],
            "image":"b:2","name":"b"},{"image":"c:1","name":"c"}]}})"},
      {"an item only the patch has goes before the live items (apimachinery order)", "Pod",
       R"({"spec":{"containers":[{"name":"a","image":"a:1"}]}})",
       R"({"spec":{"containers":[{"name":"c","image":"c:1"}]}})",
       R"({"spec":{"containers":[{"image":"c:1","name":"c"},{"image":"a:1","name":"a"}]}})"},
      {"ports by containerPort", "Pod",
       R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"name":"http"}]}]}})",
       R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"protocol":"TCP"}]}]}})",
       R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"name":"http","protocol":"TCP"}]}]}})"},
      {"volumes by name", "Pod",
       R"({"spec":{"volumes":[{"name":"v1","emptyDir":{}},{"name":"v2","emptyDir":{}}]}})",
       R"({"spec":{"volumes":[{"name":"v2","emptyDir":{"medium":"Memory"}}]}})",
       R"({"spec":{"volumes":[{"emptyDir":{},"name":"v1"},{"emptyDir":{"medium":"Memory"},"name":"v2"}]}})"},
      {"tolerations have no patch strategy: replaced", "Pod",
       R"({"spec":{"tolerations":[{"key":"a","operator":"Exists"}]}})",
       R"({"spec":{"tolerations":[{"key":"b","operator":"Exists"}]}})",
       R"({"spec":{"tolerations":[{"key":"b","operator":"Exists"}]}})"},
      {"node conditions by type keep their places", "Node",
       R"({"status":{"conditions":[{"type":"Ready","status":"True"},{"type":"MemoryPressure","status":"False"}]}})",
       R"({"status":{"conditions":[{"type":"Ready","status":"False","reason":"KubeletNotReady"}]}})",
       R"({"status":{"conditions":[{"reason":"KubeletNotReady","status":"False","type":"Ready"},
           {"status":"False","type":"MemoryPressure"}]}})"},
      {"a new pod condition", "Pod",
       R"({"status":{"conditions":[{"type":"Ready","status":"True"}]}})",
       R"({"status":{"conditions":[{"type":"DisruptionTarget","status":"True","reason":"EvictionByEvictionAPI"}]}})",
       R"({"status":{"conditions":[{"reason":"EvictionByEvictionAPI","status":"True","type":"DisruptionTarget"},
           {"status":"True","type":"Ready"}]}})"},
      {"node addresses by type", "Node",
       R"({"status":{"addresses":[{"type":"InternalIP","address":"10.0.0.1"},{"type":"Hostname","address":"n1"}]}})",
       R"({"status":{"addresses":[{"type":"InternalIP","address":"10.0.0.2"}]}})",
       R"({"status":{"addresses":[{"address":"10.0.0.2","type":"InternalIP"},{"address":"n1","type":"Hostname"}]}})"},
      {"ownerReferences by uid", "Pod",
       R"({"metadata":{"ownerReferences":[{"uid":"u1","kind":"DaemonSet","name":"ds"}]}})",
       R"({"metadata":{"ownerReferences":[{"uid":"u1","controller":true}]}})",
       R"({"metadata":{"ownerReferences":[{"controller":true,"kind":"DaemonSet","name":"ds","uid":"u1"}]}})"},
      {"service ports by port", "Service",
       R"({"spec":{"ports":[{"port":80,"targetPort":8080},{"port":443}]}})",
       R"({"spec":{"ports":[{"port":443,"name":"https"}]}})",
       R"({"spec":{"ports":[{"port":80,"targetPort":8080},{"name":"https","port":443}]}})"},
      {"daemon set template containers", "DaemonSet",
       R"({"spec":{"template":{"spec":{"containers":[{"name":"agent","image":"agent:1"},{"name":"s","image":"s:1"}]}}}})",
       R"({"spec":{"template":{"spec":{"containers":[{"name":"agent","image":"agent:2"}]}}}})",
       R"({"spec":{"template":{"spec":{"containers":[{"image":"agent:2","name":"agent"},{"image":"s:1","name":"s"}]}}}})"},
      {"unknown kinds replace lists and merge objects", "Widget",
       R"({"spec":{"items":[{"name":"a"}],"map":{"a":1}}})",
       R"({"spec":{"items":[{"name":"b"}],"map":{"b":2}}})",
       R"({"spec":{"items":[{"name":"b"}],"map":{"a":1,"b":2}}})"},
      {"the whole list added where there was none", "Pod", R"({"spec":{}})",
       R"({"spec":{"containers":[{"name":"a","env":[{"name":"X","value":null}]},{"$patch":"delete","name":"z"}]}})",
       R"({"spec":{"containers":[{"env":[{"name":"X"}],"name":"a"}]}})"},
  };
  for (const Case& c : cases)
    check(c);
}

TEST_CASE("primitive lists with a merge strategy: finalizers", "[patch][strategic]") {
  const std::vector<Case> cases = {
      {"add a finalizer", "Pod", R"({"metadata":{"finalizers":["x"]}})",
       R"({"metadata":{"finalizers":["y"]}})", R"({"metadata":{"finalizers":["y","x"]}})"},
      {"adding one already there keeps one copy", "Pod", R"({"metadata":{"finalizers":["x","y"]}})",
       R"({"metadata":{"finalizers":["z","x"]}})", R"({"metadata":{"finalizers":["z","x","y"]}})"},
      {"$deleteFromPrimitiveList", "Pod", R"({"metadata":{"finalizers":["x","y","z"]}})",
       R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["y","absent"]}})",
       R"({"metadata":{"finalizers":["x","z"]}})"},
      {"$deleteFromPrimitiveList of a list that is not there", "Pod", R"({"metadata":{}})",
       R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["y"]}})", R"({"metadata":{}})"},
      {"delete and add together", "Namespace", R"({"metadata":{"finalizers":["a","b"]}})",
       R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["a"],"finalizers":["c"]}})",
       R"({"metadata":{"finalizers":["c","b"]}})"},
      {"node podCIDRs merge", "Node", R"({"spec":{"podCIDRs":["10.0.0.0/24"]}})",
       R"({"spec":{"podCIDRs":["fd00::/64"]}})",
       R"({"spec":{"podCIDRs":["fd00::/64","10.0.0.0/24"]}})"},
  };
  for (const Case& c : cases)
    check(c);
}

TEST_CASE("$setElementOrder orders merged lists", "[patch][strategic]") {
  const std::vector<Case> cases = {
      {"reorder containers while updating one", "Pod",
       R"({"spec":{"containers":[{"name":"a","image":"a:1"},{"name":"b","image":"b:1"}]}})",
       R"({"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}],
                   "containers":[{"name":"a","image":"a:2"}]}})",
       R"({"spec":{"containers":[{"image":"b:1","name":"b"},{"image":"a:2","name":"a"}]}})"},
      {"an added item takes its place in the order", "Pod",
       R"({"spec":{"containers":[{"name":"a"},{"name":"c"}]}})",
       R"({"spec":{"$setElementOrder/containers":[{"name":"a"},{"name":"b"},{"name":"c"}],
                   "containers":[{"name":"b","image":"b:1"}]}})",
       R"({"spec":{"containers":[{"name":"a"},{"image":"b:1","name":"b"},{"name":"c"}]}})"},
      {"items the server added stay where they were relative to the ordered ones", "Pod",
       R"({"spec":{"containers":[{"name":"a"},{"name":"injected"},{"name":"b"}]}})",
       R"({"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}]}})",
       R"({"spec":{"containers":[{"name":"injected"},{"name":"b"},{"name":"a"}]}})"},
      {"delete an item the new order leaves out", "Pod",
       R"({"spec":{"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]}})",
       R"({"spec":{"$setElementOrder/containers":[{"name":"a"},{"name":"c"}],
                   "containers":[{"$patch":"delete","name":"b"}]}})",
       R"({"spec":{"containers":[{"name":"a"},{"name":"c"}]}})"},
      {"finalizers: kubectl apply's three lists", "Pod",
       R"({"metadata":{"finalizers":["a","b","d"]}})",
       R"({"metadata":{"$setElementOrder/finalizers":["b","c"],
                       "$deleteFromPrimitiveList/finalizers":["a"],"finalizers":["c"]}})",
       R"({"metadata":{"finalizers":["b","c","d"]}})"},
      {"an order for a list neither side has changes nothing", "Pod", R"({"spec":{}})",
       R"({"spec":{"$setElementOrder/containers":[{"name":"a"}]}})", R"({"spec":{}})"},
  };
  for (const Case& c : cases)
    check(c);
}

TEST_CASE("$patch directives on objects and list items", "[patch][strategic]") {
  const std::vector<Case> cases = {
      {"$patch: delete on a list item", "Pod",
       R"({"spec":{"containers":[{"name":"a"},{"name":"b"}]}})",
       R"({"spec":{"containers":[{"name":"b","$patch":"delete"}]}})",
       R"({"spec":{"containers":[{"name":"a"}]}})"},
      {"$patch: delete of an item that is not there", "Pod",
       R"({"spec":{"containers":[{"name":"a"}]}})",
       R"({"spec":{"containers":[{"name":"z","$patch":"delete"}]}})",
       R"({"spec":{"containers":[{"name":"a"}]}})"},
      {"$patch: replace on a list", "Pod",
       R"({"spec":{"containers":[{"name":"a","image":"a:1"},{"name":"b"}]}})",
       R"({"spec":{"containers":[{"$patch":"replace"},{"name":"a","image":"a:2"}]}})",
       R"({"spec":{"containers":[{"image":"a:2","name":"a"}]}})"},
      {"$patch: replace on an object", "Pod", R"({"metadata":{"labels":{"a":"1","b":"2"}}})",
       R"({"metadata":{"labels":{"$patch":"replace","c":"3"}}})",
       R"({"metadata":{"labels":{"c":"3"}}})"},
      {"$patch: delete on an object empties it", "Pod", R"({"metadata":{"labels":{"a":"1"}}})",
       R"({"metadata":{"labels":{"$patch":"delete"}}})", R"({"metadata":{"labels":{}}})"},
      {"$patch: delete on an object that is not there", "Pod", R"({"metadata":{}})",
       R"({"metadata":{"labels":{"$patch":"delete"}}})", R"({"metadata":{}})"},
      {"$retainKeys clears what is not listed", "Deployment",
       R"({"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}}}})",
       R"({"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}})",
       R"({"spec":{"strategy":{"type":"Recreate"}}})"},
      {"$retainKeys on a volume", "Pod", R"({"spec":{"volumes":[{"name":"v","emptyDir":{}}]}})",
       R"({"spec":{"volumes":[{"$retainKeys":["configMap","name"],"name":"v","configMap":{"name":"c"}}]}})",
       R"({"spec":{"volumes":[{"configMap":{"name":"c"},"name":"v"}]}})"},
  };
  for (const Case& c : cases)
    check(c);
}

TEST_CASE("a kubectl apply three-way patch of a Deployment", "[patch][strategic]") {
  const Case apply = {
      "apply", "Deployment",
      R"({"metadata":{"name":"web","annotations":{"deployment.kubernetes.io/revision":"1"}},
          "spec":{"replicas":2,"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%"}},
            "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[
              {"name":"web","image":"web:1","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]},
              {"name":"old","image":"old:1"}]}}},
          "status":{"replicas":2}})",
      R"({"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}},
          "spec":{"replicas":3,"strategy":{"$retainKeys":["type"],"type":"Recreate"},
            "template":{"spec":{
              "$setElementOrder/containers":[{"name":"sidecar"},{"name":"web"}],
              "containers":[
                {"image":"sidecar:1","name":"sidecar"},
                {"$setElementOrder/env":[{"name":"B"},{"name":"C"}],
                 "env":[{"name":"C","value":"3"},{"$patch":"delete","name":"A"}],
                 "image":"web:2","name":"web"},
                {"$patch":"delete","name":"old"}]}}}})",
      R"({"metadata":{"annotations":{"deployment.kubernetes.io/revision":"1",
            "kubectl.kubernetes.io/last-applied-configuration":"{}"},"name":"web"},
          "spec":{"replicas":3,"strategy":{"type":"Recreate"},
            "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[
              {"image":"sidecar:1","name":"sidecar"},
              {"env":[{"name":"B","value":"2"},{"name":"C","value":"3"}],"image":"web:2","name":"web"}]}}},
          "status":{"replicas":2}})"};
  check(apply);
}

TEST_CASE("strategic merge patch errors carry the API server's codes", "[patch][strategic]") {
  const std::vector<Failure> cases = {
      {"a patch that is not an object", "Pod", "{}", "[1]", 400,
       "json: cannot unmarshal array into Go value of type map[string]interface {}"},
      {"$patch: merge on an object", "Pod", R"({"metadata":{"labels":{"x":"y"}}})",
       R"({"metadata":{"labels":{"$patch":"merge","a":"b"}}})", 500,
       "unknown patch type: merge in map: map[$patch:merge a:b]"},
      {"$patch: merge on a list item", "Pod", R"({"spec":{"containers":[{"name":"a"}]}})",
       R"({"spec":{"containers":[{"$patch":"merge","name":"a"}]}})", 500,
       "merging lists cannot yet be specified in the patch"},
      {"a list item without its merge key", "Pod", R"({"spec":{"containers":[{"name":"a"}]}})",
       R"({"spec":{"containers":[{"image":"x"}]}})", 500,
       "map: map[image:x] does not contain declared merge key: name"},
      {"$patch: delete without the merge key", "Pod", R"({"spec":{"containers":[{"name":"a"}]}})",
       R"({"spec":{"containers":[{"$patch":"delete"}]}})", 500,
       "map: map[$patch:delete] does not contain declared merge key: name"},
      {"a patch list out of the $setElementOrder", "Pod",
       R"({"spec":{"containers":[{"name":"a"}]}})",
       R"({"spec":{"$setElementOrder/containers":[{"name":"a"}],"containers":[{"name":"b","image":"x"}]}})",
       500,
       "the order in patch list:\n[map[image:x name:b]]\n doesn't match $setElementOrder "
       "list:\n[map[name:a]]"},
      {"a key outside $retainKeys", "Deployment", R"({"spec":{"strategy":{"type":"Recreate"}}})",
       R"({"spec":{"strategy":{"$retainKeys":["type"],"type":"RollingUpdate","rollingUpdate":{}}}})",
       400, "invalid patch format of retainKeys"},
      {"$retainKeys that is not a list", "Deployment", R"({"spec":{"strategy":{}}})",
       R"({"spec":{"strategy":{"$retainKeys":"type"}}})", 400,
       "invalid patch format of retainKeys"},
      {"a malformed $deleteFromPrimitiveList", "Pod", R"({"metadata":{"finalizers":["a"]}})",
       R"({"metadata":{"$deleteFromPrimitiveListX/finalizers":["a"]}})", 400,
       "invalid patch format of primitive list"},
      {"a malformed $setElementOrder", "Pod", R"({"metadata":{"finalizers":["a"]}})",
       R"({"metadata":{"$setElementOrderX/finalizers":["a"]}})", 400,
       "invalid patch format of setElementOrder list"},
      {"a list of lists", "Pod", R"({"metadata":{"finalizers":[]}})",
       R"({"metadata":{"finalizers":[["a"]]}})", 422,
       "the server rejected our request due to an error in our request"},
      {"mixed element types", "Pod", R"({"metadata":{"finalizers":["a"]}})",
       R"({"metadata":{"finalizers":[1]}})", 500,
       "list element types are not identical: [[a] [1]]"},
  };
  for (const Failure& c : cases)
    check(c);
}

TEST_CASE("a null patch changes nothing and the target is not modified", "[patch][strategic]") {
  const Json target = Json::parse(R"({"metadata":{"labels":{"a":"1"}}})");
  auto same = strategic_merge_patch(target, nullptr, "Pod");
  REQUIRE(same.has_value());
  CHECK(*same == target);
  auto changed =
      strategic_merge_patch(target, Json::parse(R"({"metadata":{"labels":null}})"), "Pod");
  REQUIRE(changed.has_value());
  CHECK(*changed == Json::parse(R"({"metadata":{}})"));
  CHECK(target == Json::parse(R"({"metadata":{"labels":{"a":"1"}}})"));
}
