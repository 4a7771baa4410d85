#pragma once
// Wires respool's controllers into a Manager: the informers they share, the Network and
// ResourcePool controllers, the catalog they read, and the domain metrics.

#include <expected>
#include <filesystem>
#include <memory>
#include <string>

#include "operator/runtime/manager.hpp"

namespace respool::reconcilers {

struct Options {
  std::filesystem::path catalog_file;  // --catalog
  std::string operator_namespace;      // where plug-ins without a namespace go
  std::string job_selector;            // label selector of pods that count as jobs ("" = all)
  int workers = 2;                     // per controller
  bool training_jobs = true;           // the training-job controller (--training-jobs)
};

// Owns what the controllers share; lives as long as the manager runs.
class Operator {
 public:
  virtual ~Operator() = default;
};

// Registers informers and controllers in `manager`. Fails with a message naming the flag or the
// catalog field when the configuration is unusable.
std::expected<std::unique_ptr<Operator>, std::string> setup(runtime::Manager& manager,
                                                            const Options& options);

}  // namespace respool::reconcilers
