#include <cstdlib>
#include <iostream>

#include "cmd/kubectl-respool/cluster.hpp"
#include "cmd/kubectl-respool/commands.hpp"
#include "cmd/kubectl-respool/view/top_view.hpp"
#include "cmd/kubectl-respool/view/yaml.hpp"
#include "operator/http/client.hpp"

namespace respool::kubectl {
namespace {

constexpr const char* kDefaultPrometheus = "http://localhost:9090";

std::string prometheus_url(const Invocation& inv) {
  if (inv.prometheus_url) return *inv.prometheus_url;
  const char* env = std::getenv("RESPOOL_PROMETHEUS_URL");
  return env && *env ? env : kDefaultPrometheus;
}

// One query_range (the last hour, per minute) of one metric; an answer Prometheus could not
// give (down, a bad query) is an error, a metric it does not have is an empty result.
std::expected<MetricSeries, std::string> query(http::Client& prometheus, const http::Url& url,
                                               std::string_view metric, const std::string& ns,
                                               const std::string& job, long long end_millis) {
  http::Request request;
  request.method = "GET";
  request.target = query_range_target(url.path, task_metric_query(metric, ns, job), end_millis);
  request.headers.set("Accept", "application/json");
  auto response = prometheus.send(request, std::chrono::seconds(30));
  if (!response) return std::unexpected(response.error().message);
  auto series = parse_query_range(response->body);
  if (!series)
    return std::unexpected("Prometheus answered " + std::to_string(response->status) + ": " +
                           series.error());
  return MetricSeries{std::string(metric), std::move(*series)};
}

}  // namespace

int run_top_job(const Invocation& inv) {
  if (inv.args.size() != 1)
    return usage_error(inv, inv.args.empty() ? "error: a job name is required"
                                             : "error: unexpected arguments: " + inv.args[1]);
  const std::string& job = inv.args.front();
  auto cluster = connect(inv);
  if (!cluster) return std::cerr << cluster.error() << "\n", 1;
  // The Job first: a name that does not exist is NotFound, as kubectl says it.
  if (auto object = cluster->client->get(kube::resources::jobs, cluster->ns, job); !object)
    return std::cerr << describe(object.error()) << "\n", 1;
  std::string base = prometheus_url(inv);
  auto url = http::parse_url(base);
  if (!url) return std::cerr << "error: --prometheus-url " << base << " is not a URL\n", 1;
  http::ClientOptions options;
  options.endpoint = *url;
  options.connect_timeout = std::chrono::seconds(5);
  http::Client prometheus(options);
  // One hour for every series, so that their minutes line up.
  const long long end = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  std::vector<MetricSeries> metrics;
  for (std::string_view metric : kTaskMetrics) {
    auto result = query(prometheus, *url, metric, cluster->ns, job, end);
    if (!result)
      return std::cerr << "error: Prometheus at " << base << ": " << result.error() << "\n", 1;
    metrics.push_back(std::move(*result));
  }
  if (inv.output == Output::Json)
    std::cout << top_data(cluster->ns, job, metrics).dump(4) << "\n";
  else if (inv.output == Output::Yaml)
    std::cout << to_yaml(top_data(cluster->ns, job, metrics));
  else
    std::cout << render(top_table(metrics));
  return 0;
}

}  // namespace respool::kubectl
