#pragma once
// `kubectl respool top job`: which series it reads, and the table of each task's use.

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cmd/kubectl-respool/view/series.hpp"
#include "cmd/kubectl-respool/view/table.hpp"

namespace respool::kubectl {

// The task series of 004 under docs/metrics.md's names, in the order the table shows them.
inline constexpr std::array<std::string_view, 6> kTaskMetrics{
    "ma_container_cpu_util", "ma_container_memory_used_megabytes",
    "ma_container_gpu_util", "ma_container_gpu_memory_used_megabytes",
    "ma_container_npu_util", "ma_container_npu_memory_used_megabytes",
};

// The PromQL of one metric for one Job, one series per task: a task's container series are per
// device, so utilisation is averaged over its devices (a percentage of what it holds) and
// memory summed.
std::string task_metric_query(std::string_view metric, std::string_view ns, std::string_view job);

struct MetricSeries {
  std::string metric;
  std::vector<Series> series;  // one per task; empty: Prometheus has none ("no data")
};

// TASK, SERIES (the metric without "ma_container_"), LATEST, MIN, MAX, LAST-HOUR (a sparkline
// of the last 60 samples). Tasks in index order (worker-2 before worker-10); a metric no task
// has shows once as "no data".
Table top_table(const std::vector<MetricSeries>& metrics);

// -o json|yaml: {namespace, job, metrics: [{metric, query, series: [{task, labels, values}]}]}.
nlohmann::json top_data(std::string_view ns, std::string_view job,
                        const std::vector<MetricSeries>& metrics);

}  // namespace respool::kubectl
