// Printers of flowcontrol.apiserver.k8s.io kinds.

#include "sandbox/apiserver/printers/printers.hpp"

namespace respool::sandbox::printers {
namespace {

OJson int_or_none(const Json& v) {
  return v.is_number_integer() ? OJson(v.get<long long>()) : OJson("<none>");
}

}  // namespace

const PrinterDef flow_schema{
    {{"PriorityLevel", "string",
      "`name` is the name of the priority level configuration being "
      "referenced Required."},
     {"MatchingPrecedence", "string",
      "`matchingPrecedence` is used to choose among the "
      "FlowSchemas that match a given request."},
     {"DistinguisherMethod", "string",
      "`distinguisherMethod` defines how to compute the flow "
      "distinguisher for requests that match this schema."},
     {"Age", "string", kAgeDesc},
     {"MissingPL", "string", "references a broken or non-existent PriorityLevelConfiguration"}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      std::string dangling = "?";
      const Json& conds = at(o, {"status", "conditions"});
      if (conds.is_array()) {
        for (const Json& c : conds) {
          if (text(at(c, {"type"})) == "Dangling") {
            dangling = text(at(c, {"status"}));
            break;
          }
        }
      }
      return {name_of(o),
              text(at(o, {"spec", "priorityLevelConfiguration", "name"})),
              number(at(o, {"spec", "matchingPrecedence"})),
              text(at(o, {"spec", "distinguisherMethod", "type"}), "<none>"),
              age(o, now),
              dangling};
    }};

const PrinterDef priority_level_configuration{
    {{"Type", "string",
      "`type` indicates whether this priority level is subject to limitation "
      "on request execution."},
     {"NominalConcurrencyShares", "string",
      "`nominalConcurrencyShares` (NCS) contributes to "
      "the computation of the NominalConcurrencyLimit."},
     {"Queues", "string", "`queues` is the number of queues for this priority level."},
     {"HandSize", "string",
      "`handSize` is a small positive number that configures the shuffle "
      "sharding of requests into queues."},
     {"QueueLengthLimit", "string",
      "`queueLengthLimit` is the maximum number of requests "
      "allowed to be waiting in a given queue of this priority "
      "level at a time."},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      const Json& limited = at(o, {"spec", "limited"});
      const Json& q = at(limited, {"limitResponse", "queuing"});
      return {name_of(o),
              text(at(o, {"spec", "type"})),
              int_or_none(at(limited, {"nominalConcurrencyShares"})),
              int_or_none(at(q, {"queues"})),
              int_or_none(at(q, {"handSize"})),
              int_or_none(at(q, {"queueLengthLimit"})),
              age(o, now)};
    }};

}  // namespace respool::sandbox::printers
