#pragma once
// The workers' accelerator use over a window, from Prometheus' HTTP API (O4 where the operator
// is given --prometheus-url): one instant query per check of a Job,
//   avg by (pod) (avg_over_time({__name__=~"ma_container_(gpu|npu)_util",
//                                namespace="<ns>", job="<job>"}[<window>s]))
// over the node agents' per-container series (docs/metrics.md; `job` is the Job's name, as the
// agents export it with honor_labels), averaged over each pod's accelerators and the window.

#include <chrono>
#include <expected>
#include <map>
#include <string>
#include <string_view>

#include "operator/http/client.hpp"

namespace respool::reconcilers {

// The query for a Job's workers over `window`.
std::string accelerator_use_query(std::string_view ns, std::string_view job,
                                  std::chrono::seconds window);

// An instant query's answer (resultType "vector"): the value of each series by its `pod` label.
// An error answer or a malformed body is an error naming what Prometheus said.
std::expected<std::map<std::string, double>, std::string> use_by_pod(std::string_view body);

class AcceleratorUse {
 public:
  explicit AcceleratorUse(http::Url prometheus);
  // pod → percent; empty when Prometheus has no series of the Job (no agent on its nodes).
  std::expected<std::map<std::string, double>, std::string> of_job(std::string_view ns,
                                                                   std::string_view job,
                                                                   std::chrono::seconds window);
  const http::Url& url() const { return url_; }

 private:
  http::Url url_;
  http::Client client_;
};

}  // namespace respool::reconcilers
