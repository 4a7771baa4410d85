// Printers of networking.k8s.io kinds.

#include <set>

#include "sandbox/apiserver/printers/printers.hpp"

namespace respool::sandbox::printers {
namespace {

std::string ing_hosts(const Json& o) {
  const Json& rules = at(o, {"spec", "rules"});
  std::vector<std::string> list;
  std::size_t max = 3;
  bool more = false;
  if (rules.is_array()) {
    for (const Json& r : rules) {
      if (list.size() == max) more = true;
      if (!more && !text(at(r, {"host"})).empty()) list.push_back(text(at(r, {"host"})));
    }
  }
  if (list.empty()) return "*";
  std::string out = join(list, ",");
  if (more) out += std::string(" + ") + std::to_string(rules.size() - max) + " more...";
  return out;
}

std::string ing_address(const Json& o) {
  std::set<std::string> seen;
  const Json& ing = at(o, {"status", "loadBalancer", "ingress"});
  if (ing.is_array()) {
    for (const Json& i : ing) {
      std::string v = text(at(i, {"ip"}), text(at(i, {"hostname"})));
      if (!v.empty()) seen.insert(v);
    }
  }
  return join({seen.begin(), seen.end()}, ",");
}

}  // namespace

const PrinterDef ingress_class{
    {{"Controller", "string", "Controller that is responsible for handling this class"},
     {"Parameters", "string", "A reference to a resource with additional parameters"},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      std::string params = "<none>";
      const Json& p = at(o, {"spec", "parameters"});
      if (p.is_object()) {
        params = text(at(p, {"kind"}));
        if (at(p, {"apiGroup"}).is_string()) params += std::string(".") + text(at(p, {"apiGroup"}));
        params += std::string("/") + text(at(p, {"name"}));
      }
      return {name_of(o), text(at(o, {"spec", "controller"})), params, age(o, now)};
    }};

const PrinterDef ingress{
    {{"Class", "string",
      "The name of the IngressClass resource that should be used for additional configuration"},
     {"Hosts", "string",
      "Hosts that incoming requests are matched against before the ingress rule"},
     {"Address", "string", "Address is a list containing ingress points for the load-balancer"},
     {"Ports", "string", "Ports of TLS configurations that open"},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      const Json& tls = at(o, {"spec", "tls"});
      return {name_of(o),     text(at(o, {"spec", "ingressClassName"}), "<none>"), ing_hosts(o),
              ing_address(o), tls.is_array() && !tls.empty() ? "80, 443" : "80",   age(o, now)};
    }};

const PrinterDef network_policy{
    {{"Pod-Selector", "string",
      "Selects the pods to which this NetworkPolicy object applies. The array of ingress rules "
      "is applied to any pods selected by this field. Multiple network policies can select the "
      "same set of pods. In this case, the ingress rules for each are combined additively. This "
      "field is NOT optional and follows standard label selector semantics. An empty "
      "podSelector matches all pods in this namespace."},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      return {name_of(o), format_selector(at(o, {"spec", "podSelector"})), age(o, now)};
    }};

}  // namespace respool::sandbox::printers
