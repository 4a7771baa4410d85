#pragma once
// What a node's flavor promises, from the catalog (the operator's --catalog file, mounted into
// the agent too) and the node's flavor label.

#include <map>
#include <string>

#include "agent/checks/thresholds.hpp"
#include "reconcilers/policy/catalog.hpp"

namespace respool::agent {

Expectations expectations_for(const policy::Catalog& catalog,
                              const std::map<std::string, std::string>& node_labels);
// By the flavor's name (--flavor, for the one-shot mode without a node).
Expectations expectations_for_flavor(const policy::Catalog& catalog, const std::string& flavor);

}  // namespace respool::agent
