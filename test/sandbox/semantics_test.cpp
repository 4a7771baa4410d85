// Object semantics: resourceVersion, generation, finalizers, graceful pod deletion, garbage
// collection, namespaces, paging, patches, dry runs, Events seen two ways.

#include <catch2/catch.hpp>

#include "harness.hpp"

using namespace respool::sandbox::testing;
using respool::sandbox::testing::Json;

namespace {

Json cm(const std::string& name, Json labels = Json::object()) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"labels", labels}}},
          {"data", {{"k", "v"}}}};
}

Json pod(const std::string& name, const std::string& node = "", Json labels = Json::object()) {
  Json p = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"labels", labels}}},
            {"spec", {{"containers", {{{"name", "c"}, {"image", "busybox:1"}}}}}}};
  if (!node.empty()) p["spec"]["nodeName"] = node;
  return p;
}

std::uint64_t rv_of(const Json& obj) {
  return std::stoull(obj["metadata"]["resourceVersion"].get<std::string>());
}

}  // namespace

TEST_CASE("resourceVersions grow globally; a no-op write keeps it", "[conformance][semantics]") {
  Harness h;
  auto a = h.post("/api/v1/namespaces/default/configmaps", cm("a")).json();
  auto b = h.post("/api/v1/namespaces/default/configmaps", cm("b")).json();
  REQUIRE(rv_of(b) > rv_of(a));
  REQUIRE(a["metadata"]["uid"].get<std::string>().size() == 36);
  REQUIRE(a["metadata"].contains("creationTimestamp"));
  REQUIRE_FALSE(a["metadata"].contains("generation"));
  auto same = h.patch("/api/v1/namespaces/default/configmaps/a", {{"data", {{"k", "v"}}}});
  REQUIRE(same.status == 200);
  REQUIRE(rv_of(same.json()) == rv_of(a));
  auto list = h.get("/api/v1/namespaces/default/configmaps").json();
  REQUIRE(list["kind"] == "ConfigMapList");
  REQUIRE(list["apiVersion"] == "v1");
  REQUIRE(list["items"][0]["kind"] == "ConfigMap");
  REQUIRE(rv_of(list) >= rv_of(b));
}

TEST_CASE("generateName adds a random suffix", "[conformance][semantics]") {
  Harness h;
  Json g = cm("");
  g["metadata"].erase("name");
  g["metadata"]["generateName"] = "gen-";
  auto r = h.post("/api/v1/namespaces/default/configmaps", g);
  REQUIRE(r.status == 201);
  std::string name = r.json()["metadata"]["name"];
  REQUIRE(name.size() == 9);
  REQUIRE(name.rfind("gen-", 0) == 0);
  auto none = h.post("/api/v1/namespaces/default/configmaps", cm(""));
  REQUIRE(none.status == 422);
  REQUIRE(
      none.json()["message"] ==
      "ConfigMap \"\" is invalid: metadata.name: Required value: name or generateName is required");
}

TEST_CASE("finalizers hold an object until the last one goes", "[conformance][semantics]") {
  Harness h;
  Json c = cm("held");
  c["metadata"]["finalizers"] = {"example.com/hold"};
  REQUIRE(h.post("/api/v1/namespaces/default/configmaps", c).status == 201);
  auto d = h.del("/api/v1/namespaces/default/configmaps/held");
  REQUIRE(d.status == 200);
  REQUIRE(d.json()["metadata"].contains("deletionTimestamp"));
  auto still = h.get("/api/v1/namespaces/default/configmaps/held");
  REQUIRE(still.status == 200);
  auto add = h.patch("/api/v1/namespaces/default/configmaps/held",
                     {{"metadata", {{"finalizers", {"example.com/hold", "x.io/new"}}}}});
  REQUIRE(add.status == 422);
  auto release = h.patch("/api/v1/namespaces/default/configmaps/held",
                         {{"metadata", {{"finalizers", nullptr}}}});
  REQUIRE(release.status == 200);
  REQUIRE(h.get("/api/v1/namespaces/default/configmaps/held").status == 404);
}

TEST_CASE("delete preconditions are checked", "[conformance][semantics]") {
  Harness h;
  REQUIRE(h.post("/api/v1/namespaces/default/configmaps", cm("p")).status == 201);
  auto r = h.del("/api/v1/namespaces/default/configmaps/p",
                 {{"kind", "DeleteOptions"},
                  {"apiVersion", "v1"},
                  {"preconditions", {{"uid", "not-the-uid"}}}});
  REQUIRE(r.status == 409);
  REQUIRE(r.json()["reason"] == "Conflict");
  auto ok = h.del("/api/v1/namespaces/default/configmaps/p");
  REQUIRE(ok.status == 200);
  REQUIRE(ok.json()["kind"] == "Status");
  REQUIRE(ok.json()["status"] == "Success");
  REQUIRE(ok.json()["details"]["kind"] == "configmaps");
}

TEST_CASE("pods on a node terminate gracefully; unbound pods go at once", "[conformance][pods]") {
  respool::runtime::ManualClock clock;
  Harness h(&clock);
  REQUIRE(h.post("/api/v1/namespaces/default/pods", pod("unbound")).status == 201);
  auto gone = h.del("/api/v1/namespaces/default/pods/unbound");
  REQUIRE(gone.status == 200);
  REQUIRE(gone.json()["kind"] == "Pod");
  REQUIRE(h.get("/api/v1/namespaces/default/pods/unbound").status == 404);

  auto created = h.post("/api/v1/namespaces/default/pods", pod("bound", "n1"));
  REQUIRE(created.status == 201);
  REQUIRE(created.json()["status"]["phase"] == "Pending");
  REQUIRE(created.json()["spec"]["terminationGracePeriodSeconds"] == 30);
  auto marked = h.del("/api/v1/namespaces/default/pods/bound");
  REQUIRE(marked.status == 200);
  REQUIRE(marked.json()["metadata"]["deletionGracePeriodSeconds"] == 30);
  REQUIRE(h.get("/api/v1/namespaces/default/pods/bound").status == 200);
  clock.advance(std::chrono::seconds(31));
  h.engine().reap_expired();
  REQUIRE(h.get("/api/v1/namespaces/default/pods/bound").status == 404);

  // A kubelet's delete with grace 0 removes a terminating pod at once.
  REQUIRE(h.post("/api/v1/namespaces/default/pods", pod("bound2", "n1")).status == 201);
  REQUIRE(h.del("/api/v1/namespaces/default/pods/bound2").status == 200);
  REQUIRE(h.del("/api/v1/namespaces/default/pods/bound2?gracePeriodSeconds=0").status == 200);
  REQUIRE(h.get("/api/v1/namespaces/default/pods/bound2").status == 404);
}

TEST_CASE("pod spec is mostly immutable; status goes through /status", "[conformance][pods]") {
  Harness h;
  Json p = h.post("/api/v1/namespaces/default/pods", pod("p")).json();
  Json changed = p;
  changed["spec"]["nodeName"] = "elsewhere";
  auto r = h.put("/api/v1/namespaces/default/pods/p", changed);
  REQUIRE(r.status == 422);
  REQUIRE(r.json()["details"]["causes"][0]["field"] == "spec");
  auto st = h.patch("/api/v1/namespaces/default/pods/p/status",
                    {{"status", {{"phase", "Running"}}}, {"spec", {{"nodeName", "x"}}}});
  REQUIRE(st.status == 200);
  REQUIRE(st.json()["status"]["phase"] == "Running");
  REQUIRE_FALSE(st.json()["spec"].contains("nodeName"));
  auto main = h.patch("/api/v1/namespaces/default/pods/p", {{"status", {{"phase", "Failed"}}}});
  REQUIRE(main.json()["status"]["phase"] == "Running");
}

TEST_CASE("binding sets nodeName once", "[conformance][pods]") {
  Harness h;
  REQUIRE(h.post("/api/v1/namespaces/default/pods", pod("b")).status == 201);
  Json binding = {{"apiVersion", "v1"},
                  {"kind", "Binding"},
                  {"metadata", {{"name", "b"}}},
                  {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", "n1"}}}};
  auto r = h.post("/api/v1/namespaces/default/pods/b/binding", binding);
  REQUIRE(r.status == 201);
  REQUIRE(r.json()["status"] == "Success");
  REQUIRE(h.get("/api/v1/namespaces/default/pods/b").json()["spec"]["nodeName"] == "n1");
  auto again = h.post("/api/v1/namespaces/default/pods/b/binding", binding);
  REQUIRE(again.status == 409);
}

TEST_CASE("owner deletion collects dependents; Orphan keeps them", "[conformance][gc]") {
  Harness h;
  Json owner = h.post("/api/v1/namespaces/default/configmaps", cm("owner")).json();
  Json ref = {{"apiVersion", "v1"},
              {"kind", "ConfigMap"},
              {"name", "owner"},
              {"uid", owner["metadata"]["uid"]},
              {"controller", true}};
  for (const char* n : {"dep1", "dep2"}) {
    Json d = cm(n);
    d["metadata"]["ownerReferences"] = {ref};
    REQUIRE(h.post("/api/v1/namespaces/default/configmaps", d).status == 201);
  }
  REQUIRE(h.del("/api/v1/namespaces/default/configmaps/owner").status == 200);
  REQUIRE(h.get("/api/v1/namespaces/default/configmaps/dep1").status == 404);
  REQUIRE(h.get("/api/v1/namespaces/default/configmaps/dep2").status == 404);

  Json owner2 = h.post("/api/v1/namespaces/default/configmaps", cm("owner2")).json();
  ref["uid"] = owner2["metadata"]["uid"];
  Json d = cm("kept");
  d["metadata"]["ownerReferences"] = {ref};
  REQUIRE(h.post("/api/v1/namespaces/default/configmaps", d).status == 201);
  REQUIRE(h.del("/api/v1/namespaces/default/configmaps/owner2?propagationPolicy=Orphan").status ==
          200);
  auto kept = h.get("/api/v1/namespaces/default/configmaps/kept");
  REQUIRE(kept.status == 200);
  REQUIRE_FALSE(kept.json()["metadata"].contains("ownerReferences"));
}

TEST_CASE("namespaces: defaults exist, deletion empties them", "[conformance][namespaces]") {
  Harness h;
  for (const char* n : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    REQUIRE(h.get(std::string("/api/v1/namespaces/") + n).status == 200);
  }
  auto ns = h.post(
      "/api/v1/namespaces",
      {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "ref-capture"}}}});
  REQUIRE(ns.status == 201);
  REQUIRE(ns.json()["spec"]["finalizers"] == Json::array({"kubernetes"}));
  REQUIRE(ns.json()["status"]["phase"] == "Active");
  REQUIRE(ns.json()["metadata"]["labels"]["kubernetes.io/metadata.name"] == "ref-capture");
  REQUIRE(h.get("/api/v1/namespaces/ref-capture/serviceaccounts/default").status == 200);
  REQUIRE(h.post("/api/v1/namespaces/ref-capture/configmaps", cm("x")).status == 201);
  REQUIRE(h.del("/api/v1/namespaces/ref-capture").status == 200);
  REQUIRE(h.get("/api/v1/namespaces/ref-capture").status == 404);
  REQUIRE(h.get("/api/v1/namespaces/ref-capture/configmaps/x").status == 404);
}

TEST_CASE("lists page with limit/continue and select by labels and fields", "[conformance][list]") {
  Harness h;
  for (int i = 0; i < 7; ++i) {
    Json labels = {{"i", std::to_string(i)}, {"parity", i % 2 ? "odd" : "even"}};
    REQUIRE(h.post("/api/v1/namespaces/default/configmaps", cm("c" + std::to_string(i), labels))
                .status == 201);
  }
  std::vector<std::string> names;
  std::string cont;
  int pages = 0;
  do {
    std::string target = "/api/v1/namespaces/default/configmaps?limit=3";
    if (!cont.empty()) target += "&continue=" + cont;
    Json page = h.get(target).json();
    for (const Json& item : page["items"])
      names.push_back(item["metadata"]["name"]);
    cont = page["metadata"].value("continue", "");
    if (!cont.empty()) REQUIRE(page["metadata"]["remainingItemCount"].get<int>() > 0);
    ++pages;
  } while (!cont.empty() && pages < 10);
  REQUIRE(pages == 3);
  REQUIRE(names == std::vector<std::string>{"c0", "c1", "c2", "c3", "c4", "c5", "c6"});

  auto odd = h.get("/api/v1/namespaces/default/configmaps?labelSelector=parity%3Dodd").json();
  REQUIRE(odd["items"].size() == 3);
  auto in = h.get("/api/v1/configmaps?labelSelector=i+in+(1,2),parity!%3Deven").json();
  REQUIRE(in["items"].size() == 1);
  auto byname = h.get("/api/v1/configmaps?fieldSelector=metadata.name%3Dc4").json();
  REQUIRE(byname["items"].size() == 1);
  REQUIRE(h.get("/api/v1/configmaps?continue=@@@").status == 400);
}

TEST_CASE("a continue token older than the history is 410 Expired", "[conformance][list]") {
  Harness h(nullptr, 3);
  for (int i = 0; i < 4; ++i) {
    REQUIRE(h.post("/api/v1/namespaces/default/configmaps", cm("c" + std::to_string(i))).status ==
            201);
  }
  std::string cont =
      h.get("/api/v1/namespaces/default/configmaps?limit=1").json()["metadata"]["continue"];
  for (int i = 0; i < 5; ++i) {
    REQUIRE(
        h.patch("/api/v1/namespaces/default/configmaps/c0", {{"data", {{"k", std::to_string(i)}}}})
            .status == 200);
  }
  auto r = h.get("/api/v1/namespaces/default/configmaps?limit=1&continue=" + cont);
  REQUIRE(r.status == 410);
  REQUIRE(r.json()["reason"] == "Expired");
  REQUIRE_FALSE(r.json()["metadata"].value("continue", "").empty());
}

TEST_CASE("merge, JSON and strategic merge patches; dry runs store nothing",
          "[conformance][patch]") {
  Harness h;
  Json node = {{"apiVersion", "v1"},
               {"kind", "Node"},
               {"metadata", {{"name", "n1"}}},
               {"status", {{"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
  REQUIRE(h.post("/api/v1/nodes", node).status == 201);
  // status.conditions merge by type
  auto smp =
      h.patch("/api/v1/nodes/n1/status",
              {{"status", {{"conditions", {{{"type", "DiskPressure"}, {"status", "False"}}}}}}},
              "application/strategic-merge-patch+json");
  REQUIRE(smp.status == 200);
  REQUIRE(smp.json()["status"]["conditions"].size() == 2);
  auto jp = h.patch("/api/v1/nodes/n1",
                    {{{"op", "add"}, {"path", "/metadata/labels"}, {"value", {{"x", "y"}}}}},
                    "application/json-patch+json");
  REQUIRE(jp.status == 200);
  REQUIRE(jp.json()["metadata"]["labels"]["x"] == "y");
  auto mp = h.patch("/api/v1/nodes/n1", {{"spec", {{"unschedulable", true}}}});
  REQUIRE(mp.json()["spec"]["unschedulable"] == true);
  REQUIRE(h.get("/api/v1/nodes?fieldSelector=spec.unschedulable%3Dtrue").json()["items"].size() ==
          1);

  auto dry = h.call({"POST",
                     "/api/v1/namespaces/default/configmaps?dryRun=All",
                     cm("dry").dump(),
                     {{"Content-Type", "application/json"}}});
  REQUIRE(dry.status == 201);
  REQUIRE(h.get("/api/v1/namespaces/default/configmaps/dry").status == 404);
}

TEST_CASE("core/v1 and events.k8s.io/v1 Events are one store", "[conformance][events]") {
  Harness h;
  Json ev = {{"apiVersion", "v1"},
             {"kind", "Event"},
             {"metadata", {{"name", "e1"}, {"namespace", "default"}}},
             {"involvedObject", {{"kind", "Pod"}, {"name", "p1"}, {"namespace", "default"}}},
             {"reason", "Started"},
             {"message", "hello"},
             {"type", "Normal"}};
  REQUIRE(h.post("/api/v1/namespaces/default/events", ev).status == 201);
  auto v1 = h.get("/apis/events.k8s.io/v1/namespaces/default/events/e1");
  REQUIRE(v1.status == 200);
  REQUIRE(v1.json()["apiVersion"] == "events.k8s.io/v1");
  REQUIRE(v1.json()["note"] == "hello");
  REQUIRE(v1.json()["regarding"]["name"] == "p1");
  auto sel = h.get(
      "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dp1,"
      "involvedObject.kind%3DPod");
  REQUIRE(sel.json()["items"].size() == 1);
  Json nv = {{"apiVersion", "events.k8s.io/v1"},
             {"kind", "Event"},
             {"metadata", {{"name", "e2"}}},
             {"regarding", {{"kind", "Node"}, {"name", "n1"}}},
             {"note", "from v1"},
             {"reason", "R"},
             {"type", "Normal"},
             {"action", "A"},
             {"reportingController", "x"},
             {"reportingInstance", "y"},
             {"eventTime", "2026-01-01T00:00:00.000000Z"}};
  REQUIRE(h.post("/apis/events.k8s.io/v1/namespaces/default/events", nv).status == 201);
  auto core = h.get("/api/v1/namespaces/default/events/e2").json();
  REQUIRE(core["message"] == "from v1");
  REQUIRE(core["involvedObject"]["kind"] == "Node");
}

TEST_CASE("leases take the leader-election shape", "[conformance][leases]") {
  Harness h;
  Json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                {"kind", "Lease"},
                {"metadata", {{"name", "l"}, {"namespace", "default"}}},
                {"spec",
                 {{"holderIdentity", "a"},
                  {"leaseDurationSeconds", 15},
                  {"acquireTime", "2026-01-01T00:00:00.000000Z"},
                  {"renewTime", "2026-01-01T00:00:00.000000Z"},
                  {"leaseTransitions", 0}}}};
  auto r = h.post("/apis/coordination.k8s.io/v1/namespaces/default/leases", lease);
  REQUIRE(r.status == 201);
  REQUIRE(r.json()["spec"] == lease["spec"]);
  Json bad = lease;
  bad["metadata"]["name"] = "l2";
  bad["spec"]["leaseDurationSeconds"] = "fifteen";
  auto b = h.post("/apis/coordination.k8s.io/v1/namespaces/default/leases", bad);
  REQUIRE(b.status == 400);
  bad["spec"]["leaseDurationSeconds"] = 0;
  REQUIRE(h.post("/apis/coordination.k8s.io/v1/namespaces/default/leases", bad).status == 422);
}
