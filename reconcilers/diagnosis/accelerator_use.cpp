#include "reconcilers/diagnosis/accelerator_use.hpp"

#include <charconv>
#include <cmath>

#include <nlohmann/json.hpp>

namespace respool::reconcilers {

using Json = nlohmann::json;

namespace {

// A PromQL string literal's content: backslash and double quote escaped.
std::string quoted(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out;
}

http::ClientOptions client_options(const http::Url& url) {
  http::ClientOptions options;
  options.endpoint = url;
  options.connect_timeout = std::chrono::seconds(5);
  return options;
}

}  // namespace

std::string accelerator_use_query(std::string_view ns, std::string_view job,
                                  std::chrono::seconds window) {
  return "avg by (pod) (avg_over_time({__name__=~\"ma_container_(gpu|npu)_util\", namespace=\"" +
         quoted(ns) + "\", job=\"" + quoted(job) + "\"}[" + std::to_string(window.count()) + "s]))";
}

std::expected<std::map<std::string, double>, std::string> use_by_pod(std::string_view body) {
  const Json answer = Json::parse(body, nullptr, false);
  if (!answer.is_object())
    return std::unexpected("not a JSON object: " + std::string(body.substr(0, 200)));
  if (answer.value("status", "") != "success")
    return std::unexpected(answer.value("errorType", "error") + ": " + answer.value("error", ""));
  const Json data = answer.value("data", Json::object());
  if (data.value("resultType", "") != "vector")
    return std::unexpected("not an instant vector: resultType " + data.value("resultType", ""));
  std::map<std::string, double> out;
  for (const auto& series : data.value("result", Json::array())) {
    const std::string pod = series.value("metric", Json::object()).value("pod", "");
    const Json sample = series.value("value", Json::array());
    if (pod.empty() || !sample.is_array() || sample.size() != 2 || !sample[1].is_string()) continue;
    const std::string text = sample[1].get<std::string>();
    double v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) continue;
    out[pod] = v;
  }
  return out;
}

AcceleratorUse::AcceleratorUse(http::Url prometheus)
    : url_(prometheus), client_(client_options(prometheus)) {}

std::expected<std::map<std::string, double>, std::string> AcceleratorUse::of_job(
    std::string_view ns, std::string_view job, std::chrono::seconds window) {
  http::Request request;
  request.method = "GET";
  request.target = url_.path + "/api/v1/query?query=" +
                   http::percent_encode(accelerator_use_query(ns, job, window));
  request.headers.set("Accept", "application/json");
  auto response = client_.send(request, std::chrono::seconds(10));
  if (!response) return std::unexpected(response.error().message);
  auto use = use_by_pod(response->body);
  if (!use)
    return std::unexpected("Prometheus answered " + std::to_string(response->status) + ": " +
                           use.error());
  return use;
}

}  // namespace respool::reconcilers
