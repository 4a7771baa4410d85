#pragma once
// GET /api/v1/namespaces/{ns}/pods/{name}/log as kube-apiserver 1.32 answers it through the
// kubelet: PodLogOptions (container, previous, sinceSeconds, sinceTime, tailLines, limitBytes,
// timestamps, follow) validated as ValidatePodLogOptions does (422 PodLogOptions), the container
// chosen as validateContainer does (400 when a pod of several containers names none), an empty
// 200 for a pod without a node, the kubelet's 400s for a container waiting to start or without
// a previous run, and text/plain lines of the simulated container (sandbox/simulator/
// container_log.hpp); `follow` streams them chunked as the simulated clock moves, until the
// container's run ends, the pod goes, the client goes or the server stops.

#include <atomic>
#include <functional>

#include "operator/http/message.hpp"
#include "operator/http/server.hpp"
#include "sandbox/apiserver/registry/engine.hpp"
#include "sandbox/simulator/container_log.hpp"

namespace respool::sandbox {

// validateContainer (pkg/registry/core/pod/strategy.go): the container `asked` names, which must
// be one of the pod's, or its only container; 400 otherwise. Logs, exec and attach share it.
Result<std::string> choose_container(const Json& pod, const std::string& asked);

// The lines the container writes after `last_step` of `run`, passed to `write` as the simulated
// clock moves (at most `left` bytes, -1 = no limit): true when the run ended, false when the pod
// went or was replaced, `write` failed, `closed` said so, the limit was reached or the server
// stops. `logs -f` and `attach` share it.
bool follow_container_output(Engine& engine, const std::atomic<bool>& stopping,
                             const ResourceType& pods, const std::string& ns, const Json& pod,
                             const std::string& container, sim::ContainerRun run, bool timestamps,
                             long long last_step, long long& left,
                             const std::function<bool(const std::string&)>& write,
                             const std::function<bool()>& closed);

void serve_pod_log(Engine& engine, const std::atomic<bool>& stopping, const ResourceType& pods,
                   const http::Target& target, const std::string& ns, const std::string& name,
                   http::Responder& responder);

}  // namespace respool::sandbox
