#pragma once
// A whole respool in process for integration tests: the sandbox (API server and simulator),
// the CRDs of crds/, and the operator's manager with every controller, all on one clock, talking
// over real HTTPS.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "operator/kube/client.hpp"
#include "operator/kube/yaml.hpp"
#include "operator/runtime/log.hpp"
#include "operator/runtime/manager.hpp"
#include "reconcilers/setup.hpp"
#include "sandbox/sandbox.hpp"

namespace respool::test {

using kube::Json;
using namespace std::chrono_literals;

inline std::string source_file(const std::string& relative) {
  return std::string(RESPOOL_SOURCE_DIR) + "/" + relative;
}

inline Json yaml_file(const std::string& relative) {
  auto json = kube::yaml_file_to_json(source_file(relative));
  REQUIRE(json);
  return *json;
}

struct HarnessOptions {
  std::string nodes_yaml{};
  double time_scale = 1.0;  // simulated seconds per real second
  std::string job_selector{};
  std::string prometheus_url{};  // the operator's --prometheus-url
};

class Harness {
 public:
  explicit Harness(HarnessOptions options) : clock_(options.time_scale) {
    audit_path_ = std::filesystem::temp_directory_path() /
                  ("respool-audit-" + std::to_string(::getpid()) + "-" +
                   std::to_string(reinterpret_cast<std::uintptr_t>(this)) + ".log");
    runtime::log::configure(runtime::log::Format::Text, runtime::log::Level::Warn);
    runtime::log::open_audit(audit_path_.string());
    sandbox::SandboxOptions so;
    so.nodes_yaml = options.nodes_yaml;
    so.clock = &clock_;
    auto sb = sandbox::Sandbox::start(so);
    REQUIRE(sb);
    sandbox_ = std::move(*sb);
    auto client = kube::Client::create(sandbox_->cluster_config());
    REQUIRE(client);
    client_ = std::move(*client);
    for (const char* crd : {"crds/networks.yaml", "crds/resourcepools.yaml",
                            "crds/nodeoperations.yaml", "crds/diagnoses.yaml"}) {
      REQUIRE(client_->create(kube::resources::customresourcedefinitions, "", yaml_file(crd)));
    }
    REQUIRE(client_->create(kube::resources::namespaces, "",
                            Json{{"apiVersion", "v1"},
                                 {"kind", "Namespace"},
                                 {"metadata", {{"name", "respool-system"}}}}));

    job_selector_ = options.job_selector;
    prometheus_url_ = options.prometheus_url;
    start_operator();
  }

  ~Harness() {
    stop_operator();
    sandbox_->stop();
    runtime::log::open_audit("-");
    std::filesystem::remove(audit_path_);
  }

  // A new operator process, as after a crash or an upgrade: nothing kept in memory.
  void restart_operator() {
    stop_operator();
    start_operator();
  }

  kube::Client& client() { return *client_; }
  sandbox::Sandbox& sandbox() { return *sandbox_; }
  sandbox::Simulator& simulator() { return *sandbox_->simulator(); }
  runtime::Manager& manager() { return *manager_; }
  runtime::ScaledClock& clock() { return clock_; }

  void apply(const Json& object, const kube::Resource& resource) {
    auto created = client_->create(resource, object["metadata"].value("namespace", ""), object);
    INFO(object.dump());
    REQUIRE(created);
  }

  Json get(const kube::Resource& resource, const std::string& name, const std::string& ns = "") {
    auto got = client_->get(resource, ns, name);
    REQUIRE(got);
    return *got;
  }

  Json pool(const std::string& name) { return get(kube::resources::resourcepools, name); }
  Json network(const std::string& name) { return get(kube::resources::networks, name); }

  // Merge-patches a pool's spec.
  void patch_pool(const std::string& name, const Json& spec_patch) {
    auto r = client_->patch(kube::resources::resourcepools, "", name, kube::PatchType::Merge,
                            Json{{"spec", spec_patch}});
    INFO((r ? std::string() : r.error().describe()));
    REQUIRE(r);
  }

  // Polls `condition` (which may read the API) until it holds or `limit` (real time) passes.
  bool eventually(const std::function<bool()>& condition, std::chrono::seconds limit = 60s) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (condition()) return true;
      std::this_thread::sleep_for(50ms);
    }
    return condition();
  }

  std::string phase(const std::string& pool_name) {
    auto p = client_->get(kube::resources::resourcepools, "", pool_name);
    if (!p) return "<" + p.error().describe() + ">";
    return p->value("status", Json::object()).value("phase", "");
  }

  // The nodes the pool owns (by label), as the API shows them.
  std::vector<Json> pool_nodes(const std::string& pool_name) {
    kube::ListOptions o;
    o.label_selector = "respool.io/pool=" + pool_name;
    auto list = client_->list(kube::resources::nodes, "", o);
    REQUIRE(list);
    return (*list)["items"].get<std::vector<Json>>();
  }

  std::vector<Json> nodes() {
    auto list = client_->list(kube::resources::nodes, "");
    REQUIRE(list);
    return (*list)["items"].get<std::vector<Json>>();
  }

  // Events regarding an object (events.k8s.io/v1), oldest first.
  std::vector<Json> events_for(const std::string& name) {
    auto list = client_->list(kube::resources::events_v1, "");
    REQUIRE(list);
    std::vector<Json> out;
    for (auto& e : (*list)["items"]) {
      if (e.value("regarding", Json::object()).value("name", "") == name) out.push_back(e);
    }
    return out;
  }

  bool has_event(const std::string& name, const std::string& reason, const std::string& note) {
    for (const auto& e : events_for(name)) {
      if (e.value("reason", "") == reason && e.value("note", "") == note) return true;
    }
    return false;
  }

  std::vector<Json> audit_lines() {
    std::ifstream in(audit_path_);
    std::vector<Json> out;
    std::string line;
    while (std::getline(in, line)) {
      auto j = Json::parse(line, nullptr, false);
      if (!j.is_discarded()) out.push_back(j);
    }
    return out;
  }

  int exit_code() const { return exit_code_; }

 private:
  void start_operator() {
    runtime::ManagerOptions mo;
    mo.cluster = sandbox_->cluster_config();
    mo.clock = &clock_;
    auto manager = runtime::Manager::create(mo);
    REQUIRE(manager);
    manager_ = std::move(*manager);
    reconcilers::Options ro;
    ro.catalog_file = source_file("config/catalog.yaml");
    ro.operator_namespace = "respool-system";
    ro.job_selector = job_selector_;
    ro.prometheus_url = prometheus_url_;
    auto op = reconcilers::setup(*manager_, ro);
    REQUIRE(op);
    operator_ = std::move(*op);
    runner_ = std::thread([this] { exit_code_ = manager_->run(); });
  }

  void stop_operator() {
    manager_->stop();
    if (runner_.joinable()) runner_.join();
    operator_.reset();
    manager_.reset();
  }

  runtime::ScaledClock clock_;
  std::filesystem::path audit_path_;
  std::unique_ptr<sandbox::Sandbox> sandbox_;
  std::unique_ptr<kube::Client> client_;
  std::unique_ptr<runtime::Manager> manager_;
  std::unique_ptr<reconcilers::Operator> operator_;
  std::thread runner_;
  int exit_code_ = -1;
  std::string job_selector_;
  std::string prometheus_url_;
};

// Helpers for manifests.
inline Json network_manifest(const std::string& name, const std::string& cidr = "") {
  Json n = {{"apiVersion", "respool.io/v1alpha1"},
            {"kind", "Network"},
            {"metadata", {{"name", name}}},
            {"spec", Json::object()}};
  if (!cidr.empty()) n["spec"]["cidr"] = cidr;
  return n;
}

inline Json pool_manifest(const std::string& name, const std::string& network,
                          const Json& resources,
                          const Json& job_types = Json::array({"Training"})) {
  return {{"apiVersion", "respool.io/v1alpha1"},
          {"kind", "ResourcePool"},
          {"metadata", {{"name", name}}},
          {"spec", {{"network", network}, {"jobTypes", job_types}, {"resources", resources}}}};
}

inline bool has_taint(const Json& node, const std::string& key) {
  for (const auto& t : node.value("spec", Json::object()).value("taints", Json::array())) {
    if (t.value("key", "") == key) return true;
  }
  return false;
}

inline std::string label(const Json& object, const std::string& key) {
  return object["metadata"].value("labels", Json::object()).value(key, "");
}

// A running pod `default/guarded` (label app=g) on `node` that the PodDisruptionBudget
// `default/keep-g` (minAvailable 1) guards: its eviction is refused until the budget goes.
inline void guarded_pod(Harness& h, const std::string& node) {
  Json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", "guarded"}, {"namespace", "default"}, {"labels", {{"app", "g"}}}}},
      {"spec",
       {{"nodeName", node},
        {"tolerations", Json::array({{{"operator", "Exists"}}})},
        {"terminationGracePeriodSeconds", 1},
        {"containers", Json::array({{{"name", "c"}, {"image", "x"}}})}}}};
  h.apply(pod, kube::resources::pods);
  h.apply({{"apiVersion", "policy/v1"},
           {"kind", "PodDisruptionBudget"},
           {"metadata", {{"name", "keep-g"}, {"namespace", "default"}}},
           {"spec", {{"minAvailable", 1}, {"selector", {{"matchLabels", {{"app", "g"}}}}}}}},
          kube::resources::poddisruptionbudgets);
  REQUIRE(h.eventually([&] {
    const Json pdb = h.get(kube::resources::poddisruptionbudgets, "keep-g", "default");
    return h.get(kube::resources::pods, "guarded", "default")["status"].value("phase", "") ==
               "Running" &&
           pdb.value("status", Json::object()).value("currentHealthy", 0) == 1;
  }));
}

}  // namespace respool::test
