#pragma once
// What the training-job tests against the sandbox share: a Running GPU pool, an Indexed Job of
// workers (one per node) with the fault-tolerance annotations, and readings of the Job's ledger,
// running records and pods.
#include <map>
#include <set>
#include <string>

#include "test/reconcilers/harness.hpp"

namespace respool::test::training {

using namespace std::chrono_literals;

inline std::string gpu_nodes(int count) {
  return "nodes:\n- {flavor: gpu-8x-a100, zone: az-1, count: " + std::to_string(count) +
         ", namePrefix: g, capacity: {cpu: \"96\", memory: 1Ti, pods: \"110\", "
         "nvidia.com/gpu: \"8\"}}\n";
}

inline void gpu_pool(Harness& h, const std::string& name, int count) {
  h.apply(network_manifest("net-" + name), kube::resources::networks);
  h.apply(pool_manifest(name, "net-" + name,
                        Json::array({{{"flavor", "gpu-8x-a100"}, {"count", count}}})),
          kube::resources::resourcepools);
  REQUIRE(h.eventually(
      [&] { return h.phase(name) == "Running" && h.pool_nodes(name).size() == std::size_t(count); },
      std::chrono::seconds(120)));
}

// An Indexed Job of `workers` workers in `pool`, each taking a whole 8-GPU node, logging every
// 10 simulated seconds and running until stopped.
inline Json training_job(const std::string& name, const std::string& pool, int workers,
                         const std::map<std::string, std::string>& annotations,
                         const std::string& restart_policy = "OnFailure") {
  Json gpus = {{"nvidia.com/gpu", "8"}};
  return {
      {"apiVersion", "batch/v1"},
      {"kind", "Job"},
      {"metadata", {{"name", name}, {"namespace", "default"}, {"annotations", annotations}}},
      {"spec",
       {{"completionMode", "Indexed"},
        {"completions", workers},
        {"parallelism", workers},
        {"backoffLimit", 100},
        {"template",
         {{"metadata", {{"annotations", {{"sandbox.respool.io/log-interval", "10"}}}}},
          {"spec",
           {{"restartPolicy", restart_policy},
            {"nodeSelector", {{"respool.io/pool", pool}}},
            {"tolerations", Json::array({{{"key", "respool.io/pool"}, {"operator", "Exists"}}})},
            {"containers",
             Json::array({{{"name", "train"},
                           {"image", "trainer:1"},
                           {"resources", {{"requests", gpus}, {"limits", gpus}}}}})}}}}}}}};
}

inline Json job(Harness& h, const std::string& name) {
  return h.get(kube::resources::jobs, name, "default");
}

inline std::string annotation(const Json& object, const std::string& key) {
  return object["metadata"].value("annotations", Json::object()).value(key, "");
}

// The Job's ledger (respool.io/fault-tolerance) and running records, parsed.
inline Json ledger(const Json& job) {
  return Json::parse(annotation(job, "respool.io/fault-tolerance"), nullptr, false);
}
inline Json records(const Json& job) {
  return Json::parse(annotation(job, "respool.io/running-records"), nullptr, false);
}
// The Job's risk level (respool.io/risk, O1-O6), "" without the label.
inline std::string risk(const Json& job) {
  return job["metadata"].value("labels", Json::object()).value("respool.io/risk", "");
}

inline std::vector<Json> job_pods(Harness& h, const std::string& job_name) {
  kube::ListOptions o;
  o.label_selector = "batch.kubernetes.io/job-name=" + job_name;
  auto list = h.client().list(kube::resources::pods, "default", o);
  REQUIRE(list);
  return (*list)["items"].get<std::vector<Json>>();
}

inline std::string run_of(const Json& pod) {
  return pod["metadata"].value("labels", Json::object()).value("respool.io/run", "0");
}

// Pods of run `run` that are Running and not being deleted.
inline std::vector<Json> running_pods(Harness& h, const std::string& job_name,
                                      const std::string& run) {
  std::vector<Json> out;
  for (auto& p : job_pods(h, job_name)) {
    if (run_of(p) == run && p["status"].value("phase", "") == "Running" &&
        !p["metadata"].contains("deletionTimestamp"))
      out.push_back(p);
  }
  return out;
}

inline void annotate(Harness& h, const kube::Resource& r, const std::string& ns,
                     const std::string& name, const Json& annotations) {
  auto patched = h.client().patch(r, ns, name, kube::PatchType::Merge,
                                  Json{{"metadata", {{"annotations", annotations}}}});
  INFO((patched ? std::string() : patched.error().describe()));
  REQUIRE(patched);
}

inline int restart_count(const Json& pod) {
  int n = 0;
  for (const auto& c : pod["status"].value("containerStatuses", Json::array()))
    n += c.value("restartCount", 0);
  return n;
}

}  // namespace respool::test::training
