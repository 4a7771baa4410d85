#pragma once
// A whole sandbox cluster in process, for tests: the API server and, unless asked not to, the
// simulator playing its nodes, on one clock.
//
//   auto sandbox = Sandbox::start({.nodes_yaml = R"(nodes: [{flavor: gpu, count: 2}])",
//                                  .clock = &scaled_clock});
//   auto client = kube::Client::create((*sandbox)->cluster_config());

#include <expected>
#include <filesystem>
#include <memory>
#include <string>

#include "operator/kube/config.hpp"
#include "operator/runtime/clock.hpp"
#include "sandbox/apiserver/api_server.hpp"
#include "sandbox/simulator/simulator.hpp"

namespace respool::sandbox {

struct SandboxOptions {
  std::string nodes_yaml{};         // free nodes to register (node_set.hpp); "" = none
  runtime::Clock* clock = nullptr;  // for both; nullptr = the real clock
  bool simulator = true;            // false: the bare API server (pods stay Pending)
  ApiServerOptions api{};           // its clock is replaced by `clock`
  SimulatorOptions sim{};           // its clock and nodes_yaml are replaced by the above
};

class Sandbox {
  // Made only by the static factory: the constructor is public for std::make_unique, and only
  // this class can make the Key it takes.
  struct Key {
    explicit Key() = default;
  };

 public:
  explicit Sandbox(Key) {}
  static std::expected<std::unique_ptr<Sandbox>, std::string> start(SandboxOptions options = {});
  ~Sandbox();
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;

  ApiServer& api_server() { return *api_; }
  Simulator* simulator() { return simulator_.get(); }  // nullptr without a simulator
  kube::ClusterConfig cluster_config() const { return api_->cluster_config(); }
  const std::filesystem::path& kubeconfig_path() const { return api_->kubeconfig_path(); }
  runtime::Clock& clock() { return *clock_; }
  // The simulator first, then the API server. Idempotent.
  void stop();

 private:
  runtime::Clock* clock_ = nullptr;
  std::unique_ptr<ApiServer> api_;
  std::unique_ptr<Simulator> simulator_;
};

}  // namespace respool::sandbox
