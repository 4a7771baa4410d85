// Printers of coordination.k8s.io kinds (Lease).

#include "sandbox/apiserver/printers/printers.hpp"

namespace respool::sandbox::printers {

const PrinterDef lease{
    {{"Holder", "string", "HolderIdentity contains the identity of the holder of a current lease."},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      return {name_of(o), text(at(o, {"spec", "holderIdentity"})), age(o, now)};
    }};

}  // namespace respool::sandbox::printers
