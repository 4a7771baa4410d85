#pragma once
// Wires respool's controllers into a Manager: what they share (the catalog they read, the
// caches more than one reads, the domain metrics) and each controller's own registration
// (controller_setup.hpp).

#include <expected>
#include <memory>
#include <string>

#include "operator/runtime/manager.hpp"
#include "reconcilers/options.hpp"

namespace respool::reconcilers {

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
