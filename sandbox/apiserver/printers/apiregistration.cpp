// Printers of apiregistration.k8s.io kinds (APIService).

#include "sandbox/apiserver/printers/printers.hpp"

namespace respool::sandbox::printers {

const PrinterDef api_service{
    {{"Service", "string", "The reference to the service that hosts this API endpoint."},
     {"Available", "string", "Whether this service is available."},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      const Json& svc = at(o, {"spec", "service"});
      std::string service = svc.is_object() ? text(at(svc, {"namespace"})) + std::string("/") +
                                                  text(at(svc, {"name"}))
                                            : "Local";
      std::string available = "Unknown";
      const Json& conds = at(o, {"status", "conditions"});
      if (conds.is_array()) {
        for (const Json& c : conds) {
          if (text(at(c, {"type"})) != "Available") continue;
          available = text(at(c, {"status"}));
          if (available != "True") available += std::string(" (") + text(at(c, {"reason"})) + ")";
        }
      }
      return {name_of(o), service, available, age(o, now)};
    }};

}  // namespace respool::sandbox::printers
