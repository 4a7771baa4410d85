// Printers of scheduling.k8s.io kinds (PriorityClass).

#include "sandbox/apiserver/printers/printers.hpp"

namespace respool::sandbox::printers {

const PrinterDef priority_class{
    {{"Value", "integer",
      "value represents the integer value of this priority class. This is "
      "the actual priority that pods receive when they have the name of this "
      "class in their pod spec."},
     {"Global-Default", "boolean",
      "globalDefault specifies whether this PriorityClass should be "
      "considered as the default priority for pods that do not "
      "have any priority class."},
     {"Age", "string", kAgeDesc},
     {"PreemptionPolicy", "string",
      "preemptionPolicy is the Policy for preempting pods with "
      "lower priority.",
      1}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      const Json& g = at(o, {"globalDefault"});
      return {name_of(o), number(at(o, {"value"})), g.is_boolean() && g.get<bool>(), age(o, now),
              text(at(o, {"preemptionPolicy"}))};
    }};

}  // namespace respool::sandbox::printers
