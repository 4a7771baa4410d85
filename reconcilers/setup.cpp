#include "reconcilers/setup.hpp"

#include "operator/runtime/log.hpp"
#include "reconcilers/context.hpp"
#include "reconcilers/driverupgrade/driver_reconciler.hpp"
#include "reconcilers/network/network_reconciler.hpp"
#include "reconcilers/nodeoperation/operation_reconciler.hpp"
#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/node_state.hpp"
#include "reconcilers/resourcepool/pool_reconciler.hpp"
#include "reconcilers/trainingjob/training_job_setup.hpp"

namespace respool::reconcilers {

namespace {

std::vector<std::string> label_values(const kube::StringMap& labels, std::string_view key) {
  auto v = labels.get(key);
  return v ? std::vector<std::string>{std::string(*v)} : std::vector<std::string>{};
}

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
  Expectations expectations;
  Context context;
  std::unique_ptr<NetworkReconciler> networks;
  std::unique_ptr<PoolReconciler> pools;
  std::unique_ptr<OperationReconciler> operations;
  std::unique_ptr<DriverReconciler> drivers;
  std::unique_ptr<TrainingJobReconciler> training_jobs;
  ~OperatorImpl() override {
    if (catalog) catalog->stop();
  }
};

}  // namespace

std::expected<std::unique_ptr<Operator>, std::string> setup(runtime::Manager& manager,
                                                            const Options& options) {
  auto op = std::make_unique<OperatorImpl>();
  auto catalog = CatalogSource::open(options.catalog_file, manager.clock());
  if (!catalog) return std::unexpected("--catalog: " + catalog.error());
  if (auto bad = unsupported_plugins(*(*catalog)->get())) {
    return std::unexpected("--catalog: " + options.catalog_file.string() + ": " + *bad);
  }
  op->catalog = std::move(*catalog);
  op->catalog->set_validator(unsupported_plugins);
  auto selector = kube::LabelSelector::parse(options.job_selector);
  if (!selector) return std::unexpected("--job-selector: " + selector.error());
  op->metrics = std::make_unique<DomainMetrics>(manager.metrics());

  auto shared = op->catalog->get();
  const std::string flavor_label = shared->flavor_label;

  // Caches. Nodes and pods are kept compact; respool's own objects and plug-ins whole.
  auto informer_options = [](const kube::Resource& resource) {
    runtime::InformerOptions o;
    o.resource = resource;
    return o;
  };
  auto& networks =
      manager.add_informer<kube::Unstructured>(informer_options(kube::resources::networks));
  auto& pools =
      manager.add_informer<kube::Unstructured>(informer_options(kube::resources::resourcepools));
  auto& nodes = manager.add_informer<kube::Node>(informer_options(kube::resources::nodes));
  auto pod_options = informer_options(kube::resources::pods);
  pod_options.decode.keep_annotations = {std::string(policy::kDriverVersionLabel)};
  auto& pods = manager.add_informer<kube::Pod>(pod_options);
  auto plugin_options = informer_options(kube::resources::daemonsets);
  plugin_options.label_selector = "app.kubernetes.io/managed-by=respool";
  auto& plugins = manager.add_informer<kube::Unstructured>(plugin_options);
  auto& operations =
      manager.add_informer<kube::Unstructured>(informer_options(kube::resources::nodeoperations));
  auto job_options = informer_options(kube::resources::jobs);
  job_options.label_selector = std::string(policy::kNodeOperationLabel);
  job_options.ns = options.operator_namespace;  // reset Jobs live there, and RBAC grants no more
  auto& reset_jobs = manager.add_informer<kube::Unstructured>(job_options);

  nodes.store().add_index(
      kByPool, [](const kube::Node& n) { return label_values(n.meta.labels, policy::kPoolLabel); });
  nodes.store().add_index(kByFlavor, [flavor_label](const kube::Node& n) {
    return label_values(n.meta.labels, flavor_label);
  });
  // First of the nodes' handlers: the free list is current when the controllers hear of a change.
  FreeNodeIndex& free_index = op->free_nodes;
  nodes.add_handlers({
      .on_add = [&free_index](const auto& node) { free_index.observe(node); },
      .on_update = [&free_index](const auto&, const auto& node) { free_index.observe(node); },
      .on_delete = [&free_index](const auto& node) { free_index.forget(node); },
  });
  pods.store().add_index(kByNode, [](const kube::Pod& p) {
    return p.node_name.empty() ? std::vector<std::string>{}
                               : std::vector<std::string>{p.node_name.str()};
  });
  plugins.store().add_index(kByPool, [](const kube::Unstructured& u) {
    return label_values(u.meta.labels, policy::kPoolLabel);
  });
  operations.store().add_index(kByPool, [](const kube::Unstructured& u) {
    auto pool = u.object.value("spec", kube::Json::object()).value("pool", "");
    return pool.empty() ? std::vector<std::string>{} : std::vector<std::string>{pool};
  });
  reset_jobs.store().add_index(kByPool, [](const kube::Unstructured& u) {
    return label_values(u.meta.labels, policy::kPoolLabel);
  });
  pools.store().add_index(kByNetwork, [](const kube::Unstructured& u) {
    auto spec = u.object.value("spec", kube::Json::object());
    auto network = spec.value("network", "");
    return network.empty() ? std::vector<std::string>{} : std::vector<std::string>{network};
  });

  Context& ctx = op->context;
  ctx.client = &manager.client();
  ctx.clock = &manager.clock();
  ctx.events = &manager.events();
  ctx.catalog = op->catalog.get();
  ctx.metrics = op->metrics.get();
  ctx.node_views = &op->node_views;
  ctx.free_nodes = &op->free_nodes;
  ctx.pool_locks = &op->pool_locks;
  ctx.expectations = &op->expectations;
  ctx.caches = {&networks, &pools, &nodes, &pods, &plugins, &operations, &reset_jobs};
  ctx.operator_namespace = options.operator_namespace;
  ctx.job_selector = std::move(*selector);

  op->networks = std::make_unique<NetworkReconciler>(ctx);
  op->pools = std::make_unique<PoolReconciler>(ctx);
  op->operations = std::make_unique<OperationReconciler>(ctx);
  op->drivers = std::make_unique<DriverReconciler>(ctx);

  runtime::ControllerOptions network_controller;
  network_controller.name = "network";
  network_controller.workers = 1;  // verdicts depend on every network: one at a time
  auto& network_ctl = manager.add_controller(
      reporting_failures(
          ctx, networks,
          [impl = op->networks.get()](const std::string& key) { return impl->reconcile(key); }),
      std::move(network_controller));
  auto all_networks = [&networks](const kube::Unstructured&) { return networks.store().keys(); };
  network_ctl.watch(
      networks, std::function<std::vector<std::string>(const kube::Unstructured&)>(all_networks));
  network_ctl.watch(
      pools, std::function<std::vector<std::string>(const kube::Unstructured&)>(
                 [](const kube::Unstructured& p) {
                   auto network = p.object.value("spec", kube::Json::object()).value("network", "");
                   return network.empty() ? std::vector<std::string>{}
                                          : std::vector<std::string>{network};
                 }));

  runtime::ControllerOptions pool_controller;
  pool_controller.name = "resourcepool";
  pool_controller.workers = options.workers;
  auto& pool_ctl = manager.add_controller(
      reporting_failures(
          ctx, pools,
          [impl = op->pools.get()](const std::string& key) { return impl->reconcile(key); }),
      std::move(pool_controller));
  pool_ctl.watch(pools);
  // A node event concerns its pool; a free node concerns every pool that may be waiting for one.
  pool_ctl.watch(nodes, std::function<std::vector<std::string>(const kube::Node&)>(
                            [&pools](const kube::Node& n) {
                              if (auto pool = n.meta.labels.get(policy::kPoolLabel)) {
                                return std::vector<std::string>{std::string(*pool)};
                              }
                              return pools.store().keys();
                            }));
  // A pod's coming and going matters to the pool of its node (drains, running jobs).
  pool_ctl.watch(
      pods, std::function<std::vector<std::string>(const kube::Pod&)>([&nodes](const kube::Pod& p) {
        if (p.node_name.empty()) return std::vector<std::string>{};
        auto node = nodes.store().get(p.node_name.view());
        if (!node) return std::vector<std::string>{};
        return label_values(node->meta.labels, policy::kPoolLabel);
      }));
  pool_ctl.watch(plugins, std::function<std::vector<std::string>(const kube::Unstructured&)>(
                              [](const kube::Unstructured& u) {
                                return label_values(u.meta.labels, policy::kPoolLabel);
                              }));
  pool_ctl.watch(networks,
                 std::function<std::vector<std::string>(const kube::Unstructured&)>(
                     [&pools](const kube::Unstructured& n) {
                       std::vector<std::string> keys;
                       for (const auto& p : pools.store().by_index(kByNetwork, n.meta.name))
                         keys.push_back(p->meta.name);
                       return keys;
                     }));

  // Delete operations not yet under way decide which node scale-in takes first.
  auto operation_pool = [](const kube::Unstructured& u) {
    auto pool = u.object.value("spec", kube::Json::object()).value("pool", "");
    return pool.empty() ? std::vector<std::string>{} : std::vector<std::string>{pool};
  };
  pool_ctl.watch(operations, std::function<std::vector<std::string>(const kube::Unstructured&)>(
                                 operation_pool));

  // NodeOperations: one key per pool, so that a pool's operations are decided in one place.
  runtime::ControllerOptions operation_controller;
  operation_controller.name = "nodeoperation";
  operation_controller.workers = options.workers;
  auto& operation_ctl = manager.add_controller(
      reporting_failures(  // the key is the pool: failures are reported on it
          ctx, pools,
          [impl = op->operations.get()](const std::string& key) { return impl->reconcile(key); }),
      std::move(operation_controller));
  operation_ctl.watch(
      operations,
      std::function<std::vector<std::string>(const kube::Unstructured&)>(operation_pool));
  operation_ctl.watch(pools);  // the ledger, the spec (limits), deletion
  operation_ctl.watch(reset_jobs,
                      std::function<std::vector<std::string>(const kube::Unstructured&)>(
                          [](const kube::Unstructured& u) {
                            return label_values(u.meta.labels, policy::kPoolLabel);
                          }));
  // Nodes of a pool with operations, and nodes that just left one (the update's old side).
  operation_ctl.watch(nodes, std::function<std::vector<std::string>(const kube::Node&)>(
                                 [&operations](const kube::Node& n) {
                                   auto pool = n.meta.labels.get(policy::kPoolLabel);
                                   if (!pool) return std::vector<std::string>{};
                                   if (operations.store().by_index(kByPool, *pool).empty())
                                     return std::vector<std::string>{};
                                   return std::vector<std::string>{std::string(*pool)};
                                 }));
  // Pods on nodes in an operation: drains.
  operation_ctl.watch(
      pods, std::function<std::vector<std::string>(const kube::Pod&)>([&nodes](const kube::Pod& p) {
        if (p.node_name.empty()) return std::vector<std::string>{};
        auto node = nodes.store().get(p.node_name.view());
        if (!node || !node->meta.annotations.get(policy::kNodeOperationAnnotation))
          return std::vector<std::string>{};
        return label_values(node->meta.labels, policy::kPoolLabel);
      }));

  // Driver upgrades: one key per pool, like node operations; under the same pool lock.
  runtime::ControllerOptions driver_controller;
  driver_controller.name = "driverupgrade";
  driver_controller.workers = options.workers;
  auto& driver_ctl = manager.add_controller(
      reporting_failures(
          ctx, pools,
          [impl = op->drivers.get()](const std::string& key) { return impl->reconcile(key); }),
      std::move(driver_controller));
  driver_ctl.watch(pools);  // the spec (versions, mode, batch), the phase (D3)
  auto pool_of_labels = [](const auto& object) {
    return label_values(object.meta.labels, policy::kPoolLabel);
  };
  driver_ctl.watch(
      nodes, std::function<std::vector<std::string>(const kube::Node&)>([](const kube::Node& n) {
        return label_values(n.meta.labels, policy::kPoolLabel);
      }));
  driver_ctl.watch(plugins, std::function<std::vector<std::string>(const kube::Unstructured&)>(
                                [pool_of_labels](const kube::Unstructured& u) {
                                  if (!u.meta.labels.get(policy::kDriverLabel))
                                    return std::vector<std::string>{};
                                  return pool_of_labels(u);
                                }));
  // Pods on pool nodes: driver pods (validation) and job pods (Secure waits for them).
  driver_ctl.watch(
      pods, std::function<std::vector<std::string>(const kube::Pod&)>([&nodes](const kube::Pod& p) {
        if (p.node_name.empty()) return std::vector<std::string>{};
        auto node = nodes.store().get(p.node_name.view());
        if (!node) return std::vector<std::string>{};
        return label_values(node->meta.labels, policy::kPoolLabel);
      }));

  if (options.training_jobs)
    op->training_jobs = add_training_job_controller(manager, ctx, options.workers);

  // respool_free_nodes: recomputed on node changes by a one-key controller, at most once per
  // second: a gauge scraped every few seconds gains nothing from a recount per node event, and
  // a pool being built changes thousands of nodes within seconds.
  runtime::ControllerOptions inventory_controller;
  inventory_controller.name = "inventory";
  auto last_count = std::make_shared<std::optional<runtime::TimePoint>>();
  auto& inventory = manager.add_controller(
      [&ctx,
       last_count](const std::string&) -> std::expected<runtime::ReconcileResult, std::string> {
        constexpr auto kMinInterval = std::chrono::seconds(1);
        const auto now = ctx.clock->now();
        if (*last_count && now - **last_count < kMinInterval)
          return runtime::ReconcileResult::after(kMinInterval - (now - **last_count));
        *last_count = now;
        auto catalog = ctx.catalog->get();
        // Every (flavor, zone) that has nodes gets a series, 0 when none of them is free; the
        // free ones are the free-node index's (its handler runs before this controller hears).
        std::map<std::pair<std::string, std::string>, int> counts;
        for (const auto& flavor : catalog->flavors) {
          for (const auto& n : ctx.caches.nodes->store().by_index(kByFlavor, flavor.label_value)) {
            auto zone = n->meta.labels.get(catalog->zone_label).value_or("");
            counts.try_emplace({flavor.name, std::string(zone)}, 0);
          }
        }
        for (const auto& free :
             ctx.free_nodes->list(catalog, [&ctx] { return ctx.caches.nodes->store().list(); })) {
          ++counts[{free.flavor, free.zone}];
        }
        ctx.metrics->set_free_nodes(counts);
        return runtime::ReconcileResult::after(std::chrono::minutes(1));
      },
      std::move(inventory_controller));
  inventory.watch(nodes,
                  std::function<std::vector<std::string>(const kube::Node&)>(
                      [](const kube::Node&) { return std::vector<std::string>{"free-nodes"}; }));

  // A changed catalog may change every decision.
  op->catalog->watch(std::chrono::seconds(10),
                     [&pool_ctl, &network_ctl, &operation_ctl, &driver_ctl, &pools, &networks] {
                       for (const auto& key : pools.store().keys()) {
                         pool_ctl.enqueue(key);
                         operation_ctl.enqueue(key);
                         driver_ctl.enqueue(key);
                       }
                       for (const auto& key : networks.store().keys())
                         network_ctl.enqueue(key);
                     });
  runtime::log::info(
      "setup", "controllers registered",
      {{"catalog", options.catalog_file.string()}, {"flavors", shared->flavors.size()}});
  return op;
}

}  // namespace respool::reconcilers
