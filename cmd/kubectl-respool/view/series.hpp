#pragma once
// A task's per-minute series from Prometheus' HTTP API (/api/v1/query_range, resultType
// "matrix"): parsing the answer, summarising a series (latest, min, max) and drawing it as a
// plain-text sparkline.

#include <expected>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace respool::kubectl {

struct Sample {
  double time = 0;  // Unix seconds
  double value = 0;
};

struct Series {
  std::map<std::string, std::string> labels;
  std::vector<Sample> samples;  // in time order
};

// The matrix of a query_range answer. An error answer ("status":"error") or a malformed body
// is an error naming Prometheus' errorType and error.
std::expected<std::vector<Series>, std::string> parse_query_range(std::string_view body);

struct Summary {
  double latest = 0;
  double min = 0;
  double max = 0;
};
std::optional<Summary> summarize(const std::vector<Sample>& samples);  // nullopt when empty

// One block per sample (▁▂▃▄▅▆▇█), scaled from the series' min to its max; a flat series is
// drawn at its lowest block. `width` > 0 keeps the last `width` samples.
std::string sparkline(const std::vector<Sample>& samples, std::size_t width = 0);

// A value as the table prints it: up to two decimals, trailing zeros dropped ("33", "12.5").
std::string format_value(double value);

// The query for one series of one task: METRIC{namespace="NS",job="JOB"}; the task label is
// grouped by the caller. Label values are quoted as PromQL strings.
std::string task_query(std::string_view metric, std::string_view ns, std::string_view job);

// The query_range request target: path and query string, step 60 s over the hour that ends at
// `end` (Unix time in milliseconds: whole seconds would end before a sample scraped a moment ago,
// and the last step would miss it).
std::string query_range_target(std::string_view base_path, std::string_view query,
                               long long end_millis);

}  // namespace respool::kubectl
