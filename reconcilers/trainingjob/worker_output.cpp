#include "reconcilers/trainingjob/worker_output.hpp"

#include "apimachinery/time.hpp"
#include "operator/kube/resource.hpp"

namespace respool::reconcilers {

std::optional<policy::TimePoint> line_timestamp(std::string_view line) {
  const auto space = line.find(' ');
  if (space == std::string_view::npos || space == 0) return std::nullopt;
  return apimachinery::parse_time(line.substr(0, space));
}

kube::Result<std::optional<policy::TimePoint>> last_output(kube::Client& client,
                                                           const OutputQuery& query) {
  std::string target = kube::resources::pods.item_path(query.ns, query.pod, "log");
  target += "?container=" + query.container +
            "&sinceSeconds=" + std::to_string(std::max<long long>(1, query.window.count())) +
            "&tailLines=1&timestamps=true&limitBytes=4096";
  auto response = client.request("GET", target);
  if (!response) return std::unexpected(response.error());
  if (response->status != 200)
    return std::unexpected(kube::error_from_response(response->status, response->body));
  std::string_view body = response->body;
  while (!body.empty() && body.back() == '\n')
    body.remove_suffix(1);
  if (body.empty()) return std::optional<policy::TimePoint>();
  const auto start = body.rfind('\n');
  auto line = start == std::string_view::npos ? body : body.substr(start + 1);
  // A line without a readable timestamp still proves output within the window: count it as now.
  return std::optional<policy::TimePoint>(line_timestamp(line).value_or(query.now));
}

}  // namespace respool::reconcilers
