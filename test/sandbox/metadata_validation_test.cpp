// ObjectMeta refused as kube-apiserver v1.32 refuses it, for every kind (ValidateObjectMeta,
// ValidateObjectMetaUpdate and the core finalizer-name check): generateName, owner references,
// finalizers, and the deletion fields an update may not set or change.

#include <catch2/catch.hpp>

#include "harness.hpp"
#include "invalid_reply.hpp"

using namespace respool::sandbox::testing;
using respool::sandbox::testing::invalid_message;
using respool::sandbox::testing::Json;

namespace {

const std::string kConfigMaps = "/api/v1/namespaces/default/configmaps";

Json config_map(const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}};
}

}  // namespace

TEST_CASE("generateName follows the kind's name rule", "[validation][metadata]") {
  Harness h;
  Json cm = config_map("");
  cm["metadata"].erase("name");
  cm["metadata"]["generateName"] = "cache-";
  auto ok = h.post(kConfigMaps, cm);
  REQUIRE(ok.status == 201);
  CHECK(ok.json()["metadata"]["name"].get<std::string>().starts_with("cache-"));
  Json svc = {{"apiVersion", "v1"},
              {"kind", "Service"},
              {"metadata", {{"generateName", "9web-"}}},
              {"spec", {{"ports", {{{"port", 80}}}}}}};
  auto bad = h.post("/api/v1/namespaces/default/services", svc);
  INFO(bad.body);
  REQUIRE(bad.status == 422);
  CHECK(bad.json()["details"]["causes"][0]["field"] == "metadata.generateName");
}

TEST_CASE("Owner references: required fields, banned owners, one controller",
          "[validation][metadata]") {
  Harness h;
  Json cm = config_map("owned");
  cm["metadata"]["ownerReferences"] = {
      {{"apiVersion", "apps/v1"},
       {"kind", "Deployment"},
       {"name", "a"},
       {"uid", "1"},
       {"controller", true}},
      {{"apiVersion", "apps/v1"},
       {"kind", "StatefulSet"},
       {"name", "b"},
       {"uid", "2"},
       {"controller", true}},
      {{"apiVersion", ""}, {"kind", ""}, {"name", ""}, {"uid", ""}}};
  std::string msg = invalid_message(h.post(kConfigMaps, cm), 5);
  CHECK(msg.find("metadata.ownerReferences: Invalid value: []v1.OwnerReference{v1.OwnerReference{"
                 "APIVersion:\"apps/v1\", Kind:\"Deployment\", Name:\"a\", UID:\"1\", "
                 "Controller:(*bool)(0xc000000000), BlockOwnerDeletion:(*bool)(nil)}") !=
        std::string::npos);
  CHECK(msg.find("Only one reference can have Controller set to true. Found \"true\" in "
                 "references for Deployment/a and StatefulSet/b") != std::string::npos);
  CHECK(msg.find("metadata.ownerReferences.apiVersion: Invalid value: \"\": version must not be "
                 "empty, metadata.ownerReferences.kind: Invalid value: \"\": kind must not be "
                 "empty, metadata.ownerReferences.name: Invalid value: \"\": name must not be "
                 "empty, metadata.ownerReferences.uid: Invalid value: \"\": uid must not be "
                 "empty") != std::string::npos);
  Json event_owned = config_map("event-owned");
  event_owned["metadata"]["ownerReferences"] = {
      {{"apiVersion", "v1"}, {"kind", "Event"}, {"name", "e"}, {"uid", "3"}}};
  CHECK(invalid_message(h.post(kConfigMaps, event_owned), 1) ==
        "ConfigMap \"event-owned\" is invalid: metadata.ownerReferences: Invalid value: "
        "v1.OwnerReference{APIVersion:\"v1\", Kind:\"Event\", Name:\"e\", UID:\"3\", "
        "Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)(nil)}: /v1, Kind=Event is "
        "disallowed from being an owner");
}

TEST_CASE("Finalizers: qualified names, no orphan with foreground", "[validation][metadata]") {
  Harness h;
  Json cm = config_map("fin");
  cm["metadata"]["finalizers"] = {"orphan", "foregroundDeletion", "cleanup"};
  CHECK(invalid_message(h.post(kConfigMaps, cm), 2) ==
        "ConfigMap \"fin\" is invalid: [metadata.finalizers: Invalid value: "
        "[]string{\"orphan\", \"foregroundDeletion\", \"cleanup\"}: finalizer orphan and "
        "foregroundDeletion cannot be both set, metadata.finalizers[2]: Invalid value: "
        "\"cleanup\": name is neither a standard finalizer name nor is it fully qualified]");
  cm["metadata"]["finalizers"] = {"example.com/hold"};
  REQUIRE(h.post(kConfigMaps, cm).status == 201);
  Json live = h.get(kConfigMaps + "/fin").json();
  live["metadata"]["finalizers"].push_back("cleanup");
  CHECK(invalid_message(h.put(kConfigMaps + "/fin", live), 1) ==
        "ConfigMap \"fin\" is invalid: metadata.finalizers[1]: Invalid value: \"cleanup\": name "
        "is neither a standard finalizer name nor is it fully qualified");
  // While it is being deleted no finalizer may be added: all are named as Go prints a []string.
  REQUIRE(h.del(kConfigMaps + "/fin").status == 200);
  live = h.get(kConfigMaps + "/fin").json();
  live["metadata"]["finalizers"] = {"example.com/hold", "b.io/x", "a.io/y"};
  CHECK(invalid_message(h.put(kConfigMaps + "/fin", live), 1) ==
        "ConfigMap \"fin\" is invalid: metadata.finalizers: Forbidden: no new finalizers can be "
        "added if the object is being deleted, found new finalizers []string{\"a.io/y\", "
        "\"b.io/x\"}");
}

TEST_CASE("An update may not set or change the deletion fields", "[validation][metadata]") {
  Harness h;
  REQUIRE(h.post(kConfigMaps, config_map("live")).status == 201);
  Json live = h.get(kConfigMaps + "/live").json();
  live["metadata"]["deletionTimestamp"] = "2030-01-02T03:04:05Z";
  live["metadata"]["deletionGracePeriodSeconds"] = 5;
  CHECK(invalid_message(h.put(kConfigMaps + "/live", live), 2) ==
        "ConfigMap \"live\" is invalid: [metadata.deletionTimestamp: Invalid value: "
        "2030-01-02 03:04:05 +0000 UTC: field is immutable, "
        "metadata.deletionGracePeriodSeconds: Invalid value: 5: field is immutable]");
  // What the server owns and a client leaves out or changes is taken from the stored object.
  live = h.get(kConfigMaps + "/live").json();
  const Json stored_meta = live["metadata"];
  live["metadata"]["creationTimestamp"] = "2001-01-01T00:00:00Z";
  live["metadata"].erase("uid");
  live["data"] = {{"k", "v"}};
  auto updated = h.put(kConfigMaps + "/live", live);
  REQUIRE(updated.status == 200);
  CHECK(updated.json()["metadata"]["creationTimestamp"] == stored_meta["creationTimestamp"]);
  CHECK(updated.json()["metadata"]["uid"] == stored_meta["uid"]);
}
