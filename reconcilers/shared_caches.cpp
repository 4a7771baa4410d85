#include "reconcilers/shared_caches.hpp"

#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/node_health.hpp"
#include "reconcilers/watch_keys.hpp"

namespace respool::reconcilers {

namespace {

runtime::InformerOptions informer_options(const kube::Resource& resource) {
  runtime::InformerOptions o;
  o.resource = resource;
  return o;
}

void index_nodes(runtime::Informer<kube::Node>& nodes, const std::string& flavor_label,
                 FreeNodeIndex& free_nodes) {
  nodes.store().add_index(kByPool, [](const kube::Node& n) { return pool_of(n); });
  nodes.store().add_index(kByFlavor, [flavor_label](const kube::Node& n) {
    auto v = n.meta.labels.get(flavor_label);
    return v ? Keys{std::string(*v)} : Keys{};
  });
  nodes.add_handlers({
      .on_add = [&free_nodes](const auto& node) { free_nodes.observe(node); },
      .on_update = [&free_nodes](const auto&, const auto& node) { free_nodes.observe(node); },
      .on_delete = [&free_nodes](const auto& node) { free_nodes.forget(node); },
  });
}

}  // namespace

Caches add_shared_caches(runtime::Manager& manager, const std::string& flavor_label,
                         FreeNodeIndex& free_nodes) {
  Caches caches;
  caches.networks =
      &manager.add_informer<kube::Unstructured>(informer_options(kube::resources::networks));
  caches.pools =
      &manager.add_informer<kube::Unstructured>(informer_options(kube::resources::resourcepools));
  auto node_options = informer_options(kube::resources::nodes);
  // The node agent's findings, for the node-health controller (H15, H16).
  node_options.decode.keep_condition_types = {std::begin(policy::kAgentConditionTypes),
                                              std::end(policy::kAgentConditionTypes)};
  caches.nodes = &manager.add_informer<kube::Node>(node_options);
  auto pod_options = informer_options(kube::resources::pods);
  pod_options.decode.keep_annotations = {std::string(policy::kDriverVersionLabel)};
  // Where an unbound pod may go: the jobs controller's queue of each pool (Q1). The label and
  // the dedicated taint share the key.
  pod_options.decode.keep_scheduling_keys = {std::string(policy::kPoolLabel)};
  caches.pods = &manager.add_informer<kube::Pod>(pod_options);
  auto plugin_options = informer_options(kube::resources::daemonsets);
  plugin_options.label_selector = "app.kubernetes.io/managed-by=respool";
  caches.plugins = &manager.add_informer<kube::Unstructured>(plugin_options);
  caches.operations =
      &manager.add_informer<kube::Unstructured>(informer_options(kube::resources::nodeoperations));

  index_nodes(*caches.nodes, flavor_label, free_nodes);
  caches.pods->store().add_index(kByNode, [](const kube::Pod& p) {
    return p.node_name.empty() ? Keys{} : Keys{p.node_name.str()};
  });
  caches.plugins->store().add_index(kByPool, pool_of<kube::Unstructured>);
  caches.operations->store().add_index(kByPool, operation_pool);
  caches.pools->store().add_index(kByNetwork, pool_network);
  return caches;
}

}  // namespace respool::reconcilers
