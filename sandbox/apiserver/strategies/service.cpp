// Service defaults and allocations as kube-apiserver's Service storage makes them
// (pkg/apis/core/v1 SetDefaults_Service, pkg/registry/core/service/storage): cluster IPs from
// 10.96.0.0/16, node ports from 30000-32767 (unique within the Service here; across the cluster
// in node_ports.cpp), health check node ports, and on update the values a client
// left out carried over from the stored Service.

#include "sandbox/apiserver/strategies/service.hpp"

#include <map>
#include <random>
#include <set>

namespace respool::sandbox::kinds {
namespace {

std::mt19937& rng() {
  static thread_local std::mt19937 engine{std::random_device{}()};
  return engine;
}

std::string random_cluster_ip() {
  std::uniform_int_distribution<int> third(0, 255), fourth(2, 254);
  return "10.96." + std::to_string(third(rng())) + "." + std::to_string(fourth(rng()));
}

std::string type_of(const Json& spec) {
  return spec.is_object() && spec.contains("type") && spec["type"].is_string()
             ? spec["type"].get<std::string>()
             : "ClusterIP";
}

bool needs_cluster_ip(const Json& spec) {
  return type_of(spec) != "ExternalName";
}

bool needs_node_port(const Json& spec) {
  const std::string type = type_of(spec);
  if (type == "NodePort") return true;
  return type == "LoadBalancer" && spec.value("allocateLoadBalancerNodePorts", true) != false;
}

bool needs_health_check(const Json& spec) {
  return type_of(spec) == "LoadBalancer" &&
         spec.value("externalTrafficPolicy", std::string()) == "Local";
}

const Json& field(const Json& obj, const char* key) {
  static const Json kNull;
  return obj.is_object() && obj.contains(key) ? obj[key] : kNull;
}

bool unset(const Json& v) {
  return v.is_null() || v == "" || v == 0 || (v.is_array() && v.empty());
}

// SetDefaults_Service.
void defaults(Json& spec) {
  if (!spec.contains("type") || spec["type"] == "") spec["type"] = "ClusterIP";
  if (!spec.contains("sessionAffinity") || spec["sessionAffinity"] == "")
    spec["sessionAffinity"] = "None";
  if (spec["sessionAffinity"] == "ClientIP") {
    Json& config = spec["sessionAffinityConfig"];
    if (!config.is_object()) config = Json::object();
    if (!config["clientIP"].is_object()) config["clientIP"] = Json::object();
    set_default(config["clientIP"], "timeoutSeconds", 10800);
  }
  if (spec.contains("ports") && spec["ports"].is_array()) {
    for (Json& p : spec["ports"]) {
      if (!p.is_object()) continue;
      if (unset(field(p, "protocol"))) p["protocol"] = "TCP";
      if (unset(field(p, "targetPort")) && p.contains("port")) p["targetPort"] = p["port"];
    }
  }
  const std::string type = type_of(spec);
  if ((type == "NodePort" || type == "LoadBalancer") && unset(field(spec, "externalTrafficPolicy")))
    spec["externalTrafficPolicy"] = "Cluster";
  if (type != "ExternalName") set_default(spec, "internalTrafficPolicy", "Cluster");
  if (type == "LoadBalancer") set_default(spec, "allocateLoadBalancerNodePorts", true);
}

// A node port in 30000-32767 none of `taken` has.
int free_node_port(std::set<long long>& taken) {
  std::uniform_int_distribution<int> pick(30000, 32767);
  for (;;) {
    int port = pick(rng());
    if (taken.insert(port).second) return port;
  }
}

// Cluster IP, IP families and policy, node ports and the health check port a Service of its
// type needs and does not have.
void allocate(Json& spec) {
  if (needs_cluster_ip(spec)) {
    if (unset(field(spec, "clusterIP"))) {
      if (unset(field(spec, "clusterIPs"))) spec["clusterIP"] = random_cluster_ip();
    }
    if (!unset(field(spec, "clusterIP")) && unset(field(spec, "clusterIPs")))
      spec["clusterIPs"] = Json::array({spec["clusterIP"]});
    const bool v6 = spec.value("clusterIP", std::string()).find(':') != std::string::npos;
    set_default(spec, "ipFamilies", Json::array({v6 ? "IPv6" : "IPv4"}));
    set_default(spec, "ipFamilyPolicy", "SingleStack");
  }
  if (needs_node_port(spec) && spec.contains("ports") && spec["ports"].is_array()) {
    std::set<long long> taken;
    for (const Json& p : spec["ports"]) {
      if (p.is_object() && field(p, "nodePort").is_number_integer())
        taken.insert(p["nodePort"].get<long long>());
    }
    for (Json& p : spec["ports"]) {
      if (p.is_object() && unset(field(p, "nodePort"))) p["nodePort"] = free_node_port(taken);
    }
  }
  if (needs_health_check(spec) && unset(field(spec, "healthCheckNodePort"))) {
    std::set<long long> taken;
    spec["healthCheckNodePort"] = free_node_port(taken);
  }
}

// The strategy's dropTypeDependentFields: what the old type needed and the new one does not is
// dropped when the client left it as it was.
void drop_type_dependent(Json& spec, const Json& before) {
  if (needs_cluster_ip(before) && !needs_cluster_ip(spec)) {
    if (field(spec, "clusterIPs") == field(before, "clusterIPs")) {
      spec.erase("clusterIP");
      spec.erase("clusterIPs");
    }
    if (field(spec, "ipFamilies") == field(before, "ipFamilies")) spec.erase("ipFamilies");
    if (field(spec, "ipFamilyPolicy") == field(before, "ipFamilyPolicy"))
      spec.erase("ipFamilyPolicy");
  }
  if (needs_node_port(before) && !needs_node_port(spec) && spec.contains("ports") &&
      spec["ports"].is_array() && field(before, "ports").is_array()) {
    bool same = spec["ports"].size() == before["ports"].size();
    for (std::size_t i = 0; same && i < spec["ports"].size(); ++i)
      same = field(spec["ports"][i], "nodePort") == field(before["ports"][i], "nodePort");
    if (same) {
      for (Json& p : spec["ports"])
        if (p.is_object()) p.erase("nodePort");
    }
  }
  if (needs_health_check(before) && !needs_health_check(spec) &&
      field(spec, "healthCheckNodePort") == field(before, "healthCheckNodePort")) {
    spec.erase("healthCheckNodePort");
  }
  if (type_of(before) == "LoadBalancer" && type_of(spec) != "LoadBalancer") {
    if (field(spec, "allocateLoadBalancerNodePorts") ==
        field(before, "allocateLoadBalancerNodePorts"))
      spec.erase("allocateLoadBalancerNodePorts");
    if (field(spec, "loadBalancerClass") == field(before, "loadBalancerClass"))
      spec.erase("loadBalancerClass");
  }
  const std::string type = type_of(spec);
  const std::string was = type_of(before);
  if ((was == "NodePort" || was == "LoadBalancer") && type != "NodePort" &&
      type != "LoadBalancer" &&
      field(spec, "externalTrafficPolicy") == field(before, "externalTrafficPolicy")) {
    spec.erase("externalTrafficPolicy");
  }
}

// patchAllocatedValues and normalizeClusterIPs: what a client left out comes from the stored
// Service, a changed clusterIP takes clusterIPs along.
void carry_over(Json& spec, const Json& before) {
  if (needs_cluster_ip(before) && needs_cluster_ip(spec)) {
    if (unset(field(spec, "clusterIP")) && !unset(field(before, "clusterIP")))
      spec["clusterIP"] = before["clusterIP"];
    if (unset(field(spec, "clusterIPs")) && !unset(field(before, "clusterIPs")))
      spec["clusterIPs"] = before["clusterIPs"];
  }
  if (needs_node_port(before) && needs_node_port(spec) && spec.contains("ports") &&
      spec["ports"].is_array() && field(before, "ports").is_array()) {
    std::map<std::string, Json> by_name;
    for (const Json& p : before["ports"])
      if (p.is_object()) by_name[p.value("name", std::string())] = field(p, "nodePort");
    std::set<Json> used;
    for (const Json& p : spec["ports"])
      if (p.is_object() && !unset(field(p, "nodePort"))) used.insert(p["nodePort"]);
    for (Json& p : spec["ports"]) {
      if (!p.is_object() || !unset(field(p, "nodePort"))) continue;
      const Json& was = by_name[p.value("name", std::string())];
      if (!unset(was) && !used.contains(was)) p["nodePort"] = was;
    }
  }
  if (needs_health_check(before) && needs_health_check(spec) &&
      unset(field(spec, "healthCheckNodePort")))
    spec["healthCheckNodePort"] = field(before, "healthCheckNodePort");
  const Json& ip = field(spec, "clusterIP");
  const Json& old_ip = field(before, "clusterIP");
  if (ip != old_ip && field(spec, "clusterIPs") == field(before, "clusterIPs")) {
    if (unset(ip)) {
      spec.erase("clusterIPs");
    } else {
      spec["clusterIPs"] = Json::array({ip});
    }
  }
}

}  // namespace

void prepare_service_create(Json& service) {
  Json& spec = service["spec"];
  if (!spec.is_object()) spec = Json::object();
  defaults(spec);
  allocate(spec);
  service["status"] = {{"loadBalancer", Json::object()}};
}

void prepare_service_update(Json& service, const Json& old) {
  Json& spec = service["spec"];
  if (!spec.is_object()) spec = Json::object();
  const Json& before = field(old, "spec");
  defaults(spec);
  drop_type_dependent(spec, before);
  carry_over(spec, before);
  allocate(spec);
  if (type_of(spec) != "LoadBalancer" && service.contains("status") &&
      service["status"].is_object())
    service["status"]["loadBalancer"] = Json::object();
}

}  // namespace respool::sandbox::kinds
