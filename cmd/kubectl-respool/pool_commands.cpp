#include <iostream>

#include "cmd/kubectl-respool/cluster.hpp"
#include "cmd/kubectl-respool/commands.hpp"
#include "cmd/kubectl-respool/view/help.hpp"
#include "cmd/kubectl-respool/view/jobs_view.hpp"
#include "cmd/kubectl-respool/view/nodes_view.hpp"
#include "cmd/kubectl-respool/view/pool_view.hpp"
#include "cmd/kubectl-respool/view/yaml.hpp"

namespace respool::kubectl {
namespace {

// One pool argument, or none where `optional`; anything more is a usage error.
std::expected<std::string, int> pool_arg(const Invocation& inv, bool optional) {
  if (inv.args.size() > 1)
    return std::unexpected(usage_error(inv, "error: unexpected arguments: " + inv.args[1]));
  if (inv.args.empty() && !optional)
    return std::unexpected(usage_error(inv, "error: a pool name is required"));
  return inv.args.empty() ? std::string() : inv.args.front();
}

int fail(const kube::Error& error) {
  std::cerr << describe(error) << "\n";
  return 1;
}

bool print_data(const Invocation& inv, const Json& data) {
  if (inv.output == Output::Json) std::cout << data.dump(4) << "\n";
  if (inv.output == Output::Yaml) std::cout << to_yaml(data);
  return inv.output == Output::Json || inv.output == Output::Yaml;
}

void print_table(const Table& table, const std::string& none) {
  std::string text = render(table);
  if (text.empty()) std::cerr << none << "\n";
  std::cout << text;
}

kube::Result<Json> pool_nodes(kube::Client& client, const std::string& pool) {
  kube::ListOptions options;
  options.label_selector = "respool.io/pool=" + pool;
  return client.list(kube::resources::nodes, "", options);
}

}  // namespace

int run_status(const Invocation& inv) {
  auto pool = pool_arg(inv, true);
  if (!pool) return pool.error();
  auto cluster = connect(inv);
  if (!cluster) return std::cerr << cluster.error() << "\n", 1;
  kube::Client& client = *cluster->client;
  auto now = Clock::now();
  if (pool->empty()) {
    auto pools = client.list(kube::resources::resourcepools, "");
    if (!pools) return fail(pools.error());
    if (!print_data(inv, *pools))
      print_table(pools_table(*pools, inv.output == Output::Wide, now), "No resources found");
    return 0;
  }
  auto object = client.get(kube::resources::resourcepools, "", *pool);
  if (!object) return fail(object.error());
  if (print_data(inv, *object)) return 0;
  auto nodes = pool_nodes(client, *pool);
  if (!nodes) return fail(nodes.error());
  std::cout << pool_page(*object, *nodes, now);
  return 0;
}

int run_jobs(const Invocation& inv) {
  auto pool = pool_arg(inv, false);
  if (!pool) return pool.error();
  auto cluster = connect(inv);
  if (!cluster) return std::cerr << cluster.error() << "\n", 1;
  kube::Client& client = *cluster->client;
  auto object = client.get(kube::resources::resourcepools, "", *pool);
  if (!object) return fail(object.error());
  auto nodes = pool_nodes(client, *pool);
  if (!nodes) return fail(nodes.error());
  kube::ListOptions options;
  options.limit = 500;  // pages: a large cluster's pods are not one answer
  // A finished pod runs no job: the server leaves them out (a cluster keeps many Job pods that
  // ended), as `kubectl describe node` asks for a node's pods.
  options.field_selector = "status.phase!=Succeeded,status.phase!=Failed";
  auto pods = client.list(kube::resources::pods, "", options);
  if (!pods) return fail(pods.error());
  if (print_data(inv, jobs_data(*object, *nodes, *pods))) return 0;
  print_table(jobs_table(*object, *nodes, *pods, inv.output == Output::Wide, Clock::now()),
              "No jobs found in pool " + *pool + ".");
  return 0;
}

int run_nodes(const Invocation& inv) {
  auto pool = pool_arg(inv, false);
  if (!pool) return pool.error();
  auto cluster = connect(inv);
  if (!cluster) return std::cerr << cluster.error() << "\n", 1;
  kube::Client& client = *cluster->client;
  // The pool first, so that a pool that does not exist is NotFound, not an empty table.
  if (auto object = client.get(kube::resources::resourcepools, "", *pool); !object)
    return fail(object.error());
  auto nodes = pool_nodes(client, *pool);
  if (!nodes) return fail(nodes.error());
  if (print_data(inv, *nodes)) return 0;
  auto operations = client.list(kube::resources::nodeoperations, "");
  if (!operations) return fail(operations.error());
  print_table(nodes_table(*nodes, *operations, inv.output == Output::Wide, Clock::now()),
              "No nodes found in pool " + *pool + ".");
  return 0;
}

int usage_error(const Invocation& inv, const std::string& message) {
  std::cerr << message << "\n" << see_help(inv.command) << "\n";
  return 1;
}

}  // namespace respool::kubectl
