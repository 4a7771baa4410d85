// Every built-in group and kind of kube-apiserver v1.32 in discovery, in both forms, exactly as
// the real server lists them (discovery_reference.hpp), and stored like the kinds served before.

#include <catch2/catch.hpp>
#include <set>
#include <sstream>

#include "discovery_reference.hpp"
#include "harness.hpp"

using namespace respool::sandbox::testing;
namespace ref = respool::sandbox::testing::reference;

namespace {

const char* kAggregated =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";

std::string joined(const Json& list) {
  std::string out;
  if (!list.is_array()) return out;
  for (const Json& v : list) {
    if (!out.empty()) out += ",";
    out += v.get<std::string>();
  }
  return out;
}

std::string kind_of(const Json& k) {
  return k["group"].get<std::string>() + "/" + k["version"].get<std::string>() + "/" +
         k["kind"].get<std::string>();
}

std::vector<std::string> lines(std::string_view text) {
  std::vector<std::string> out;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

std::vector<std::string> aggregated_summary(Harness& h) {
  std::vector<std::string> out;
  for (const char* root : {"/api", "/apis"}) {
    Json doc = h.get(root, kAggregated).json();
    for (const Json& item : doc["items"]) {
      std::string group = item["metadata"].value("name", "");
      for (const Json& v : item["versions"]) {
        for (const Json& r : v["resources"]) {
          std::string subs;
          for (const Json& s : r.value("subresources", Json::array())) {
            if (!subs.empty()) subs += ";";
            subs += s["subresource"].get<std::string>() + ":" + kind_of(s["responseKind"]) + ":" +
                    joined(s["verbs"]);
          }
          out.push_back(group + "/" + v["version"].get<std::string>() + " " +
                        r["resource"].get<std::string>() + " " + kind_of(r["responseKind"]) + " " +
                        r["scope"].get<std::string>() + " " +
                        r["singularResource"].get<std::string>() + " " + joined(r["verbs"]) +
                        " sn=" + joined(r.value("shortNames", Json())) +
                        " cat=" + joined(r.value("categories", Json())) + " sub=" + subs +
                        " fresh=" + v["freshness"].get<std::string>());
        }
      }
    }
  }
  return out;
}

std::vector<std::string> plain_summary(Harness& h, const std::set<std::string>& group_versions) {
  std::vector<std::string> out;
  for (const std::string& gv : group_versions) {
    Json doc = h.get(gv == "v1" ? "/api/v1" : "/apis/" + gv).json();
    for (const Json& r : doc["resources"]) {
      out.push_back(doc["groupVersion"].get<std::string>() + " " + r["name"].get<std::string>() +
                    " " + r["singularName"].get<std::string>() + " " +
                    (r["namespaced"].get<bool>() ? "True" : "False") + " " + r.value("group", "") +
                    "/" + r.value("version", "") + "/" + r["kind"].get<std::string>() + " " +
                    joined(r["verbs"]) + " sn=" + joined(r.value("shortNames", Json())) +
                    " cat=" + joined(r.value("categories", Json())) +
                    " hash=" + r.value("storageVersionHash", ""));
    }
  }
  return out;
}

}  // namespace

TEST_CASE("aggregated discovery lists every built-in resource as kube-apiserver v1.32 does",
          "[conformance][discovery][kinds]") {
  Harness h;
  std::vector<std::string> want = lines(ref::kAggregatedDiscoverySummary);
  std::vector<std::string> got = aggregated_summary(h);
  for (std::size_t i = 0; i < std::max(want.size(), got.size()); ++i) {
    INFO("line " << i);
    REQUIRE((i < got.size() ? got[i] : "<none>") == (i < want.size() ? want[i] : "<none>"));
  }
  // 58 kinds: every resource once, autoscaling's HorizontalPodAutoscaler in two versions.
  std::set<std::string> kinds;
  for (const std::string& line : got) {
    std::istringstream in(line);
    std::string gv, resource;
    in >> gv >> resource;
    kinds.insert(gv.substr(0, gv.rfind('/')) + "/" + resource);
  }
  REQUIRE(kinds.size() == 58);
}

TEST_CASE("legacy discovery: group list and the transcribed APIResourceLists",
          "[conformance][discovery][kinds]") {
  Harness h;
  std::vector<std::string> want = lines(ref::kPlainDiscoverySummary);
  std::set<std::string> gvs;
  for (const std::string& line : want)
    gvs.insert(line.substr(0, line.find(' ')));
  std::vector<std::string> got = plain_summary(h, gvs);
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  REQUIRE(got == want);

  Json groups = h.get("/apis").json()["groups"];
  REQUIRE(groups.size() == 19);
  REQUIRE(groups[5]["name"] == "autoscaling");
  REQUIRE(groups[5]["versions"].size() == 2);
  REQUIRE(groups[5]["preferredVersion"]["version"] == "v2");
  Json v1 = h.get("/apis/autoscaling/v1").json();
  REQUIRE(v1["resources"][0]["storageVersionHash"] ==
          h.get("/apis/autoscaling/v2").json()["resources"][0]["storageVersionHash"]);
}

TEST_CASE("every stored built-in kind can be created, listed, watched and deleted", "[kinds]") {
  Harness h;
  REQUIRE(h.post("/api/v1/namespaces", Json{{"metadata", {{"name", "k"}}}}).status == 201);
  Json doc = h.get("/apis", kAggregated).json();
  Json core = h.get("/api", kAggregated).json();
  doc["items"].insert(doc["items"].begin(), core["items"][0]);
  int stored = 0;
  for (const Json& item : doc["items"]) {
    std::string group = item["metadata"].value("name", "");
    for (const Json& v : item["versions"]) {
      std::string version = v["version"];
      for (const Json& r : v["resources"]) {
        std::string verbs = joined(r["verbs"]);
        if (verbs.find("watch") == std::string::npos) continue;
        std::string plural = r["resource"];
        std::string base = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
        bool ns = r["scope"] == "Namespaced";
        std::string coll = base + (ns ? "/namespaces/k/" : "/") + plural;
        std::string kind = r["responseKind"]["kind"];
        std::string name = "x-" + std::to_string(stored);
        // Objects of kinds with required fields are not created here; their own tests do that.
        static const std::set<std::string> needs_body = {"Pod",
                                                         "Deployment",
                                                         "DaemonSet",
                                                         "Job",
                                                         "ReplicaSet",
                                                         "StatefulSet",
                                                         "CronJob",
                                                         "Node",
                                                         "Namespace",
                                                         "Lease",
                                                         "CustomResourceDefinition",
                                                         "PodDisruptionBudget",
                                                         "Event",
                                                         "Service",
                                                         "ReplicationController"};
        INFO(coll);
        auto list = h.get(coll);
        REQUIRE(list.status == 200);
        REQUIRE(list.json()["kind"] == kind + "List");
        if (needs_body.count(kind)) continue;
        Json obj = {{"apiVersion", group.empty() ? version : group + "/" + version},
                    {"kind", kind},
                    {"metadata", {{"name", name}}}};
        auto watch = h.watch(coll + "?watch=true&resourceVersion=" +
                             list.json()["metadata"]["resourceVersion"].get<std::string>());
        REQUIRE(watch->wait_streaming());
        auto created = h.post(coll, obj);
        INFO(created.body);
        REQUIRE(created.status == 201);
        auto events = watch->events(1);
        REQUIRE(events.size() == 1);
        REQUIRE(events[0]["type"] == "ADDED");
        REQUIRE(events[0]["object"]["kind"] == kind);
        REQUIRE(h.get(coll + "/" + name).status == 200);
        REQUIRE(h.get(coll + "/" + name, "application/json;as=Table;v=v1;g=meta.k8s.io").status ==
                200);
        REQUIRE(h.del(coll + "/" + name).status == 200);
        REQUIRE(h.get(coll + "/" + name).status == 404);
        watch->stop();
        ++stored;
      }
    }
  }
  REQUIRE(stored >= 35);
}
