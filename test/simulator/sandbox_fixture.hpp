#pragma once
// A sandbox (API server + simulator) on a 60x clock, and small helpers to read it over HTTP.

#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "operator/kube/client.hpp"
#include "operator/runtime/clock.hpp"
#include "operator/runtime/log.hpp"
#include "sandbox/sandbox.hpp"
#include "sandbox/simulator/fit.hpp"
#include "test/runtime/eventually.hpp"

namespace respool::sandbox::test {

using Json = nlohmann::json;
using runtime::test::eventually;

class Cluster {
 public:
  explicit Cluster(const std::string& nodes_yaml, double time_scale = 60) : clock_(time_scale) {
    // Every reconcile is logged at info: too much for a test's output.
    runtime::log::configure(runtime::log::Format::Text, runtime::log::Level::Warn);
    SandboxOptions options;
    options.nodes_yaml = nodes_yaml;
    options.clock = &clock_;
    auto started = Sandbox::start(std::move(options));
    if (!started) FAIL("sandbox: " << started.error());
    sandbox_ = std::move(*started);
    auto client = kube::Client::create(sandbox_->cluster_config());
    if (!client) FAIL("client: " << client.error().describe());
    client_ = std::move(*client);
  }

  kube::Client& client() { return *client_; }
  Simulator& simulator() { return *sandbox_->simulator(); }
  Sandbox& sandbox() { return *sandbox_; }
  runtime::Clock& clock() { return clock_; }

  Json get(const kube::Resource& r, const std::string& ns, const std::string& name) {
    auto got = client_->get(r, ns, name);
    return got ? *got : Json();
  }
  Json node(const std::string& name) { return get(kube::resources::nodes, "", name); }
  Json pod(const std::string& name, const std::string& ns = "default") {
    return get(kube::resources::pods, ns, name);
  }
  Json items(const kube::Resource& r, const std::string& ns = "", std::string selector = {}) {
    kube::ListOptions options;
    options.label_selector = std::move(selector);
    auto listed = client_->list(r, ns, options);
    return listed ? (*listed)["items"] : Json::array();
  }
  Json create(const kube::Resource& r, const std::string& ns, const Json& object) {
    auto created = client_->create(r, ns, object);
    if (!created) FAIL("create: " << created.error().describe());
    return *created;
  }
  void patch_node(const std::string& name, const Json& patch) {
    auto patched = client_->patch(kube::resources::nodes, "", name, kube::PatchType::Merge, patch);
    if (!patched) FAIL("patch node: " << patched.error().describe());
  }

 private:
  runtime::ScaledClock clock_;
  std::unique_ptr<Sandbox> sandbox_;
  std::unique_ptr<kube::Client> client_;
};

inline std::string phase(const Json& pod) {
  return sim::string_at(pod, {"status", "phase"});
}

inline Json simple_pod(const std::string& name, Json spec_extra = Json::object(),
                       Json annotations = Json::object()) {
  Json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name}}},
      {"spec", {{"containers", Json::array({{{"name", "c"}, {"image", "busybox:1.36"}}})}}}};
  if (!annotations.empty()) pod["metadata"]["annotations"] = annotations;
  for (auto it = spec_extra.begin(); it != spec_extra.end(); ++it)
    pod["spec"][it.key()] = it.value();
  return pod;
}

inline bool has_taint(const Json& node, const std::string& key, const std::string& effect) {
  for (const auto& t : sim::node_taints(node))
    if (t.key == key && t.effect == effect) return true;
  return false;
}

}  // namespace respool::sandbox::test
