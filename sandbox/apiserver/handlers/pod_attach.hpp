#pragma once
// GET /api/v1/namespaces/{ns}/pods/{name}/attach upgraded to a WebSocket, as `kubectl attach`
// runs it (v5.channel.k8s.io, else v4.channel.k8s.io): from the moment of attaching, what the
// simulated container writes (sandbox/simulator/container_log.hpp) goes out on the stdout
// channel (1) as the simulated clock moves; when the container's run ends the kubelet's Success
// Status goes on the error channel (3), then the close frame. stdin is accepted but never read
// (the simulated process reads no input). The container and host checks answer before the
// upgrade with the real server's 400s (streamLocation); a POST (SPDY) gets them too, then 400.

#include <atomic>

#include "operator/http/server.hpp"
#include "sandbox/apiserver/registry/engine.hpp"

namespace respool::sandbox {

void serve_pod_attach(Engine& engine, const std::atomic<bool>& stopping, const ResourceType& pods,
                      const http::ServerRequest& request, const http::Target& target,
                      const std::string& ns, const std::string& name, http::Responder& responder);

}  // namespace respool::sandbox
