#include "reconcilers/watch_keys.hpp"

namespace respool::reconcilers {

Keys pool_label(const kube::StringMap& labels) {
  auto v = labels.get(policy::kPoolLabel);
  return v ? Keys{std::string(*v)} : Keys{};
}

namespace {

Keys spec_field(const kube::Unstructured& object, const char* field) {
  auto value = object.object.value("spec", kube::Json::object()).value(field, "");
  return value.empty() ? Keys{} : Keys{value};
}

}  // namespace

Keys operation_pool(const kube::Unstructured& operation) {
  return spec_field(operation, "pool");
}

Keys pool_network(const kube::Unstructured& pool) {
  return spec_field(pool, "network");
}

std::function<Keys(const kube::Pod&)> pool_of_pod_node(const runtime::Informer<kube::Node>& nodes,
                                                       NodeFilter accept) {
  return [&nodes, accept = std::move(accept)](const kube::Pod& p) -> Keys {
    if (p.node_name.empty()) return {};
    auto node = nodes.store().get(p.node_name.view());
    if (!node || (accept && !accept(*node))) return {};
    return pool_of(*node);
  };
}

}  // namespace respool::reconcilers
