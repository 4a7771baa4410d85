#pragma once
// A gauge or counter family whose series are exactly those set in the last round: a series not
// set again before sweep() is removed, so that a container that went away, a GPU no longer read
// or a node that changed pools leaves no stale value behind on /metrics.

#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "operator/runtime/metrics.hpp"

namespace respool::agent {

template <class Metric>
class Swept {
 public:
  explicit Swept(runtime::Family<Metric>& family) : family_(family) {}

  // A gauge takes the value; a counter is brought to it (a hardware counter read whole), and
  // one that went back (the device reset it) starts again from the new value, which is what
  // Prometheus' rate() reads as a reset.
  void set(std::vector<std::string> labels, double value) {
    if constexpr (std::is_same_v<Metric, runtime::Counter>) {
      auto counter = family_.with(labels);
      if (value < counter->value()) {
        family_.remove(labels);
        counter = family_.with(labels);
      }
      counter->inc(value - counter->value());
    } else {
      family_.with(labels)->set(value);
    }
    now_.insert(std::move(labels));
  }

  // Ends the round: removes what the last round set and this one did not.
  void sweep() {
    for (const auto& labels : last_) {
      if (!now_.contains(labels)) family_.remove(labels);
    }
    last_ = std::move(now_);
    now_.clear();
  }

 private:
  runtime::Family<Metric>& family_;
  std::set<std::vector<std::string>> last_, now_;
};

using SweptGauges = Swept<runtime::Gauge>;
using SweptCounters = Swept<runtime::Counter>;

}  // namespace respool::agent
