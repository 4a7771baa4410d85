// Cluster-wide node port allocation (see node_ports.hpp).

#include "sandbox/apiserver/strategies/node_ports.hpp"

#include <random>

namespace respool::sandbox::kinds {
namespace {

const char* kAllocated = "provided port is already allocated";

long long np_port_of(const Json& holder, const char* key) {
  if (!holder.is_object()) return 0;
  auto it = holder.find(key);
  return it != holder.end() && it->is_number_integer() ? it->get<long long>() : 0;
}

const Json& np_ports(const Json& service) {
  static const Json kNone = Json::array();
  auto spec = service.find("spec");
  if (spec == service.end() || !spec->is_object()) return kNone;
  auto ports = spec->find("ports");
  return ports != spec->end() && ports->is_array() ? *ports : kNone;
}

// The allocator's AllocateNext: a random free port, none when the range is full.
long long np_next_free(std::set<long long>& taken) {
  static thread_local std::mt19937 rng{std::random_device{}()};
  const long long start = std::uniform_int_distribution<long long>(30000, 32767)(rng);
  for (long long i = 0; i < 2768; ++i) {
    const long long port = 30000 + (start - 30000 + i) % 2768;
    if (taken.insert(port).second) return port;
  }
  return 0;
}

}  // namespace

std::set<long long> node_ports_in_use(const Collection* services, std::string_view skip_key) {
  std::set<long long> used;
  if (!services) return used;
  for (const auto& [key, stored] : services->items) {
    if (key == skip_key || !stored.text) continue;
    const auto service = stored.obj();
    for (const Json& p : np_ports(*service)) {
      if (long long port = np_port_of(p, "nodePort")) used.insert(port);
    }
    if (long long port =
            np_port_of(service->value("spec", Json::object()), "healthCheckNodePort")) {
      used.insert(port);
    }
  }
  return used;
}

std::vector<Cause> claim_node_ports(const Json& requested, Json& service,
                                    const std::set<long long>& in_use) {
  if (!service.contains("spec") || !service["spec"].is_object()) return {};
  Json& spec = service["spec"];
  const Json& asked = np_ports(requested);
  std::set<long long> taken = in_use;
  for (const Json& p : np_ports(service)) {
    if (long long port = np_port_of(p, "nodePort")) taken.insert(port);
  }
  if (long long port = np_port_of(spec, "healthCheckNodePort")) taken.insert(port);
  if (spec.contains("ports") && spec["ports"].is_array()) {
    Json& ports = spec["ports"];
    for (std::size_t i = 0; i < ports.size(); ++i) {
      const long long port = np_port_of(ports[i], "nodePort");
      if (!port || !in_use.contains(port)) continue;
      if (i < asked.size() && np_port_of(asked[i], "nodePort") == port) {
        return {field_invalid("spec.ports[" + std::to_string(i) + "].nodePort", port, kAllocated)};
      }
      // Picked by the sandbox: ports of one number share their node port, as allocated.
      const long long fresh = np_next_free(taken);
      for (Json& q : ports) {
        if (np_port_of(q, "nodePort") == port && fresh) q["nodePort"] = fresh;
      }
    }
  }
  const long long health = np_port_of(spec, "healthCheckNodePort");
  if (health && in_use.contains(health)) {
    if (np_port_of(requested.value("spec", Json::object()), "healthCheckNodePort") == health) {
      return {field_invalid("spec.healthCheckNodePort", health, kAllocated)};
    }
    if (long long fresh = np_next_free(taken)) spec["healthCheckNodePort"] = fresh;
  }
  return {};
}

}  // namespace respool::sandbox::kinds
