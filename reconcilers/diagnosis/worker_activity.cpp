#include "reconcilers/diagnosis/worker_activity.hpp"

#include <algorithm>

#include "operator/kube/resource.hpp"
#include "reconcilers/policy/performance.hpp"

namespace respool::reconcilers {

kube::Result<LoggedLines> logged_lines(kube::Client& client, const std::string& ns,
                                       const std::string& pod, const std::string& container,
                                       std::chrono::seconds window) {
  std::string target = kube::resources::pods.item_path(ns, pod, "log");
  target += "?container=" + container +
            "&sinceSeconds=" + std::to_string(std::max<long long>(1, window.count())) +
            "&limitBytes=" + std::to_string(policy::kActivityReadBytes);
  auto response = client.request("GET", target);
  if (!response) return std::unexpected(response.error());
  if (response->status != 200)
    return std::unexpected(kube::error_from_response(response->status, response->body));
  const std::string& body = response->body;
  LoggedLines out;
  out.bytes = static_cast<long long>(body.size());
  out.at_least = body.size() >= policy::kActivityReadBytes;
  // A line cut by the bound still counts: the worker wrote it.
  out.lines = static_cast<double>(std::count(body.begin(), body.end(), '\n')) +
              (!body.empty() && body.back() != '\n' ? 1 : 0);
  return out;
}

}  // namespace respool::reconcilers
