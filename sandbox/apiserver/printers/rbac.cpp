// Printers of rbac.authorization.k8s.io kinds (the bindings; roles print Name and Created At).

#include "sandbox/apiserver/printers/printers.hpp"

namespace respool::sandbox::printers {
namespace {

OJson rbac_binding_row(const Json& o, runtime::TimePoint now) {
  std::vector<std::string> users, groups, sas;
  const Json& subjects = at(o, {"subjects"});
  if (subjects.is_array()) {
    for (const Json& s : subjects) {
      std::string kind = text(at(s, {"kind"}));
      if (kind == "User") users.push_back(text(at(s, {"name"})));
      if (kind == "Group") groups.push_back(text(at(s, {"name"})));
      if (kind == "ServiceAccount") {
        sas.push_back(text(at(s, {"namespace"})) + std::string("/") + text(at(s, {"name"})));
      }
    }
  }
  return {name_of(o),
          text(at(o, {"roleRef", "kind"})) + std::string("/") + text(at(o, {"roleRef", "name"})),
          age(o, now),
          join(users, ", "),
          join(groups, ", "),
          join(sas, ", ")};
}

std::vector<PrinterColumnDef> rbac_binding_columns(const std::string& what) {
  return {{"Role", "string",
           "RoleRef can reference a Role in the current namespace or a "
           "ClusterRole in the global namespace. If the RoleRef cannot be "
           "resolved, the Authorizer must return an error. This field is "
           "immutable."},
          {"Age", "string", kAgeDesc},
          {"Users", "string", "Users in the " + what, 1},
          {"Groups", "string", "Groups in the " + what, 1},
          {"ServiceAccounts", "string", "ServiceAccounts in the " + what, 1}};
}

}  // namespace

const PrinterDef cluster_role_binding{rbac_binding_columns("clusterRoleBinding"), rbac_binding_row};
const PrinterDef role_binding{rbac_binding_columns("roleBinding"), rbac_binding_row};

}  // namespace respool::sandbox::printers
