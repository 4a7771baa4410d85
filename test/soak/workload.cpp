#include "test/soak/workload.hpp"

#include <algorithm>
#include <cstdio>
#include <thread>

namespace respool::soak {

namespace {

using namespace std::chrono_literals;
const std::string kNetwork = "soak-net";
const std::string kJobNamespace = "soak";

std::string name_of(const Json& o) {
  return o.value("metadata", Json::object()).value("name", "");
}

std::string pool_label(const Json& node) {
  return node.value("metadata", Json::object())
      .value("labels", Json::object())
      .value("respool.io/pool", "");
}

bool has_accelerator(const Json& pool, const std::string& prefix) {
  for (const auto& r : pool["spec"].value("resources", Json::array()))
    if (r.value("flavor", "").starts_with(prefix)) return true;
  return false;
}

Json merge_annotation(const std::string& key, const Json& value) {
  return {{"metadata", {{"annotations", {{key, value}}}}}};
}

}  // namespace

Workload::Workload(kube::Client& client, Rng rng, int max_pools)
    : client_(client), rng_(std::move(rng)), max_pools_(max_pools) {}

void Workload::count(const std::string& what, bool ok) {
  (ok ? done_ : refused_)[what]++;
}

void Workload::prepare() {
  (void)client_.create(kube::resources::networks, "",
                       {{"apiVersion", "respool.io/v1alpha1"},
                        {"kind", "Network"},
                        {"metadata", {{"name", kNetwork}}},
                        {"spec", Json::object()}});
  (void)client_.create(
      kube::resources::namespaces, "",
      {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", kJobNamespace}}}});
}

void Workload::step(const Snapshot& now) {
  heal_due(false);
  int live = 0;
  for (const Json& p : now.pools)
    live += !p["metadata"].contains("deletionTimestamp");
  const std::vector<int> weights = {
      live < max_pools_ ? (live < 2 ? 8 : 3) : 0,  // create a pool
      live >= 3 ? 1 : 0,                           // delete one
      live ? 3 : 0,                                // resize
      live ? 3 : 0,                                // Replace
      live ? 2 : 0,                                // Reset
      live ? 1 : 0,                                // Delete a node
      live ? 2 : 0,                                // driver upgrade
      live ? 2 : 0,                                // training Job
      live ? 3 : 0,                                // node fault
  };
  switch (rng_.weighted(weights)) {
    case 0:
      return create_pool();
    case 1:
      return delete_pool(now);
    case 2:
      return resize(now);
    case 3:
      return node_operation(now, "Replace");
    case 4:
      return node_operation(now, "Reset");
    case 5:
      return node_operation(now, "Delete");
    case 6:
      return driver_upgrade(now);
    case 7:
      return training_job(now);
    default:
      return node_fault(now);
  }
}

void Workload::create_pool() {
  const std::string name = "soak-" + std::to_string(next_pool_++);
  Json resources = Json::array();
  const std::vector<std::string> flavors = {"gpu-8x-a100", "gpu-8x-h100", "npu-8x-910b", "cpu-64c"};
  const std::string first = rng_.pick(flavors);
  if (first == "gpu-8x-a100" && rng_.chance(0.4)) {
    resources.push_back({{"flavor", first},
                         {"zones",
                          {{{"zone", "az-1"}, {"count", rng_.between(1, 3)}},
                           {{"zone", "az-2"}, {"count", rng_.between(1, 3)}}}}});
  } else {
    // A100 pools up to 8 nodes: their daily budget (half of them, kShares) then lets several
    // replacements wait on N2 alone.
    resources.push_back(
        {{"flavor", first}, {"count", rng_.between(2, first == "gpu-8x-a100" ? 8 : 5)}});
  }
  if (first != "cpu-64c" && rng_.chance(0.3))
    resources.push_back({{"flavor", "cpu-64c"}, {"count", rng_.between(1, 2)}});
  Json spec = {{"network", kNetwork}, {"jobTypes", {"Training"}}, {"resources", resources}};
  Json upgrade = {{"mode", rng_.chance(0.5) ? "Secure" : "Force"}};
  const std::vector<Json> unavailable = {1, "25%", "50%", 2};
  upgrade["maxUnavailable"] = rng_.pick(unavailable);
  if (first.starts_with("gpu"))
    spec["driver"] = {{"gpuVersion", kDriverVersions[0]}, {"upgrade", upgrade}};
  if (first.starts_with("npu")) spec["driver"] = {{"npuVersion", "23.0.6"}, {"upgrade", upgrade}};
  if (rng_.chance(0.5)) {
    spec["remediation"] = {{"rules",
                            {{{"codes", {"A050101"}},
                              {"after", "30s"},
                              {"steps",
                               {{{"action", "Reset"}, {"os", "ubuntu-22.04"}, {"timeout", "2m"}},
                                {{"action", "Replace"}}}}}}},
                           {"maxUnhealthy", "50%"}};
  }
  auto made = client_.create(kube::resources::resourcepools, "",
                             {{"apiVersion", "respool.io/v1alpha1"},
                              {"kind", "ResourcePool"},
                              {"metadata", {{"name", name}}},
                              {"spec", spec}});
  count("create pool", made.has_value());
  if (made) created_.push_back(name);
}

const Json* Workload::some_pool(const Snapshot& s, bool running_only) {
  std::vector<const Json*> pools;
  for (const Json& p : s.pools) {
    if (p["metadata"].contains("deletionTimestamp")) continue;
    if (running_only && p.value("status", Json::object()).value("phase", "") != "Running") continue;
    pools.push_back(&p);
  }
  return pools.empty() ? nullptr : rng_.pick(pools);
}

std::vector<std::string> Workload::pool_nodes(const Snapshot& s, const std::string& pool) const {
  std::vector<std::string> out;
  for (const Json& n : s.nodes)
    if (pool_label(n) == pool) out.push_back(name_of(n));
  return out;
}

void Workload::delete_pool(const Snapshot& s) {
  const Json* pool = some_pool(s, false);
  if (!pool) return;
  count("delete pool",
        client_.remove(kube::resources::resourcepools, "", name_of(*pool)).has_value());
}

void Workload::resize(const Snapshot& s) {
  const Json* pool = some_pool(s, false);
  if (!pool) return;
  Json resources = (*pool)["spec"]["resources"];
  Json& r = resources[static_cast<std::size_t>(rng_.between(0, int(resources.size()) - 1))];
  Json& counted = r.contains("zones") ? r["zones"][0] : r;
  counted["count"] = std::clamp(counted.value("count", 1) + rng_.between(-2, 2), 1, 6);
  auto patched = client_.patch(kube::resources::resourcepools, "", name_of(*pool),
                               kube::PatchType::Merge, {{"spec", {{"resources", resources}}}});
  count("resize", patched.has_value());
}

void Workload::node_operation(const Snapshot& s, const std::string& type) {
  const Json* pool = some_pool(s, false);
  if (!pool) return;
  auto nodes = pool_nodes(s, name_of(*pool));
  if (nodes.empty()) return;
  std::vector<std::string> chosen;
  // Most Replaces and Resets name several nodes: one at a time (N2, N7) must then hold.
  const int want = type == "Delete" ? 1 : (rng_.chance(0.7) ? rng_.between(2, 3) : 1);
  for (int i = 0; i < want; ++i) {
    const std::string& n = rng_.pick(nodes);
    if (std::find(chosen.begin(), chosen.end(), n) == chosen.end()) chosen.push_back(n);
  }
  Json spec = {{"pool", name_of(*pool)}, {"type", type}, {"nodes", chosen}};
  if (type == "Reset") {
    for (const auto& n : chosen) {
      (void)client_.patch(kube::resources::nodes, "", n, kube::PatchType::Merge,
                          merge_annotation("sandbox.respool.io/reset-seconds", "2"));
    }
    const std::vector<Json> unavailable = {1, "50%", 2};
    spec["reset"] = {{"os", "ubuntu-22.04"}, {"maxUnavailable", rng_.pick(unavailable)}};
  }
  if (type == "Replace") spec["timeout"] = "2m";
  auto made =
      client_.create(kube::resources::nodeoperations, "",
                     {{"apiVersion", "respool.io/v1alpha1"},
                      {"kind", "NodeOperation"},
                      {"metadata", {{"name", "soak-op-" + std::to_string(next_operation_++)}}},
                      {"spec", spec}});
  count(type, made.has_value());
}

void Workload::driver_upgrade(const Snapshot& s) {
  std::vector<const Json*> gpu;
  for (const Json& p : s.pools)
    if (has_accelerator(p, "gpu") && !p["metadata"].contains("deletionTimestamp"))
      gpu.push_back(&p);
  if (gpu.empty()) return;
  const Json& pool = *rng_.pick(gpu);
  const std::string now = pool["spec"].value("driver", Json::object()).value("gpuVersion", "");
  const std::string next = now == kDriverVersions[0] ? kDriverVersions[1] : kDriverVersions[0];
  const std::string mode = rng_.chance(0.5) ? "Secure" : "Force";
  auto patched = client_.patch(
      kube::resources::resourcepools, "", name_of(pool), kube::PatchType::Merge,
      {{"spec", {{"driver", {{"gpuVersion", next}, {"upgrade", {{"mode", mode}}}}}}}});
  count("driver upgrade " + mode, patched.has_value());
}

void Workload::training_job(const Snapshot& s) {
  const Json* pool = some_pool(s, true);
  if (!pool) return;
  if (jobs_.size() >= 6) {
    (void)client_.remove(kube::resources::jobs, kJobNamespace, jobs_.front(),
                         kube::DeleteOptions{std::nullopt, std::nullopt, "Background", 0, false});
    jobs_.erase(jobs_.begin());
  }
  const bool hangs = rng_.chance(0.3);
  const int workers = rng_.between(1, 2);
  Json annotations = {{"fault-tolerance/job-retry-num", "3"}};
  Json template_annotations = {{"sandbox.respool.io/log-interval", "5"}};
  if (hangs) {
    annotations["fault-tolerance/hang-retry"] = "true";
    annotations["respool.io/hang-timeout"] = "1m";
    template_annotations["sandbox.respool.io/hang"] = "true";
  }
  const std::string name = "soak-job-" + std::to_string(next_job_++);
  Json pod = {
      {"restartPolicy", "OnFailure"},
      {"nodeSelector", {{"respool.io/pool", name_of(*pool)}}},
      {"tolerations", Json::array({{{"key", "respool.io/pool"}, {"operator", "Exists"}}})},
      {"containers", Json::array({{{"name", "train"}, {"image", "registry.example/trainer:1"}}})}};
  Json spec = {
      {"completionMode", "Indexed"},
      {"completions", workers},
      {"parallelism", workers},
      {"backoffLimit", 20},
      {"template", {{"metadata", {{"annotations", template_annotations}}}, {"spec", pod}}}};
  Json job = {
      {"apiVersion", "batch/v1"},
      {"kind", "Job"},
      {"metadata", {{"name", name}, {"namespace", kJobNamespace}, {"annotations", annotations}}},
      {"spec", spec}};
  auto made = client_.create(kube::resources::jobs, kJobNamespace, job);
  count(hangs ? "training job (hangs)" : "training job", made.has_value());
  if (made) jobs_.push_back(name);
}

void Workload::node_fault(const Snapshot& s) {
  const Json* pool = some_pool(s, false);
  if (!pool) return;
  auto nodes = pool_nodes(s, name_of(*pool));
  if (nodes.empty()) return;
  const std::string node = rng_.pick(nodes);
  const std::vector<std::string> faults = {"NotReady", "Isolate=A050101", "Unreachable"};
  const std::string fault = rng_.pick(faults);
  auto patched = client_.patch(kube::resources::nodes, "", node, kube::PatchType::Merge,
                               merge_annotation("sandbox.respool.io/fault", fault));
  count("node fault " + fault.substr(0, fault.find('=')), patched.has_value());
  if (patched)
    heals_.push_back(
        {node, std::chrono::steady_clock::now() + std::chrono::seconds(rng_.between(10, 45))});
}

void Workload::heal_due(bool all) {
  const auto now = std::chrono::steady_clock::now();
  std::erase_if(heals_, [&](const Heal& h) {
    if (!all && h.at > now) return false;
    auto healed = client_.patch(kube::resources::nodes, "", h.node, kube::PatchType::Merge,
                                merge_annotation("sandbox.respool.io/fault", nullptr));
    return healed.has_value() || healed.error().is(kube::Error::Kind::NotFound);
  });
}

void Workload::wind_down(const Snapshot& now) {
  for (int tries = 0; tries < 20 && !heals_.empty(); ++tries) {
    heal_due(true);
    if (!heals_.empty()) std::this_thread::sleep_for(500ms);
  }
  // Any fault annotation left (a heal that failed twice): removed too.
  for (const Json& n : now.nodes) {
    if (n["metadata"].value("annotations", Json::object()).contains("sandbox.respool.io/fault"))
      (void)client_.patch(kube::resources::nodes, "", name_of(n), kube::PatchType::Merge,
                          merge_annotation("sandbox.respool.io/fault", nullptr));
  }
  for (const auto& job : jobs_) {
    (void)client_.remove(kube::resources::jobs, kJobNamespace, job,
                         kube::DeleteOptions{std::nullopt, std::nullopt, "Background", 0, false});
  }
  jobs_.clear();
}

}  // namespace respool::soak
