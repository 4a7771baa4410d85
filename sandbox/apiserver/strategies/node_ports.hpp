#pragma once
// Node ports are unique in the cluster, as kube-apiserver's node port allocator (one bitmap for
// 30000-32767, ports[].nodePort and healthCheckNodePort alike) keeps them. The sandbox's table is
// the stored Services themselves: a port is taken while a Service holds it, free once it goes.

#include <set>
#include <string_view>
#include <vector>

#include "sandbox/apiserver/errors.hpp"
#include "sandbox/apiserver/registry/store.hpp"

namespace respool::sandbox::kinds {

// The node ports the stored Services hold, but the one stored under `skip_key`.
std::set<long long> node_ports_in_use(const Collection* services, std::string_view skip_key);

// After a Service's defaults and allocations: a node port the client asked for (`requested`
// is the body as sent) that another Service holds is refused as the allocator refuses it
// (`spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated`); one
// the sandbox picked is picked again among the free ones.
std::vector<Cause> claim_node_ports(const Json& requested, Json& service,
                                    const std::set<long long>& in_use);

}  // namespace respool::sandbox::kinds
