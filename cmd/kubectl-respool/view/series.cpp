#include "cmd/kubectl-respool/view/series.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

namespace respool::kubectl {
namespace {

using Json = nlohmann::json;

std::optional<Sample> sample_of(const Json& pair) {
  // [ <unix time as a number>, "<value as a string>" ]
  if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number() || !pair[1].is_string())
    return std::nullopt;
  const std::string& text = pair[1].get_ref<const std::string&>();
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str()) return std::nullopt;
  return Sample{pair[0].get<double>(), value};
}

std::string percent_encode(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

std::string promql_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::expected<std::vector<Series>, std::string> parse_query_range(std::string_view body) {
  Json doc = Json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return std::unexpected("not a Prometheus API answer");
  auto text = [&](const char* key) {
    auto it = doc.find(key);
    return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  if (text("status") != "success") return std::unexpected(text("errorType") + ": " + text("error"));
  const Json* data = doc.contains("data") ? &doc["data"] : nullptr;
  if (!data || !data->is_object() || !data->contains("result") || !(*data)["result"].is_array())
    return std::unexpected("the answer holds no data.result");
  std::vector<Series> out;
  for (const Json& item : (*data)["result"]) {
    Series series;
    if (item.contains("metric") && item["metric"].is_object())
      for (const auto& [k, v] : item["metric"].items())
        if (v.is_string()) series.labels[k] = v.get<std::string>();
    if (item.contains("values") && item["values"].is_array())
      for (const Json& pair : item["values"])
        if (auto s = sample_of(pair)) series.samples.push_back(*s);
    out.push_back(std::move(series));
  }
  return out;
}

std::optional<Summary> summarize(const std::vector<Sample>& samples) {
  if (samples.empty()) return std::nullopt;
  Summary s{samples.back().value, samples.front().value, samples.front().value};
  for (const auto& sample : samples) {
    s.min = std::min(s.min, sample.value);
    s.max = std::max(s.max, sample.value);
  }
  return s;
}

std::string sparkline(const std::vector<Sample>& samples, std::size_t width) {
  static constexpr std::array<std::string_view, 8> kBlocks{"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  std::size_t first = width > 0 && samples.size() > width ? samples.size() - width : 0;
  std::vector<Sample> shown(samples.begin() + static_cast<std::ptrdiff_t>(first), samples.end());
  auto summary = summarize(shown);
  std::string out;
  if (!summary) return out;
  double range = summary->max - summary->min;
  for (const auto& s : shown) {
    std::size_t level = 0;
    if (range > 0 && std::isfinite(s.value))
      level = static_cast<std::size_t>(std::lround((s.value - summary->min) / range * 7));
    out += kBlocks[std::min<std::size_t>(level, 7)];
  }
  return out;
}

std::string format_value(double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", value);
  std::string s = buf;
  while (s.back() == '0')
    s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

std::string task_query(std::string_view metric, std::string_view ns, std::string_view job) {
  return std::string(metric) + "{namespace=" + promql_string(ns) + ",job=" + promql_string(job) +
         "}";
}

std::string query_range_target(std::string_view base_path, std::string_view query,
                               long long end_millis) {
  auto seconds = [](long long millis) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%lld.%03lld", millis / 1000, millis % 1000);
    return std::string(buf);
  };
  std::string path(base_path);
  while (!path.empty() && path.back() == '/')
    path.pop_back();
  return path + "/api/v1/query_range?query=" + percent_encode(query) +
         "&start=" + seconds(end_millis - 3'600'000) + "&end=" + seconds(end_millis) + "&step=60";
}

}  // namespace respool::kubectl
