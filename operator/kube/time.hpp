#pragma once
// metav1.Time is apimachinery's (apimachinery/time.hpp). This header only keeps the names
// agent/ still includes under respool::kube; new code includes apimachinery/time.hpp.

#include "apimachinery/time.hpp"

namespace respool::kube {

using apimachinery::format_micro_time;
using apimachinery::format_time;
using apimachinery::parse_time;
using apimachinery::TimePoint;

}  // namespace respool::kube
