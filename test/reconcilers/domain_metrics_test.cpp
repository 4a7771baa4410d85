// respool's own metrics: the series a pool's dashboard panels read exist from the pool's first
// report, at 0, keep their counts, and go with the pool.
#include <catch2/catch.hpp>
#include <string>

#include "operator/runtime/metrics.hpp"
#include "reconcilers/domain_metrics.hpp"

namespace {

using respool::reconcilers::DomainMetrics;
using respool::runtime::Registry;

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

}  // namespace

TEST_CASE("a pool's training-job series exist at 0 from its first phase and go with it",
          "[metrics][trainingjob]") {
  Registry registry;
  DomainMetrics metrics(registry);
  metrics.set_pool_phase("gpu-a", "Creating");
  auto text = registry.render();
  for (const char* recover : {"proc_restart", "job_reschedule", "job_reschedule_with_taint"})
    CHECK(has_line(text, std::string(R"(respool_job_restarts_total{pool="gpu-a",recover=")") +
                             recover + R"("} 0)"));
  CHECK(has_line(text, R"(respool_job_hangs_total{pool="gpu-a"} 0)"));
  CHECK(has_line(text, R"(respool_fault_tolerant_jobs{pool="gpu-a"} 0)"));

  // A later report does not reset what was counted or set.
  metrics.count_job_restart("gpu-a", "job_reschedule_with_taint");
  metrics.count_job_hang("gpu-a");
  metrics.set_fault_tolerant_jobs({{"gpu-a", 2}});
  metrics.set_pool_phase("gpu-a", "Running");
  text = registry.render();
  CHECK(has_line(
      text, R"(respool_job_restarts_total{pool="gpu-a",recover="job_reschedule_with_taint"} 1)"));
  CHECK(has_line(text, R"(respool_job_hangs_total{pool="gpu-a"} 1)"));
  CHECK(has_line(text, R"(respool_fault_tolerant_jobs{pool="gpu-a"} 2)"));

  metrics.forget_pool("gpu-a");
  text = registry.render();
  CHECK(text.find(R"(pool="gpu-a")") == std::string::npos);
  // A pool that is gone is not brought back at 0 by the next count of the others.
  metrics.set_fault_tolerant_jobs({});
  CHECK(registry.render().find(R"(pool="gpu-a")") == std::string::npos);
}
