#pragma once
// `--print-readings`: one JSON document per period with every reading and the findings derived
// from it, for an operator at a node (and for a first run on real hardware).

#include <ostream>

#include "agent/checker.hpp"

namespace respool::agent {

void print_period(std::ostream& out, const PeriodResult& period, const Expectations& expect);

}  // namespace respool::agent
