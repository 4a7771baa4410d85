// Printers of admissionregistration.k8s.io kinds.

#include "sandbox/apiserver/printers/printers.hpp"

namespace respool::sandbox::printers {
namespace {

std::string vap_param_ref(const Json& o) {
  const Json& pr = at(o, {"spec", "paramRef"});
  if (!pr.is_object()) return "<unset>";
  std::string n = text(at(pr, {"name"}));
  if (!n.empty()) {
    std::string ns = text(at(pr, {"namespace"}));
    return (ns.empty() ? "*" : ns) + "/" + n;
  }
  if (!at(pr, {"selector"}).is_null()) return format_selector(at(pr, {"selector"}));
  return "<unset>";
}

}  // namespace

const PrinterDef webhook_configuration{
    {{"Webhooks", "integer",
      "Webhooks indicates the number of webhooks registered in this configuration"},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      const Json& w = at(o, {"webhooks"});
      return {name_of(o), w.is_array() ? w.size() : 0, age(o, now)};
    }};

const PrinterDef validating_admission_policy{
    {{"Validations", "integer",
      "Validations indicates the number of validation rules defined in this configuration"},
     {"ParamKind", "string",
      "ParamKind specifies the kind of resources used to parameterize this policy"},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      const Json& v = at(o, {"spec", "validations"});
      const Json& pk = at(o, {"spec", "paramKind"});
      std::string kind =
          pk.is_object() ? text(at(pk, {"apiVersion"})) + std::string("/") + text(at(pk, {"kind"}))
                         : "<unset>";
      return {name_of(o), v.is_array() ? v.size() : 0, kind, age(o, now)};
    }};

const PrinterDef validating_admission_policy_binding{
    {{"PolicyName", "string",
      "PolicyName indicates the policy definition which the policy binding binded to"},
     {"ParamRef", "string",
      "ParamRef indicates the param resource which sets the configration param"},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      return {name_of(o), text(at(o, {"spec", "policyName"})), vap_param_ref(o), age(o, now)};
    }};

}  // namespace respool::sandbox::printers
