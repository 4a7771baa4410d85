#include "sandbox/simulator/simulator.hpp"

#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "operator/kube/client.hpp"
#include "sandbox/simulator/cluster.hpp"
#include "sandbox/simulator/daemonset_controller.hpp"
#include "sandbox/simulator/driver_agent.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/job_controller.hpp"
#include "sandbox/simulator/keys.hpp"
#include "sandbox/simulator/kubelet.hpp"
#include "sandbox/simulator/node_lifecycle.hpp"
#include "sandbox/simulator/scheduler.hpp"
#include "sandbox/simulator/workload_resources.hpp"
#include "sandbox/simulator/workloads.hpp"

namespace respool::sandbox {

using sim::Json;

struct Simulator::Impl {
  explicit Impl(runtime::Clock& c) : clock(c) {}

  runtime::Clock& clock;
  std::unique_ptr<kube::Client> client;
  std::unique_ptr<sim::ObjectInformer> nodes, pods, daemonsets, jobs, revisions;
  std::unique_ptr<sim::Cluster> cluster;
  // Node lifecycle, scheduler, kubelets, DaemonSets, Jobs, the driver agent; stopped in reverse.
  std::vector<std::unique_ptr<sim::SimController>> controllers;
  std::unique_ptr<sim::Workloads> workloads;  // Deployments, ReplicaSets, ... (workloads.hpp)
  NodeInventory labels;                       // the flavor and zone label keys add_nodes(set) uses
  std::mutex stop_mu;
  bool stopped = false;

  std::vector<runtime::InformerBase*> informers() {
    std::vector<runtime::InformerBase*> all = {nodes.get(), pods.get(), daemonsets.get(),
                                               jobs.get(), revisions.get()};
    if (workloads)
      for (auto* informer : workloads->informers())
        all.push_back(informer);
    return all;
  }

  void stop() {
    std::lock_guard lock(stop_mu);
    if (stopped) return;
    stopped = true;
    // Controllers first (they read the caches), then the informers feeding them.
    if (workloads) workloads->stop();
    for (auto c = controllers.rbegin(); c != controllers.rend(); ++c)
      (*c)->stop();
    for (auto* informer : informers())
      if (informer) informer->stop();
  }

  // Reads the node's fault list, lets `change` edit it, writes it back (guarded).
  std::expected<void, std::string> edit_faults(const std::string& node,
                                               const std::function<void(NodeFaults&)>& change) {
    auto result = kube::retry_on_conflict([&]() -> kube::Result<Json> {
      auto current = client->get(kube::resources::nodes, "", node);
      if (!current) return current;
      NodeFaults faults =
          parse_faults(sim::annotation(*current, sim::kFaultAnnotation).value_or("")).faults;
      change(faults);
      Json value = faults.empty() ? Json(nullptr) : Json(format_faults(faults));
      Json patch = {
          {"metadata",
           {{"resourceVersion", sim::string_at(*current, {"metadata", "resourceVersion"})},
            {"annotations", {{sim::kFaultAnnotation, value}}}}}};
      return client->patch(kube::resources::nodes, "", node, kube::PatchType::Merge, patch);
    });
    if (!result) return std::unexpected("node " + node + ": " + result.error().describe());
    return {};
  }
};

namespace {

std::unique_ptr<sim::ObjectInformer> make_informer(kube::Client& client, runtime::Clock& clock,
                                                   const kube::Resource& resource) {
  runtime::InformerOptions options;
  options.resource = resource;
  return std::make_unique<sim::ObjectInformer>(client, clock, std::move(options),
                                               sim::strip_managed_fields);
}

}  // namespace

Simulator::Simulator(Key, std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Simulator::~Simulator() {
  stop();
}

std::expected<std::unique_ptr<Simulator>, std::string> Simulator::start(kube::ClusterConfig config,
                                                                        SimulatorOptions options) {
  runtime::Clock& clock = options.clock ? *options.clock : runtime::real_clock();
  auto impl = std::make_unique<Impl>(clock);
  kube::ClientOptions client_options;
  client_options.user_agent = "respool-sandbox-simulator/" RESPOOL_VERSION;
  std::string ca_pem = config.tls.ca_pem;  // published as kube-root-ca.crt
  auto client = kube::Client::create(std::move(config), client_options);
  if (!client) return std::unexpected("simulator client: " + client.error().describe());
  impl->client = std::move(*client);
  kube::Client& c = *impl->client;
  impl->nodes = make_informer(c, clock, kube::resources::nodes);
  impl->pods = make_informer(c, clock, kube::resources::pods);
  impl->daemonsets = make_informer(c, clock, kube::resources::daemonsets);
  impl->jobs = make_informer(c, clock, kube::resources::jobs);
  impl->revisions = make_informer(c, clock, sim::workload::controllerrevisions);
  sim::add_pod_indexes(*impl->pods);
  sim::Timing timing;
  timing.termination = options.termination;
  timing.driver_install = options.driver_install;
  timing.node_reset = options.node_reset;
  impl->cluster = std::make_unique<sim::Cluster>(sim::Cluster{c, clock, *impl->nodes, *impl->pods,
                                                              *impl->daemonsets, *impl->jobs,
                                                              *impl->revisions, timing});
  sim::Cluster& cluster = *impl->cluster;
  // Components register their informer handlers now, before the informers start.
  auto& controllers = impl->controllers;
  controllers.push_back(std::make_unique<sim::NodeLifecycle>(cluster));
  controllers.push_back(std::make_unique<sim::Scheduler>(cluster));
  controllers.push_back(std::make_unique<sim::Kubelet>(cluster, options.kubelet_workers));
  controllers.push_back(std::make_unique<sim::DaemonSetController>(cluster));
  controllers.push_back(std::make_unique<sim::JobController>(cluster));
  controllers.push_back(std::make_unique<sim::DriverAgent>(cluster));
  impl->workloads = std::make_unique<sim::Workloads>(cluster, std::move(ca_pem));

  auto simulator = std::make_unique<Simulator>(Key{}, std::move(impl));
  Impl& s = *simulator->impl_;
  for (auto* informer : s.informers())
    informer->start();
  // Controllers act on a complete picture only (pod GC must never take a missing node from a
  // cache still loading for a deleted one). The deadline is real time: the API may be slow.
  const auto deadline = std::chrono::steady_clock::now() + options.sync_timeout;
  for (auto* informer : s.informers()) {
    while (!informer->has_synced()) {
      if (std::chrono::steady_clock::now() > deadline)
        return std::unexpected("simulator: the " + informer->name() +
                               " informer did not sync (is the API server reachable?)");
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  for (auto& c : s.controllers)
    c->start();
  s.workloads->start();
  if (!options.nodes_yaml.empty()) {
    auto added = simulator->load_nodes_yaml(options.nodes_yaml);
    if (!added) return std::unexpected(added.error());
  }
  return simulator;
}

std::expected<std::vector<std::string>, std::string> Simulator::add_nodes(const NodeSetSpec& set) {
  NodeInventory inventory = impl_->labels;
  inventory.sets = {set};
  return add_nodes(inventory);
}

std::expected<std::vector<std::string>, std::string> Simulator::add_nodes(
    const NodeInventory& inventory) {
  impl_->labels.flavor_label = inventory.flavor_label;
  impl_->labels.zone_label = inventory.zone_label;
  std::vector<std::string> names;
  for (const auto& set : inventory.sets) {
    for (Json& node : sim::node_objects(inventory, set, impl_->clock.now())) {
      const std::string name = sim::string_at(node, {"metadata", "name"});
      auto created = impl_->client->create(kube::resources::nodes, "", node);
      if (!created && !created.error().is(kube::Error::Kind::AlreadyExists))
        return std::unexpected("node " + name + ": " + created.error().describe());
      names.push_back(name);
    }
  }
  return names;
}

std::expected<std::vector<std::string>, std::string> Simulator::load_nodes_yaml(
    std::string_view yaml) {
  auto inventory = parse_node_inventory(yaml);
  if (!inventory) return std::unexpected("nodes: " + inventory.error());
  return add_nodes(*inventory);
}

std::expected<std::vector<std::string>, std::string> Simulator::load_nodes_file(
    const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return std::unexpected(path.string() + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  auto inventory = parse_node_inventory(text.str());
  if (!inventory) return std::unexpected(path.string() + ": " + inventory.error());
  return add_nodes(*inventory);
}

std::expected<void, std::string> Simulator::set_faults(const std::string& node,
                                                       const NodeFaults& faults) {
  return impl_->edit_faults(node, [&](NodeFaults& f) { f = faults; });
}

std::expected<void, std::string> Simulator::add_fault(const std::string& node,
                                                      std::string_view fault) {
  ParsedFaults parsed = parse_faults(fault);
  if (!parsed.errors.empty()) return std::unexpected(parsed.errors.front());
  return impl_->edit_faults(node, [&](NodeFaults& f) {
    f.not_ready = f.not_ready || parsed.faults.not_ready;
    f.unreachable = f.unreachable || parsed.faults.unreachable;
    for (const auto& code : parsed.faults.isolation_codes)
      if (std::find(f.isolation_codes.begin(), f.isolation_codes.end(), code) ==
          f.isolation_codes.end())
        f.isolation_codes.push_back(code);
    if (parsed.faults.accelerator_loss > 0) f.accelerator_loss = parsed.faults.accelerator_loss;
  });
}

std::expected<void, std::string> Simulator::heal(const std::string& node, std::string_view fault) {
  // "AcceleratorLoss" alone names that fault whatever its count.
  std::string item(fault);
  if (item == "AcceleratorLoss") item = "AcceleratorLoss=1";
  ParsedFaults parsed = parse_faults(item);
  if (!parsed.errors.empty()) return std::unexpected(parsed.errors.front());
  return impl_->edit_faults(node, [&](NodeFaults& f) {
    if (parsed.faults.not_ready) f.not_ready = false;
    if (parsed.faults.unreachable) f.unreachable = false;
    for (const auto& code : parsed.faults.isolation_codes)
      std::erase(f.isolation_codes, code);
    if (parsed.faults.accelerator_loss > 0) f.accelerator_loss = 0;
  });
}

std::expected<void, std::string> Simulator::heal_all(const std::string& node) {
  return impl_->edit_faults(node, [](NodeFaults& f) { f = NodeFaults{}; });
}

runtime::Clock& Simulator::clock() {
  return impl_->clock;
}

void Simulator::stop() {
  if (impl_) impl_->stop();
}

}  // namespace respool::sandbox
