#include "cmd/kubectl-respool/view/nodes_view.hpp"

#include "cmd/kubectl-respool/view/object_read.hpp"
#include "reconcilers/policy/node_state.hpp"
#include "reconcilers/policy/node_view.hpp"

namespace respool::kubectl {
namespace {

using namespace read;

std::string operation_phase(const Json& operations, const std::string& op,
                            const std::string& node) {
  for (const Json& o : items(operations)) {
    if (str(o, {"metadata", "name"}) != op) continue;
    const Json& per_node = at(o, {"status", "nodes"});
    if (per_node.is_array())
      for (const Json& n : per_node)
        if (str(n, {"name"}) == node) return str(n, {"phase"});
    return str(o, {"status", "phase"});
  }
  return "";
}

}  // namespace

NodeInfo node_state(const Json& node) {
  // No catalog here: the accelerator-count check (F5) is the operator's, the taints are not.
  auto c = policy::classify_node(policy::node_view_from_json(node), nullptr);
  return {std::string(policy::to_string(c.state)), c.codes};
}

Table nodes_table(const Json& nodes, const Json& operations, bool wide, Clock::time_point now) {
  Table t{{"NAME", "STATE", "CODES", "UPGRADE", "OPERATION", "AGE"}, {}};
  if (wide)
    t.headers.insert(t.headers.end() - 1,
                     {"OPERATION-PHASE", "DRIVER", "INSTANCE-TYPE", "ZONE", "REPLACEMENT-FOR"});
  for (const Json& node : items(nodes)) {
    NodeInfo info = node_state(node);
    std::string name = str(node, {"metadata", "name"});
    std::string op = str(node, {"metadata", "annotations", "respool.io/node-operation"});
    std::string op_type = str(node, {"metadata", "annotations", "respool.io/node-operation-type"});
    std::vector<std::string> row{
        name, info.state, join(info.codes),
        str(node, {"metadata", "labels", "respool.io/driver-upgrade-state"}),
        op.empty() ? "" : (op_type.empty() ? op : op_type + "/" + op)};
    if (wide)
      row.insert(row.end(), {op.empty() ? "" : operation_phase(operations, op, name),
                             str(node, {"metadata", "labels", "respool.io/driver-version"}),
                             str(node, {"metadata", "labels", "node.kubernetes.io/instance-type"}),
                             str(node, {"metadata", "labels", "topology.kubernetes.io/zone"}),
                             str(node, {"metadata", "annotations", "respool.io/replacement-for"})});
    row.push_back(age_since(at(node, {"metadata", "creationTimestamp"}), now));
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace respool::kubectl
