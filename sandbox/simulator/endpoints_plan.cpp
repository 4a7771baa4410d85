#include "sandbox/simulator/endpoints_plan.hpp"

#include <algorithm>
#include <map>

#include "apimachinery/time.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/workload_util.hpp"

namespace respool::sandbox::sim {
namespace {

using Json = nlohmann::json;

constexpr std::size_t kMaxEndpointsPerSlice = 100;

bool headless(const Json& service) {
  return string_at(service, {"spec", "clusterIP"}) == "None";
}

bool publish_not_ready(const Json& service) {
  const Json& v = at_path(service, {"spec", "publishNotReadyAddresses"});
  return v.is_boolean() && v.get<bool>();
}

// The pods the service selects that may appear (ShouldPodBeInEndpoints).
std::vector<const Json*> selected(const Json& service, const std::vector<const Json*>& pods,
                                  bool include_terminating) {
  std::vector<const Json*> out;
  const kube::LabelSelector selector = map_selector(at_path(service, {"spec", "selector"}));
  for (const Json* p : pods) {
    if (namespace_of(*p) != namespace_of(service)) continue;
    const Json& labels = at_path(*p, {"metadata", "labels"});
    if (!selector.matches(labels.is_object() ? labels : Json::object())) continue;
    if (pod_terminal(*p) || string_at(*p, {"status", "podIP"}).empty()) continue;
    if (!include_terminating && marked_for_deletion(*p)) continue;
    out.push_back(p);
  }
  std::sort(out.begin(), out.end(), [](const Json* a, const Json* b) {
    return string_at(*a, {"status", "podIP"}) < string_at(*b, {"status", "podIP"});
  });
  return out;
}

// podutil.FindPort: the container port a service port reaches on this pod, or -1.
int find_port(const Json& pod, const Json& service_port) {
  const Json& target = service_port.contains("targetPort") ? service_port["targetPort"]
                                                           : service_port.value("port", Json());
  if (target.is_number_integer()) return target.get<int>();
  if (!target.is_string()) return -1;
  const std::string name = target.get<std::string>();
  const std::string protocol = service_port.value("protocol", "TCP");
  for (const char* list : {"containers", "initContainers"}) {
    const Json& containers = at_path(pod, {"spec", list});
    if (!containers.is_array()) continue;
    for (const auto& c : containers) {
      if (std::string_view(list) == "initContainers" && c.value("restartPolicy", "") != "Always")
        continue;  // only sidecars serve
      const Json& ports = c.value("ports", Json::array());
      if (!ports.is_array()) continue;
      for (const auto& p : ports)
        if (p.value("name", "") == name && p.value("protocol", "TCP") == protocol)
          return p.value("containerPort", -1);
    }
  }
  return -1;
}

// The pod's ports for the service, sorted by name: the key that groups pods.
Json resolved_ports(const Json& service, const Json& pod, bool slice_style) {
  Json out = Json::array();
  const Json& ports = at_path(service, {"spec", "ports"});
  if (!ports.is_array()) return out;
  for (const auto& sp : ports) {
    const int number = find_port(pod, sp);
    if (number < 0) continue;
    Json port = {{"port", number}, {"protocol", sp.value("protocol", "TCP")}};
    if (slice_style || !sp.value("name", "").empty()) port["name"] = sp.value("name", "");
    if (sp.contains("appProtocol")) port["appProtocol"] = sp["appProtocol"];
    out.push_back(port);
  }
  std::sort(out.begin(), out.end(),
            [](const Json& a, const Json& b) { return a.value("name", "") < b.value("name", ""); });
  return out;
}

Json target_ref(const Json& pod) {
  return {{"kind", "Pod"},
          {"namespace", namespace_of(pod)},
          {"name", name_of(pod)},
          {"uid", uid_of(pod)}};
}

bool sets_hostname(const Json& pod, const Json& service) {
  return !string_at(pod, {"spec", "hostname"}).empty() &&
         string_at(pod, {"spec", "subdomain"}) == name_of(service);
}

}  // namespace

Json endpoints_subsets(const Json& service, const std::vector<const Json*>& pods) {
  const bool publish = publish_not_ready(service);
  const Json& service_ports = at_path(service, {"spec", "ports"});
  const bool portless = !service_ports.is_array() || service_ports.empty();
  std::map<std::string, Json> by_ports;  // ports (dumped) → subset
  for (const Json* p : selected(service, pods, publish)) {
    if (portless && !headless(service)) continue;
    Json ports = portless ? Json::array() : resolved_ports(service, *p, false);
    if (!portless && ports.empty()) continue;
    Json address = {{"ip", string_at(*p, {"status", "podIP"})}, {"targetRef", target_ref(*p)}};
    const std::string node = string_at(*p, {"spec", "nodeName"});
    if (!node.empty()) address["nodeName"] = node;
    if (sets_hostname(*p, service)) address["hostname"] = string_at(*p, {"spec", "hostname"});
    Json& subset = by_ports[ports.dump()];
    if (!ports.empty()) subset["ports"] = ports;
    subset[publish || pod_is_ready(*p) ? "addresses" : "notReadyAddresses"].push_back(address);
  }
  Json subsets = Json::array();
  for (auto& [key, subset] : by_ports)
    subsets.push_back(std::move(subset));
  std::sort(subsets.begin(), subsets.end(), [](const Json& a, const Json& b) {
    auto first_ip = [](const Json& s) {
      for (const char* list : {"addresses", "notReadyAddresses"})
        if (s.contains(list)) return s[list][0].value("ip", "");
      return std::string();
    };
    return first_ip(a) < first_ip(b);
  });
  return subsets;
}

std::vector<SliceContent> endpoint_slices(
    const Json& service, const std::vector<const Json*>& pods,
    const std::function<std::string(const std::string& node)>& zone_of) {
  const bool publish = publish_not_ready(service);
  std::map<std::string, std::pair<Json, Json>> by_ports;  // ports (dumped) → ports, endpoints
  for (const Json* p : selected(service, pods, true)) {
    Json ports = resolved_ports(service, *p, true);
    const bool terminating = marked_for_deletion(*p);
    const bool ready = pod_is_ready(*p);
    Json endpoint = {{"addresses", Json::array({string_at(*p, {"status", "podIP"})})},
                     {"conditions",
                      {{"ready", publish || (ready && !terminating)},
                       {"serving", ready},
                       {"terminating", terminating}}}};
    if (sets_hostname(*p, service)) endpoint["hostname"] = string_at(*p, {"spec", "hostname"});
    endpoint["targetRef"] = target_ref(*p);
    const std::string node = string_at(*p, {"spec", "nodeName"});
    if (!node.empty()) {
      endpoint["nodeName"] = node;
      const std::string zone = zone_of(node);
      if (!zone.empty()) endpoint["zone"] = zone;
    }
    auto& group = by_ports[ports.dump()];
    group.first = ports;
    group.second.push_back(std::move(endpoint));
  }
  std::vector<SliceContent> out;
  for (auto& [key, group] : by_ports) {
    const Json& endpoints = group.second;
    for (std::size_t i = 0; i < endpoints.size(); i += kMaxEndpointsPerSlice) {
      const auto end = std::min(endpoints.size(), i + kMaxEndpointsPerSlice);
      Json chunk(endpoints.begin() + static_cast<std::ptrdiff_t>(i),
                 endpoints.begin() + static_cast<std::ptrdiff_t>(end));
      out.push_back({group.first.empty() ? Json(nullptr) : group.first, chunk});
    }
  }
  if (out.empty()) out.push_back({nullptr, nullptr});
  return out;
}

Json endpoints_labels(const Json& service) {
  Json labels = at_path(service, {"metadata", "labels"});
  if (!labels.is_object()) labels = Json::object();
  if (headless(service)) labels["service.kubernetes.io/headless"] = "";
  return labels;
}

Json endpoint_slice_labels(const Json& service) {
  Json labels = endpoints_labels(service);
  labels[kServiceNameLabel] = name_of(service);
  labels[kManagedByLabel] = kEndpointSliceController;
  return labels;
}

std::string last_change_trigger_time(const Json& service, const std::vector<const Json*>& pods) {
  std::optional<TimePoint> latest = time_at(service, {"metadata", "creationTimestamp"});
  for (const Json* p : selected(service, pods, true)) {
    std::optional<TimePoint> t = time_at(*p, {"metadata", "creationTimestamp"});
    if (const Json* ready = find_condition(*p, "Ready"))
      if (auto since = time_at(*ready, {"lastTransitionTime"}); since && (!t || *since > *t))
        t = since;
    if (t && (!latest || *t > *latest)) latest = t;
  }
  return latest ? apimachinery::format_time(*latest) : std::string();
}

}  // namespace respool::sandbox::sim
