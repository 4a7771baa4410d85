#include "cmd/kubectl-respool/view/top_view.hpp"

#include <algorithm>
#include <charconv>
#include <set>

namespace respool::kubectl {
namespace {

std::string task_of(const Series& s) {
  auto it = s.labels.find("task");
  return it == s.labels.end() ? std::string() : it->second;
}

// worker-2 before worker-10: by the trailing number where both have one.
bool task_less(const std::string& a, const std::string& b) {
  auto index = [](const std::string& t) {
    auto dash = t.rfind('-');
    long long n = -1;
    if (dash != std::string::npos)
      if (auto [p, ec] = std::from_chars(t.data() + dash + 1, t.data() + t.size(), n);
          ec != std::errc() || p != t.data() + t.size())
        n = -1;
    return std::pair(dash == std::string::npos ? t : t.substr(0, dash), n);
  };
  auto ia = index(a), ib = index(b);
  if (ia.first != ib.first || ia.second < 0 || ib.second < 0) return a < b;
  return ia.second < ib.second;
}

std::string short_name(std::string_view metric) {
  constexpr std::string_view prefix = "ma_container_";
  return std::string(metric.starts_with(prefix) ? metric.substr(prefix.size()) : metric);
}

}  // namespace

std::string task_metric_query(std::string_view metric, std::string_view ns, std::string_view job) {
  std::string aggregate = metric.ends_with("_util") ? "avg" : "sum";
  return aggregate + " by (task) (" + task_query(metric, ns, job) + ")";
}

Table top_table(const std::vector<MetricSeries>& metrics) {
  Table t{{"TASK", "SERIES", "LATEST", "MIN", "MAX", "LAST-HOUR"}, {}};
  std::vector<std::string> tasks;
  for (const auto& m : metrics)
    for (const auto& s : m.series)
      if (std::ranges::find(tasks, task_of(s)) == tasks.end()) tasks.push_back(task_of(s));
  std::ranges::sort(tasks, task_less);
  for (const auto& m : metrics)
    if (m.series.empty()) t.rows.push_back({"", short_name(m.metric), "no data"});
  for (const auto& task : tasks) {
    for (const auto& m : metrics) {
      if (m.series.empty()) continue;
      auto it = std::ranges::find(m.series, task, task_of);
      auto summary = it == m.series.end() ? std::nullopt : summarize(it->samples);
      if (!summary) {
        t.rows.push_back({task, short_name(m.metric), "no data"});
        continue;
      }
      t.rows.push_back({task, short_name(m.metric), format_value(summary->latest),
                        format_value(summary->min), format_value(summary->max),
                        sparkline(it->samples, 60)});
    }
  }
  return t;
}

nlohmann::json top_data(std::string_view ns, std::string_view job,
                        const std::vector<MetricSeries>& metrics) {
  nlohmann::json out = {{"namespace", ns}, {"job", job}, {"metrics", nlohmann::json::array()}};
  for (const auto& m : metrics) {
    nlohmann::json series = nlohmann::json::array();
    for (const auto& s : m.series) {
      nlohmann::json values = nlohmann::json::array();
      for (const auto& sample : s.samples)
        values.push_back({sample.time, sample.value});
      series.push_back({{"task", task_of(s)}, {"labels", s.labels}, {"values", values}});
    }
    out["metrics"].push_back({{"metric", m.metric},
                              {"query", task_metric_query(m.metric, ns, job)},
                              {"series", series}});
  }
  return out;
}

}  // namespace respool::kubectl
