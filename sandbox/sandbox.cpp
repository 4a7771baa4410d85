#include "sandbox/sandbox.hpp"

namespace respool::sandbox {

std::expected<std::unique_ptr<Sandbox>, std::string> Sandbox::start(SandboxOptions options) {
  auto sandbox = std::make_unique<Sandbox>(Key{});
  sandbox->clock_ = options.clock ? options.clock : &runtime::real_clock();
  options.api.clock = sandbox->clock_;
  auto api = ApiServer::start(std::move(options.api));
  if (!api) return std::unexpected("API server: " + api.error());
  sandbox->api_ = std::move(*api);
  if (options.simulator) {
    options.sim.clock = sandbox->clock_;
    options.sim.nodes_yaml = std::move(options.nodes_yaml);
    auto simulator = Simulator::start(sandbox->api_->cluster_config(), std::move(options.sim));
    if (!simulator) return std::unexpected(simulator.error());
    sandbox->simulator_ = std::move(*simulator);
  }
  return sandbox;
}

Sandbox::~Sandbox() {
  stop();
}

void Sandbox::stop() {
  if (simulator_) simulator_->stop();
  if (api_) api_->stop();
}

}  // namespace respool::sandbox
