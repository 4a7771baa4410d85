#pragma once
// Pod statuses as a kubelet writes them: Running (every container started and ready) and
// terminated (Succeeded with exit code 0, Failed otherwise).

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

namespace respool::sandbox::sim {

// The pod's IP (10.244.x.y from its uid; the node's address for hostNetwork pods).
std::string pod_address(const nlohmann::json& pod, const std::string& host_ip);

// status of a pod whose containers all run, ready, since `now`.
nlohmann::json running_status(const nlohmann::json& pod, const std::string& host_ip,
                              std::chrono::system_clock::time_point now);

// status of a pod that runs but whose containers crash and restart (CrashLoopBackOff): Running,
// not Ready, as a kubelet reports a driver that cannot load.
nlohmann::json crash_looping_status(const nlohmann::json& pod, const std::string& host_ip,
                                    std::chrono::system_clock::time_point now);

// status of a pod whose containers ended at `now` with `exit_code`.
nlohmann::json terminated_status(const nlohmann::json& pod, int exit_code,
                                 std::chrono::system_clock::time_point now);

// status of a pod whose container `container` was stopped at `now` with `exit_code` (pods/exec
// killed its process): with restartPolicy Always, or OnFailure and a non-zero code, the kubelet
// starts it again (restartCount + 1, lastState the run that ended, running since `now`);
// otherwise it stays terminated and the pod ends when no container runs.
nlohmann::json restarted_status(const nlohmann::json& pod, const std::string& container,
                                int exit_code, std::chrono::system_clock::time_point now);

// "Guaranteed" | "Burstable" | "BestEffort", from the containers' requests and limits.
std::string qos_class(const nlohmann::json& pod_spec);

}  // namespace respool::sandbox::sim
