#include "reconcilers/setup.hpp"

#include "operator/runtime/log.hpp"
#include "reconcilers/context.hpp"
#include "reconcilers/controller_setup.hpp"
#include "reconcilers/diagnosis/diagnosis_setup.hpp"
#include "reconcilers/driverupgrade/driver_setup.hpp"
#include "reconcilers/inventory/free_nodes_controller.hpp"
#include "reconcilers/jobs/jobs_setup.hpp"
#include "reconcilers/network/network_setup.hpp"
#include "reconcilers/nodehealth/node_health_setup.hpp"
#include "reconcilers/nodeoperation/operation_setup.hpp"
#include "reconcilers/remediation/remediation_setup.hpp"
#include "reconcilers/resourcepool/pool_setup.hpp"
#include "reconcilers/shared_caches.hpp"
#include "reconcilers/trainingjob/training_job_setup.hpp"

namespace respool::reconcilers {

namespace {

// Every controller of respool, in the order their watches are registered. A new controller is
// its own folder and one line here.
constexpr AddController kControllers[] = {
    add_network_controller,         // Networks
    add_pool_controller,            // ResourcePools
    add_node_operation_controller,  // NodeOperations, keyed by pool
    add_driver_upgrade_controller,  // driver upgrades, keyed by pool
    add_training_job_controller,    // fault-tolerant training Jobs (--training-jobs)
    add_diagnosis_controller,       // Diagnoses of training jobs (O9), after the training jobs'
    add_free_nodes_controller,      // the respool_free_nodes gauge
    add_node_health_controller,     // isolation taints from respool-node-agent's conditions
    add_remediation_controller,     // automatic NodeOperations for lasting faults, keyed by pool
    add_jobs_controller,            // status.jobs and Queued events (Q1-Q5), keyed by pool
};

// Plug-in manifests are DaemonSets: the kind the operator watches and scopes to pool nodes.
std::optional<std::string> unsupported_plugins(const policy::Catalog& catalog) {
  for (const auto& [job_type, manifests] : catalog.plugins) {
    for (std::size_t i = 0; i < manifests.size(); ++i) {
      if (manifests[i].value("kind", "") != "DaemonSet" ||
          manifests[i].value("apiVersion", "") != "apps/v1") {
        return "plugins." + std::string(policy::to_string(job_type)) + "[" + std::to_string(i) +
               "]: respool installs plug-ins of kind apps/v1 DaemonSet only";
      }
    }
  }
  return std::nullopt;
}

class OperatorImpl final : public Operator {
 public:
  std::unique_ptr<CatalogSource> catalog;
  std::unique_ptr<DomainMetrics> metrics;
  NodeViewCache node_views;
  FreeNodeIndex free_nodes{node_views};
  PoolLocks pool_locks;
  WrittenVersions node_writes;
  Context context;
  std::vector<ControllerState> controllers;
  ~OperatorImpl() override {
    if (catalog) catalog->stop();
  }
};

std::expected<std::unique_ptr<CatalogSource>, std::string> open_catalog(runtime::Clock& clock,
                                                                        const Options& options) {
  auto catalog = CatalogSource::open(options.catalog_file, clock);
  if (!catalog) return std::unexpected("--catalog: " + catalog.error());
  if (auto bad = unsupported_plugins(*(*catalog)->get())) {
    return std::unexpected("--catalog: " + options.catalog_file.string() + ": " + *bad);
  }
  (*catalog)->set_validator(unsupported_plugins);
  return catalog;
}

// What every controller shares: the API client, clock, events, catalog, metrics, the node
// views and free-node index, the pool locks, the node writes waited for and the shared caches.
void fill_context(OperatorImpl& op, runtime::Manager& manager, const Options& options,
                  kube::LabelSelector job_selector) {
  Context& ctx = op.context;
  ctx.client = &manager.client();
  ctx.clock = &manager.clock();
  ctx.events = &manager.events();
  ctx.catalog = op.catalog.get();
  ctx.metrics = op.metrics.get();
  ctx.node_views = &op.node_views;
  ctx.free_nodes = &op.free_nodes;
  ctx.pool_locks = &op.pool_locks;
  ctx.node_writes = &op.node_writes;
  ctx.caches = add_shared_caches(manager, op.catalog->get()->flavor_label, op.free_nodes);
  ctx.operator_namespace = options.operator_namespace;
  ctx.job_selector = std::move(job_selector);
}

}  // namespace

std::expected<std::unique_ptr<Operator>, std::string> setup(runtime::Manager& manager,
                                                            const Options& options) {
  auto op = std::make_unique<OperatorImpl>();
  auto catalog = open_catalog(manager.clock(), options);
  if (!catalog) return std::unexpected(catalog.error());
  op->catalog = std::move(*catalog);
  auto selector = kube::LabelSelector::parse(options.job_selector);
  if (!selector) return std::unexpected("--job-selector: " + selector.error());
  op->metrics = std::make_unique<DomainMetrics>(manager.metrics());
  fill_context(*op, manager, options, std::move(*selector));

  for (AddController add : kControllers) {
    if (auto state = add(manager, op->context, options))
      op->controllers.push_back(std::move(state));
  }
  Context& ctx = op->context;
  op->catalog->watch(std::chrono::seconds(10), [&ctx] {
    for (const auto& requeue : ctx.on_catalog_change)
      requeue();
  });
  runtime::log::info("setup", "controllers registered",
                     {{"catalog", options.catalog_file.string()},
                      {"flavors", op->catalog->get()->flavors.size()},
                      {"controllers", op->controllers.size()}});
  return op;
}

}  // namespace respool::reconcilers
