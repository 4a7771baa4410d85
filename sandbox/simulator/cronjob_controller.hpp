#pragma once
// The CronJob controller: carries out cronjob_plan.hpp for each CronJob when it or one of its
// Jobs changes, and at its next schedule time on the injected clock.

#include <expected>
#include <string>

#include "operator/runtime/controller.hpp"
#include "operator/runtime/event_recorder.hpp"
#include "sandbox/simulator/cluster.hpp"
#include "sandbox/simulator/recent_writes.hpp"

namespace respool::sandbox::sim {

class CronJobController {
 public:
  CronJobController(Cluster& cluster, ObjectInformer& cronjobs, runtime::EventRecorder& events);
  void start() { controller_.start(); }
  void stop() { controller_.stop(); }

 private:
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& key);

  Cluster& cluster_;
  ObjectInformer& cronjobs_;
  runtime::EventRecorder& events_;
  RecentWrites written_;
  runtime::Controller controller_;
};

}  // namespace respool::sandbox::sim
