#include <catch2/catch.hpp>

#include "sandbox/simulator/fit.hpp"

using namespace respool::sandbox::sim;
using Json = nlohmann::json;

namespace {
Json node_with_labels(Json labels) {
  return {{"metadata", {{"name", "n1"}, {"labels", labels}}}};
}
}  // namespace

TEST_CASE("a toleration matches a taint by key, value, effect and operator", "[simulator]") {
  const Taint gpu{"gpu", "a100", "NoSchedule"};
  CHECK(tolerates({{"key", "gpu"}, {"value", "a100"}, {"effect", "NoSchedule"}}, gpu));
  CHECK(tolerates({{"key", "gpu"}, {"operator", "Equal"}, {"value", "a100"}}, gpu));
  CHECK_FALSE(tolerates({{"key", "gpu"}, {"value", "v100"}}, gpu));
  CHECK_FALSE(tolerates({{"key", "gpu"}, {"value", "a100"}, {"effect", "NoExecute"}}, gpu));
  CHECK(tolerates({{"key", "gpu"}, {"operator", "Exists"}}, gpu));
  CHECK_FALSE(tolerates({{"key", "other"}, {"operator", "Exists"}}, gpu));
  // An empty key with Exists tolerates every taint.
  CHECK(tolerates({{"operator", "Exists"}}, gpu));
  CHECK(tolerates({{"operator", "Exists"}, {"effect", "NoSchedule"}}, gpu));
  CHECK_FALSE(tolerates({{"operator", "Exists"}, {"effect", "NoExecute"}}, gpu));
}

TEST_CASE("untolerated taints consider only the asked effects", "[simulator]") {
  std::vector<Taint> taints = {
      {"soft", "", "PreferNoSchedule"}, {"pool", "a", "NoSchedule"}, {"dead", "", "NoExecute"}};
  Json tolerations = Json::array({{{"key", "dead"}, {"operator", "Exists"}}});
  auto t = untolerated_taint(taints, tolerations, Effects::NoScheduleAndNoExecute);
  REQUIRE(t);
  CHECK(t->key == "pool");
  CHECK_FALSE(untolerated_taint(taints, tolerations, Effects::NoExecuteOnly));
  CHECK(untolerated_taint(taints, Json(), Effects::NoExecuteOnly)->key == "dead");
}

TEST_CASE("nodeSelector needs every label", "[simulator]") {
  Json node = node_with_labels({{"zone", "az-1"}, {"flavor", "gpu"}});
  CHECK(matches_node_selector({{"nodeSelector", {{"zone", "az-1"}}}}, node));
  CHECK(matches_node_selector({{"nodeSelector", {{"zone", "az-1"}, {"flavor", "gpu"}}}}, node));
  CHECK_FALSE(matches_node_selector({{"nodeSelector", {{"zone", "az-2"}}}}, node));
  CHECK_FALSE(matches_node_selector({{"nodeSelector", {{"rack", "r1"}}}}, node));
  CHECK(matches_node_selector(Json::object(), node));
}

TEST_CASE("required node affinity: terms ORed, expressions ANDed", "[simulator]") {
  Json node = node_with_labels({{"zone", "az-1"}, {"gen", "5"}});
  auto spec = [](Json terms) {
    return Json{
        {"affinity",
         {{"nodeAffinity",
           {{"requiredDuringSchedulingIgnoredDuringExecution", {{"nodeSelectorTerms", terms}}}}}}}};
  };
  auto expr = [](const char* key, const char* op, Json values = Json::array()) {
    Json e = {{"key", key}, {"operator", op}};
    if (!values.empty()) e["values"] = values;
    return e;
  };
  auto term = [](Json exprs) { return Json{{"matchExpressions", exprs}}; };
  CHECK(matches_required_affinity(spec({term({expr("zone", "In", {"az-1", "az-2"})})}), node));
  CHECK_FALSE(matches_required_affinity(spec({term({expr("zone", "NotIn", {"az-1"})})}), node));
  CHECK(matches_required_affinity(spec({term({expr("zone", "Exists")})}), node));
  CHECK_FALSE(matches_required_affinity(spec({term({expr("zone", "DoesNotExist")})}), node));
  CHECK(matches_required_affinity(spec({term({expr("rack", "DoesNotExist")})}), node));
  CHECK(matches_required_affinity(spec({term({expr("rack", "NotIn", {"r1"})})}), node));
  CHECK(matches_required_affinity(spec({term({expr("gen", "Gt", {"4"})})}), node));
  CHECK_FALSE(matches_required_affinity(spec({term({expr("gen", "Lt", {"4"})})}), node));
  // AND within a term.
  CHECK_FALSE(matches_required_affinity(
      spec({term({expr("zone", "In", {"az-1"}), expr("rack", "Exists")})}), node));
  // OR across terms.
  CHECK(matches_required_affinity(
      spec({term({expr("rack", "Exists")}), term({expr("zone", "In", {"az-1"})})}), node));
  // matchFields on metadata.name.
  Json by_name = {{"matchFields", {expr("metadata.name", "In", {"n1"})}}};
  CHECK(matches_required_affinity(spec({by_name}), node));
  // An empty term matches nothing.
  CHECK_FALSE(matches_required_affinity(spec({Json::object()}), node));
  CHECK(matches_required_affinity(Json::object(), node));
}

TEST_CASE("pod requests sum containers, take the largest init container and add overhead",
          "[simulator]") {
  Json spec = {
      {"containers",
       {{{"name", "a"}, {"resources", {{"requests", {{"cpu", "500m"}, {"memory", "1Gi"}}}}}},
        {{"name", "b"}, {"resources", {{"limits", {{"cpu", "1"}, {"nvidia.com/gpu", "2"}}}}}}}},
      {"initContainers", {{{"name", "init"}, {"resources", {{"requests", {{"cpu", "4"}}}}}}}},
      {"overhead", {{"memory", "128Mi"}}}};
  auto r = pod_requests(spec);
  CHECK(r.get("cpu").milli() == 4000);  // the init container needs more than the two together
  CHECK(r.get("memory") == respool::apimachinery::Quantity::parse("1152Mi").value());
  CHECK(r.get("nvidia.com/gpu").value() == 2);  // a limit stands for a missing request
}

TEST_CASE("conditions are read by type", "[simulator]") {
  Json node = {{"status",
                {{"conditions",
                  {{{"type", "Ready"}, {"status", "False"}},
                   {{"type", "MemoryPressure"}, {"status", "True"}}}}}}};
  CHECK(condition_status(node, "Ready") == respool::kube::ConditionStatus::False);
  CHECK(condition_status(node, "MemoryPressure") == respool::kube::ConditionStatus::True);
  CHECK(condition_status(node, "DiskPressure") == respool::kube::ConditionStatus::Unknown);
}
