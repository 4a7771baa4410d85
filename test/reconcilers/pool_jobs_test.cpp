// A pool's jobs against the sandbox (issue 28 item 4, Q1–Q5): on a one-node GPU pool that a
// running Job fills, three pending Jobs of different priorities show positions 1, 2, 3 in
// status.jobs; a higher-priority bare pod goes ahead of them; each is told once that it waits
// (Queued), and once more when it reaches the front.

#include "test/reconcilers/harness.hpp"
#include "test/reconcilers/training_fixtures.hpp"

using namespace respool;
using namespace respool::test;
using respool::test::training::gpu_nodes;
using respool::test::training::gpu_pool;

namespace {

constexpr const char* kPool = "queue-a";

// One pod taking a whole 8-GPU node of the pool. `by_toleration`: it names the pool only by
// tolerating its dedicated taint (Q1), else by its nodeSelector. spec.priority stands for what
// the Priority admission plug-in sets from a PriorityClass (the sandbox keeps it as given).
Json pod_spec(int priority, bool by_toleration) {
  Json gpus = {{"nvidia.com/gpu", "8"}};
  Json spec = {
      {"restartPolicy", "Never"},
      {"priority", priority},
      {"tolerations",
       Json::array({{{"key", "respool.io/pool"}, {"operator", "Equal"}, {"value", kPool}}})},
      {"containers", Json::array({{{"name", "c"},
                                   {"image", "trainer:1"},
                                   {"resources", {{"requests", gpus}, {"limits", gpus}}}}})}};
  if (!by_toleration) spec["nodeSelector"] = {{"respool.io/pool", kPool}};
  return spec;
}

Json job_manifest(const std::string& name, int priority, bool by_toleration = false) {
  return {{"apiVersion", "batch/v1"},
          {"kind", "Job"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec",
           {{"parallelism", 1},
            {"completions", 1},
            {"backoffLimit", 0},
            // A log interval: the simulator's Job pods then run until stopped.
            {"template",
             {{"metadata", {{"annotations", {{"sandbox.respool.io/log-interval", "60"}}}}},
              {"spec", pod_spec(priority, by_toleration)}}}}}};
}

Json jobs_status(Harness& h) {
  return h.pool(kPool).value("status", Json::object()).value("jobs", Json());
}

// The queue's names in order, as status.jobs shows them.
std::vector<std::string> queue_names(const Json& jobs) {
  std::vector<std::string> out;
  if (!jobs.is_object()) return out;
  for (const auto& item : jobs.value("queue", Json::array()))
    out.push_back(item.value("name", ""));
  return out;
}

std::vector<std::string> queued_notes(Harness& h, const std::string& name) {
  std::vector<std::string> out;
  for (const auto& e : h.events_for(name))
    if (e.value("reason", "") == "Queued") out.push_back(e.value("note", ""));
  return out;
}

// The Job and its pods (not left to the garbage collector's pace).
void delete_job(Harness& h, const std::string& name) {
  kube::DeleteOptions o;
  o.propagation_policy = "Background";
  REQUIRE(h.client().remove(kube::resources::jobs, "default", name, o));
  for (const auto& pod : respool::test::training::job_pods(h, name))
    (void)h.client().remove(kube::resources::pods, "default",
                            pod["metadata"]["name"].get<std::string>());
}

// What the pool and the pods show, for a failure's message.
std::string dump(Harness& h) {
  auto pods = h.client().list(kube::resources::pods, "default");
  std::string out = "status.jobs " + jobs_status(h).dump() + "\n";
  if (!pods) return out;
  for (const auto& p : (*pods)["items"])
    out += p["metadata"].value("name", "") + " node=" + p["spec"].value("nodeName", "") +
           " phase=" + p.value("status", Json::object()).value("phase", "") +
           " priority=" + std::to_string(p["spec"].value("priority", -1)) + "\n";
  return out;
}

}  // namespace

TEST_CASE("pending jobs show their queue positions in status.jobs and are told once",
          "[rule:Q1][rule:Q2][rule:Q3][rule:Q4][rule:Q5]") {
  Harness h({.nodes_yaml = gpu_nodes(1), .time_scale = 10.0});
  gpu_pool(h, kPool, 1);
  // Q4: the jobs controller writes nothing before the pool's first status, which keeps its
  // Creating phase and the event of its change to Running.
  REQUIRE(h.eventually([&] {
    return h.has_event(kPool, "PoolStatusChange", "Pool status changed, from Creating to Running.");
  }));
  h.apply(job_manifest("filler", 0), kube::resources::jobs);
  REQUIRE(h.eventually([&] {
    const Json jobs = jobs_status(h);
    return jobs.is_object() && jobs.value("running", 0) == 1;
  }));

  // high first: mid and low, whatever order their pods come in, are never at the front.
  h.apply(job_manifest("high", 1000), kube::resources::jobs);
  const bool high_waits =
      h.eventually([&] { return jobs_status(h).value("pending", 0) == 1; }, 30s);
  INFO(dump(h));
  REQUIRE(high_waits);
  h.apply(job_manifest("low", 10, true), kube::resources::jobs);
  h.apply(job_manifest("mid", 100), kube::resources::jobs);
  REQUIRE(h.eventually([&] {
    return queue_names(jobs_status(h)) == std::vector<std::string>{"high", "mid", "low"};
  }));
  Json jobs = jobs_status(h);
  CHECK(jobs["running"] == 1);
  CHECK(jobs["pending"] == 3);
  for (int i = 0; i < 3; ++i)
    CHECK(jobs["queue"][i]["position"] == i + 1);
  CHECK(jobs["queue"][0]["kind"] == "Job");
  CHECK(jobs["queue"][0]["priority"] == 1000);
  CHECK(jobs["queue"][0]["waitingFor"] == "8 nvidia.com/gpu, largest free 0");
  for (const char* name : {"high", "mid", "low"}) {
    REQUIRE(h.eventually([&] { return queued_notes(h, name).size() == 1; }));
    INFO(name);
    CHECK(queued_notes(h, name)[0].starts_with("Queued at position "));
  }

  // A higher priority arrives last and goes ahead of them all.
  Json urgent = {{"apiVersion", "v1"},
                 {"kind", "Pod"},
                 {"metadata", {{"name", "urgent"}, {"namespace", "default"}}},
                 {"spec", pod_spec(5000, false)}};
  h.apply(urgent, kube::resources::pods);
  REQUIRE(h.eventually([&] {
    return queue_names(jobs_status(h)) == std::vector<std::string>{"urgent", "high", "mid", "low"};
  }));
  jobs = jobs_status(h);
  CHECK(jobs["queue"][0]["kind"] == "Pod");
  CHECK(jobs["pending"] == 4);
  REQUIRE(h.eventually([&] {
    return queued_notes(h, "urgent") ==
           std::vector<std::string>{"Queued at position 1 of 4 in pool queue-a (priority 5000)"};
  }));

  // urgent and high leave: mid reaches the front and is told so, once; low is told nothing.
  REQUIRE(h.client().remove(kube::resources::pods, "default", "urgent"));
  delete_job(h, "high");
  REQUIRE(h.eventually([&] {
    return queue_names(jobs_status(h)) == std::vector<std::string>{"mid", "low"};
  }));
  REQUIRE(h.eventually([&] { return queued_notes(h, "mid").size() == 2; }));
  CHECK(queued_notes(h, "mid")[1] ==
        "Moved to the front of the queue in pool queue-a (position 1 of 2)");
  CHECK(queued_notes(h, "low").size() == 1);
}

TEST_CASE("status.jobs is written at most once per pool per interval while pods churn",
          "[rule:Q4]") {
  Harness h({.nodes_yaml = gpu_nodes(1)});
  gpu_pool(h, kPool, 1);
  h.apply(job_manifest("filler", 0), kube::resources::jobs);
  REQUIRE(h.eventually([&] { return jobs_status(h).value("running", 0) == 1; }));
  auto& counts = h.sandbox().api_server().request_counts();
  auto status_patches = [&] {
    std::uint64_t n = 0;
    for (const auto& [key, count] : counts.snapshot())
      if (key.verb == "patch" && key.resource == "resourcepools/status") n += count;
    return n;
  };
  counts.reset();
  const auto start = h.clock().now();
  // Twenty jobs, one every 100 ms: each changes the queue, and each pod's binding attempt and
  // status are more pod events.
  for (int i = 0; i < 20; ++i) {
    h.apply(job_manifest("churn-" + std::to_string(i), i), kube::resources::jobs);
    std::this_thread::sleep_for(100ms);
  }
  REQUIRE(h.eventually([&] { return jobs_status(h).value("pending", 0) == 20; }));
  const auto elapsed = h.clock().now() - start;
  const auto intervals = std::chrono::duration_cast<std::chrono::seconds>(elapsed).count() / 5;
  INFO("status patches " << status_patches() << " in " << elapsed.count() << " ns");
  CHECK(status_patches() >= 1);
  CHECK(status_patches() <= static_cast<std::uint64_t>(intervals + 2));
  CHECK(status_patches() < 20);
}
