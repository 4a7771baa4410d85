// Printers of node.k8s.io kinds (RuntimeClass).

#include "sandbox/apiserver/printers/printers.hpp"

namespace respool::sandbox::printers {

const PrinterDef runtime_class{{{"Handler", "string", ""}, {"Age", "string", kAgeDesc}},
                               [](const Json& o, runtime::TimePoint now) -> OJson {
                                 return {name_of(o), text(at(o, {"handler"})), age(o, now)};
                               }};

}  // namespace respool::sandbox::printers
