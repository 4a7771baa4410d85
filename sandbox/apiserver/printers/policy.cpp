// Printers of policy/v1 kinds (PodDisruptionBudget).

#include "sandbox/apiserver/printers/printers.hpp"

namespace respool::sandbox::printers {

const PrinterDef pod_disruption_budget{
    {{"Min Available", "string", "The minimum number of pods that must be available."},
     {"Max Unavailable", "string", "The maximum number of pods that may be unavailable."},
     {"Allowed Disruptions", "integer",
      "Calculated number of pods that may be disrupted at this time."},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      return {name_of(o), int_or_string(at(o, {"spec", "minAvailable"})),
              int_or_string(at(o, {"spec", "maxUnavailable"})),
              number(at(o, {"status", "disruptionsAllowed"})), age(o, now)};
    }};

}  // namespace respool::sandbox::printers
