#include "reconcilers/diagnosis/worker_failure.hpp"

#include "operator/kube/resource.hpp"

namespace respool::reconcilers {

using Json = nlohmann::json;

std::optional<FailedRun> failed_run_of(const Json& pod, const std::string& container) {
  const Json statuses =
      pod.value("status", Json::object()).value("containerStatuses", Json::array());
  for (const auto& s : statuses) {
    if (!s.is_object() || s.value("name", "") != container) continue;
    for (const char* which : {"state", "lastState"}) {
      const Json terminated = s.value(which, Json::object()).value("terminated", Json::object());
      if (!terminated.is_object() || !terminated.contains("exitCode")) continue;
      const int code =
          terminated["exitCode"].is_number_integer() ? terminated["exitCode"].get<int>() : 0;
      if (code == 0) return std::nullopt;  // the last run succeeded
      FailedRun run;
      run.container = container;
      run.failure = {code, terminated.value("reason", "")};
      run.previous = std::string_view(which) == "lastState";
      return run;
    }
  }
  return std::nullopt;
}

kube::Result<void> read_run_log(kube::Client& client, const std::string& ns, const std::string& pod,
                                FailedRun& run) {
  for (int lines : {policy::kLogTailLines, 20, 2}) {
    std::string target = kube::resources::pods.item_path(ns, pod, "log");
    target += "?container=" + run.container + "&tailLines=" + std::to_string(lines) +
              "&limitBytes=" + std::to_string(policy::kLogTailBytes) + "&timestamps=true";
    if (run.previous) target += "&previous=true";
    auto response = client.request("GET", target);
    ++run.requests;
    if (!response) return std::unexpected(response.error());
    if (response->status != 200)
      return std::unexpected(kube::error_from_response(response->status, response->body));
    run.log_bytes += static_cast<long long>(response->body.size());
    run.log = std::move(response->body);
    if (run.log.size() < policy::kLogTailBytes) break;  // whole lines up to the log's end
  }
  return {};
}

kube::Result<std::optional<FailedRun>> read_failed_run(kube::Client& client, const std::string& ns,
                                                       const std::string& pod,
                                                       const std::string& container) {
  auto object = client.get(kube::resources::pods, ns, pod);
  if (!object) return std::unexpected(object.error());
  auto run = failed_run_of(*object, container);
  if (!run) return std::optional<FailedRun>();
  run->requests = 1;
  if (auto read = read_run_log(client, ns, pod, *run); !read) return std::unexpected(read.error());
  return run;
}

}  // namespace respool::reconcilers
