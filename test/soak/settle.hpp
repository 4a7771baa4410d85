#pragma once
// The soak's end: once the schedule and the chaos stop, everything must come to an end within
// --settle (pools Running or waiting for free nodes, every NodeOperation ended or waiting as
// N1 or N3 allow, no driver upgrade in flight); the operations still waiting are deleted and must
// go; then the end's checks: every mark of respool's explained, no replica crashed, every node
// added to or removed from a pool audited, no audit record outside its writer's Lease terms,
// the soak's watches equal to the server, and a fresh operator that writes nothing.

#include <chrono>
#include <string>
#include <vector>

#include "operator/kube/client.hpp"
#include "sandbox/apiserver/api_server.hpp"
#include "test/soak/monitor.hpp"
#include "test/soak/replicas.hpp"

namespace respool::soak {

void wait_for_nodes(const Monitor& monitor, std::size_t count);

// What has not ended in `s` (empty when everything has), and the NodeOperations that wait as
// the rules allow (N1's daily limit, N3's idle node) in `waiting`.
std::vector<std::string> not_ended(const Snapshot& s, std::vector<std::string>* waiting);

std::vector<Breach> settle_and_end(Monitor& monitor, kube::Client& client, Replicas& replicas,
                                   std::chrono::nanoseconds settle);

std::vector<Breach> check_the_end(Monitor& monitor, kube::Client& client, Replicas& replicas,
                                  sandbox::ApiServer& server);

}  // namespace respool::soak
