// Server-side apply and managedFields over HTTP: the PatchOptions checks, creation by apply, the
// 409 of a second manager, force, Update entries of ordinary writes (as the transcripts of a real
// server show them), on a custom resource and on Nodes.

#include <catch2/catch.hpp>

#include "harness.hpp"

using namespace respool::sandbox::testing;
using respool::sandbox::testing::Json;

namespace {

const char* kWidgets = "/apis/ref.example.com/v1/refwidgets";

Reply apply(Harness& h, const std::string& target, const std::string& yaml,
            const std::string& query) {
  return h.call(
      Request("PATCH", target + query, yaml, {{"Content-Type", "application/apply-patch+yaml"}}));
}

Json entry_of(const Json& obj, const std::string& manager, const std::string& operation) {
  for (const Json& e : obj["metadata"].value("managedFields", Json::array())) {
    if (e["manager"] == manager && e["operation"] == operation) return e;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("apply needs a fieldManager; force is for apply only", "[ssa]") {
  Harness h;
  auto missing = apply(h, "/api/v1/namespaces/default/configmaps/c", "data: {k: v}", "");
  REQUIRE(missing.status == 422);
  CHECK(missing.json()["message"] ==
        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for "
        "apply patch");
  CHECK(missing.json()["details"] ==
        Json({{"group", "meta.k8s.io"},
              {"kind", "PatchOptions"},
              {"causes",
               {{{"reason", "FieldValueRequired"},
                 {"message", "Required value: is required for apply patch"},
                 {"field", "fieldManager"}}}}}));
  auto forced = h.call(Request("PATCH", "/api/v1/namespaces/default/configmaps/c?force=true", "{}",
                               {{"Content-Type", "application/merge-patch+json"}}));
  REQUIRE(forced.status == 422);
  CHECK(forced.json()["message"] ==
        "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified for "
        "non-apply patch");
}

TEST_CASE("ordinary writes record Update entries as the transcripts show", "[ssa]") {
  Harness h;
  auto created =
      h.post("/api/v1/namespaces/default/configmaps", {{"apiVersion", "v1"},
                                                       {"kind", "ConfigMap"},
                                                       {"metadata", {{"name", "ref-cm"}}},
                                                       {"data", {{"k", "v"}}}});
  REQUIRE(created.status == 201);
  Json e = created.json()["metadata"]["managedFields"];
  REQUIRE(e.size() == 1);
  CHECK(e[0]["manager"] == "unknown");  // no User-Agent, no fieldManager
  CHECK(e[0]["operation"] == "Update");
  CHECK(e[0]["apiVersion"] == "v1");
  CHECK(e[0]["fieldsType"] == "FieldsV1");
  CHECK(e[0]["fieldsV1"] == R"({"f:data": {".": {}, "f:k": {}}})"_json);
  // cm-merge-patch.txt: the same manager's entry grows.
  auto patched = h.patch("/api/v1/namespaces/default/configmaps/ref-cm",
                         {{"metadata", {{"labels", {{"x", "y"}}}}}, {"data", {{"k", "v5"}}}});
  REQUIRE(patched.status == 200);
  CHECK(
      patched.json()["metadata"]["managedFields"][0]["fieldsV1"] ==
      R"({"f:data": {".": {}, "f:k": {}}, "f:metadata": {"f:labels": {".": {}, "f:x": {}}}})"_json);
  // A named manager gets its own entry and takes the field it changed.
  auto edited = h.call(Request("PATCH", "/api/v1/namespaces/default/configmaps/ref-cm",
                               R"({"data":{"k":"v6"}})",
                               {{"Content-Type", "application/merge-patch+json"},
                                {"User-Agent", "kubectl-edit/v1.32.5 (linux/amd64)"}}));
  REQUIRE(edited.status == 200);
  Json edit = entry_of(edited.json(), "kubectl-edit", "Update");
  REQUIRE(edit.is_object());
  CHECK(edit["fieldsV1"] == R"({"f:data": {"f:k": {}}})"_json);
  CHECK(entry_of(edited.json(), "unknown", "Update")["fieldsV1"] ==
        R"({"f:data": {}, "f:metadata": {"f:labels": {".": {}, "f:x": {}}}})"_json);
  // A PUT without managedFields keeps them; a list of one empty entry strips them all.
  Json body = edited.json();
  body["metadata"].erase("managedFields");
  body["metadata"]["labels"]["y"] = "z";
  auto put = h.put("/api/v1/namespaces/default/configmaps/ref-cm", body);
  REQUIRE(put.status == 200);
  CHECK(put.json()["metadata"]["managedFields"].size() == 2);
  auto stripped = h.patch("/api/v1/namespaces/default/configmaps/ref-cm",
                          {{"metadata", {{"managedFields", Json::array({Json::object()})}}}});
  REQUIRE(stripped.status == 200);
  CHECK_FALSE(stripped.json()["metadata"].contains("managedFields"));
}

TEST_CASE("apply creates, conflicts with a second manager, and force takes over", "[ssa]") {
  Harness h;
  REQUIRE(
      h.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", refwidget_crd()).status ==
      201);
  std::string w1 = std::string(kWidgets) + "/w1";
  const std::string config =
      "apiVersion: ref.example.com/v1\nkind: RefWidget\nmetadata:\n  name: w1\n"
      "spec:\n  size: small\n  color: red\n  replicas: 2\n  mode: manual\n";
  auto created = apply(h, w1, config, "?fieldManager=kubectl");
  REQUIRE(created.status == 201);
  Json mine = entry_of(created.json(), "kubectl", "Apply");
  REQUIRE(mine.is_object());
  CHECK(mine["fieldsV1"] ==
        R"({"f:spec": {"f:color": {}, "f:mode": {}, "f:replicas": {}, "f:size": {}}})"_json);
  CHECK_FALSE(mine.contains("subresource"));

  // Applying the same again changes nothing (no new resourceVersion).
  auto again = apply(h, w1, config, "?fieldManager=kubectl");
  REQUIRE(again.status == 200);
  CHECK(again.json()["metadata"]["resourceVersion"] ==
        created.json()["metadata"]["resourceVersion"]);

  const std::string other =
      "apiVersion: ref.example.com/v1\nkind: RefWidget\nmetadata:\n  name: w1\n"
      "spec:\n  replicas: 5\n";
  auto refused = apply(h, w1, other, "?fieldManager=other");
  REQUIRE(refused.status == 409);
  Json status = refused.json();
  CHECK(status["reason"] == "Conflict");
  CHECK(status["message"] ==
        "Apply failed with 1 conflict: conflict with \"kubectl\": .spec.replicas");
  CHECK(status["details"]["causes"] == Json::array({{{"reason", "FieldManagerConflict"},
                                                     {"message", "conflict with \"kubectl\""},
                                                     {"field", ".spec.replicas"}}}));

  auto forced = apply(h, w1, other, "?fieldManager=other&force=true");
  REQUIRE(forced.status == 200);
  CHECK(forced.json()["spec"]["replicas"] == 5);
  CHECK(entry_of(forced.json(), "kubectl", "Apply")["fieldsV1"] ==
        R"({"f:spec": {"f:color": {}, "f:mode": {}, "f:size": {}}})"_json);
  CHECK(entry_of(forced.json(), "other", "Apply")["fieldsV1"] ==
        R"({"f:spec": {"f:replicas": {}}})"_json);

  // kubectl stops applying mode: it goes from the object (and the schema's default is back).
  auto dropped = apply(h, w1,
                       "apiVersion: ref.example.com/v1\nkind: RefWidget\nmetadata:\n  name: w1\n"
                       "spec:\n  size: small\n  color: red\n",
                       "?fieldManager=kubectl");
  REQUIRE(dropped.status == 200);
  CHECK(dropped.json()["spec"]["mode"] == "auto");
  CHECK(dropped.json()["spec"]["replicas"] == 5);
}

TEST_CASE("Node labels are owned one by one, taints as a whole (listType=atomic)", "[ssa]") {
  Harness h;
  const std::string node =
      "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels:\n    zone: a\n"
      "spec:\n  taints:\n  - key: gpu\n    effect: NoSchedule\n    value: \"yes\"\n";
  auto created = apply(h, "/api/v1/nodes/n1", node, "?fieldManager=ops");
  REQUIRE(created.status == 201);
  CHECK(entry_of(created.json(), "ops", "Apply")["fieldsV1"] ==
        R"({"f:metadata": {"f:labels": {"f:zone": {}}}, "f:spec": {"f:taints": {}}})"_json);

  // Another manager's label: no conflict, both kept.
  auto labelled = apply(h, "/api/v1/nodes/n1",
                        "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels:\n"
                        "    drain: \"yes\"\n",
                        "?fieldManager=drainer");
  REQUIRE(labelled.status == 200);
  CHECK(labelled.json()["metadata"]["labels"] == Json({{"zone", "a"}, {"drain", "yes"}}));
  // NodeSpec.taints is atomic in v1.32: another list is a conflict on the whole field.
  auto refused = apply(h, "/api/v1/nodes/n1",
                       "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nspec:\n  taints:\n"
                       "  - key: maint\n    effect: NoExecute\n",
                       "?fieldManager=drainer");
  REQUIRE(refused.status == 409);
  CHECK(refused.json()["message"] ==
        "Apply failed with 1 conflict: conflict with \"ops\": .spec.taints");
}

TEST_CASE("a create is compared with the kind's zero value, as the real field manager does",
          "[ssa]") {
  Harness h;
  Json deployment = {{"apiVersion", "apps/v1"},
                     {"kind", "Deployment"},
                     {"metadata", {{"name", "web"}}},
                     {"spec",
                      {{"selector", {{"matchLabels", {{"app", "web"}}}}},
                       {"template",
                        {{"metadata", {{"labels", {{"app", "web"}}}}},
                         {"spec", {{"containers", {{{"name", "c"}, {"image", "nginx"}}}}}}}}}}};
  auto created =
      h.call(Request("POST", "/apis/apps/v1/namespaces/default/deployments", deployment.dump(),
                     {{"Content-Type", "application/json"},
                      {"User-Agent", "kubectl-create/v1.32.5 (linux/amd64)"}}));
  REQUIRE(created.status == 201);
  Json e = entry_of(created.json(), "kubectl-create", "Update");
  REQUIRE(e.is_object());
  Json spec = e["fieldsV1"]["f:spec"];
  // Non-pointer structs exist in the zero value: no '.' for spec, strategy, template, its
  // metadata; the pointer rollingUpdate, the nil labels map and list items are added.
  CHECK_FALSE(spec.contains("."));
  CHECK(spec["f:selector"] == Json::object());  // LabelSelector is atomic
  CHECK_FALSE(spec["f:template"].contains("."));
  CHECK_FALSE(spec["f:template"]["f:metadata"].contains("."));
  CHECK(spec["f:template"]["f:metadata"]["f:labels"] == R"({".": {}, "f:app": {}})"_json);
  Json container = spec["f:template"]["f:spec"]["f:containers"]["k:{\"name\":\"c\"}"];
  CHECK_FALSE(spec["f:template"]["f:spec"]["f:containers"].contains("."));  // nil, not absent
  CHECK(container.contains("."));
  CHECK(container.contains("f:image"));
  if (spec.contains("f:strategy")) {
    CHECK_FALSE(spec["f:strategy"].contains("."));
    CHECK(spec["f:strategy"]["f:rollingUpdate"].contains("."));
  }
}

TEST_CASE("status writes are recorded with their subresource", "[ssa]") {
  Harness h;
  REQUIRE(
      h.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", refwidget_crd()).status ==
      201);
  std::string w = std::string(kWidgets) + "/w2";
  REQUIRE(apply(h, w,
                "apiVersion: ref.example.com/v1\nkind: RefWidget\nmetadata:\n  name: w2\n"
                "spec:\n  size: small\n  color: red\n",
                "?fieldManager=kubectl")
              .status == 201);
  auto status = h.call(Request("PATCH", w + "/status?fieldManager=controller",
                               R"({"status":{"phase":"Ready"}})",
                               {{"Content-Type", "application/merge-patch+json"}}));
  REQUIRE(status.status == 200);
  Json e = entry_of(status.json(), "controller", "Update");
  REQUIRE(e.is_object());
  CHECK(e["subresource"] == "status");
  CHECK(e["fieldsV1"] == R"({"f:status": {".": {}, "f:phase": {}}})"_json);
  // Applying status through the main resource owns nothing there (status is reset).
  auto main = apply(h, w,
                    "apiVersion: ref.example.com/v1\nkind: RefWidget\nmetadata:\n  name: w2\n"
                    "spec:\n  size: small\n  color: red\nstatus:\n  phase: Gone\n",
                    "?fieldManager=kubectl");
  REQUIRE(main.status == 200);
  CHECK(main.json()["status"]["phase"] == "Ready");
  CHECK_FALSE(entry_of(main.json(), "kubectl", "Apply")["fieldsV1"].contains("f:status"));
}
