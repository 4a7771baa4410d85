#pragma once
// GET /api/v1/namespaces/{ns}/pods/{name}/exec upgraded to a WebSocket, as kubectl 1.32 runs
// `kubectl exec` (subprotocol v5.channel.k8s.io, else v4.channel.k8s.io): the command runs in
// the simulated container (sandbox/simulator/container_exec.hpp), its output goes out on the
// stdout (1) and stderr (2) channels, its end as a metav1.Status on the error channel (3:
// Success, or NonZeroExitCode with the ExitCode cause, as the kubelet writes it), then the
// close frame. A command that stops the training process restarts the container at once (the
// pod's status, as its kubelet reports it: restartCount, lastState, running again).
// Authorization is the generic one: `get` on pods/exec, as 1.32 asks for a WebSocket upgrade
// (the `create` check of AuthorizePodWebsocketUpgradeCreatePermission came later).
// The pod and container checks answer before the upgrade, with the real server's 400s.

#include "operator/http/server.hpp"
#include "sandbox/apiserver/registry/engine.hpp"

namespace respool::sandbox {

void serve_pod_exec(Engine& engine, const ResourceType& pods, const http::ServerRequest& request,
                    const http::Target& target, const std::string& ns, const std::string& name,
                    http::Responder& responder);

}  // namespace respool::sandbox
