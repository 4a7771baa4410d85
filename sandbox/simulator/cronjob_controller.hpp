#pragma once
// The CronJob controller: carries out cronjob_plan.hpp for each CronJob when it or one of its
// Jobs changes, and at its next schedule time on the injected clock.

#include <expected>
#include <string>

#include "operator/runtime/event_recorder.hpp"
#include "sandbox/simulator/recent_writes.hpp"
#include "sandbox/simulator/sim_controller.hpp"

namespace respool::sandbox::sim {

class CronJobController : public SimController {
 public:
  CronJobController(Cluster& cluster, ObjectInformer& cronjobs, runtime::EventRecorder& events);

 private:
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& key) override;

  ObjectInformer& cronjobs_;
  runtime::EventRecorder& events_;
  RecentWrites written_;
};

}  // namespace respool::sandbox::sim
