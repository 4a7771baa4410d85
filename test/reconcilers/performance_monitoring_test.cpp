// Performance monitoring of training jobs (issue 29; O4, O12) against the sandbox: a worker far
// behind the others is a straggler, by its log rate, or by its accelerator use where the operator
// reads Prometheus (here a stand-in answering its query API from the test's figures).

#include <algorithm>
#include <mutex>

#include "operator/http/server.hpp"
#include "reconcilers/diagnosis/accelerator_use.hpp"
#include "test/reconcilers/diagnosis_fixtures.hpp"

using namespace respool;
using namespace respool::test;
using namespace respool::test::training;

namespace {

// Prometheus' /api/v1/query as far as the operator asks it: an instant vector of the pods'
// accelerator use the test sets, and the queries it was asked.
class StandInPrometheus {
 public:
  StandInPrometheus() {
    auto server = http::Server::start({}, [this](const http::ServerRequest& r, http::Responder& w) {
      http::Response response;
      response.status = 200;
      response.headers.set("Content-Type", "application/json");
      std::lock_guard lock(mu_);
      const auto target = http::parse_target(r.target);
      queries_.push_back(target.path + " " + std::string(target.param("query").value_or("")));
      Json result = Json::array();
      for (const auto& [pod, use] : use_)
        result.push_back(
            {{"metric", {{"pod", pod}}}, {"value", {1764316800.0, std::to_string(use)}}});
      response.body =
          Json{{"status", "success"}, {"data", {{"resultType", "vector"}, {"result", result}}}}
              .dump();
      w.respond(std::move(response));
    });
    REQUIRE(server);
    server_ = std::move(*server);
  }
  std::string url() const { return server_->url(); }
  void set(const std::string& pod, double use) {
    std::lock_guard lock(mu_);
    use_[pod] = use;
  }
  std::vector<std::string> queries() {
    std::lock_guard lock(mu_);
    return queries_;
  }

 private:
  std::mutex mu_;
  std::map<std::string, double> use_;
  std::vector<std::string> queries_;
  std::unique_ptr<http::Server> server_;
};

}  // namespace

TEST_CASE(
    "O4 O12: a worker that logs far less than the others is a straggler: one report naming it "
    "and its node, the job Medium; a window under 1m is refused on the Job",
    "[reconcilers][diagnosis][performance][rule:O4][rule:O12][rule:O9]") {
  Harness h({.nodes_yaml = gpu_nodes(5), .time_scale = 20});
  gpu_pool(h, "train", 5);
  h.apply(training_job("llm", "train", 4,
                       {{"fault-tolerance/job-retry-num", "2"},
                        {"respool.io/performance-monitoring", "true"},
                        {"respool.io/performance-window", "1m"}}),
          kube::resources::jobs);
  h.apply(training_job("short", "train", 1,
                       {{"fault-tolerance/job-retry-num", "2"},
                        {"respool.io/performance-monitoring", "true"},
                        {"respool.io/performance-window", "30s"}}),
          kube::resources::jobs);
  REQUIRE(h.eventually([&] { return running_pods(h, "llm", "0").size() == 4; }));
  // Worker 2 writes a line a minute where the others write one every 10 seconds.
  std::string slow, node;
  for (const auto& p : running_pods(h, "llm", "0")) {
    if (p["metadata"]["labels"].value("batch.kubernetes.io/job-completion-index", "") != "2")
      continue;
    slow = p["metadata"]["name"];
    node = p["spec"]["nodeName"];
    annotate(h, kube::resources::pods, "default", slow,
             {{"sandbox.respool.io/log-interval", "60"}});
  }
  REQUIRE_FALSE(slow.empty());
  const std::string name = slow + "-straggler";
  REQUIRE(h.eventually([&] { return completed(diagnosis(h, name)); }, 60s));
  const Json d = *diagnosis(h, name);
  CHECK(d["spec"]["type"] == "Automatic");
  CHECK(d["metadata"]["labels"]["respool.io/monitor"] == "PerformanceMonitoring");
  const Json& s = d["status"];
  CHECK(s["reason"] == "Straggler");
  CHECK(s["risk"] == "Medium");
  CHECK(s["category"] == "Environment");
  CHECK(s["requests"] == 4);  // one log read per worker
  REQUIRE(s["results"].size() == 1);
  const Json& r = s["results"][0];
  CHECK(r["device"]["pod"] == slow);
  CHECK(r["device"]["node"] == node);
  CHECK(r["device"]["worker"] == 2);
  CHECK(r["fault"].get<std::string>().starts_with("worker 2 (pod " + slow + " on node " + node +
                                                  ") logged "));
  INFO(r["fault"]);
  CHECK(r["fault"].get<std::string>().find("in 1m0s, the job's other workers a median of 6") !=
        std::string::npos);
  REQUIRE(h.eventually([&] { return risk(job(h, "llm")) == "Medium"; }));
  REQUIRE(h.eventually([&] { return diagnosed_events(h, "llm", name) == 1; }));
  REQUIRE(h.eventually([&] {
    return h.has_event("short", "InvalidAnnotation",
                       "O12: respool.io/performance-window must be a duration of at least 1m "
                       "(such as 10m or 1h), not \"30s\"; performance monitoring is off");
  }));
  // Two more windows: the straggler is reported once, and no other worker is one.
  std::this_thread::sleep_for(7s);
  std::vector<std::string> names;
  for (const auto& each : diagnoses(h))
    names.push_back(each["metadata"]["name"]);
  CHECK(names == std::vector<std::string>{name});
  CHECK(risk(job(h, "short")) == "NoRisk");
}

TEST_CASE(
    "O4: with Prometheus, a worker whose accelerators are far less busy than the others' is the "
    "straggler, found with one query a window",
    "[reconcilers][diagnosis][performance][rule:O4]") {
  StandInPrometheus prometheus;
  Harness h({.nodes_yaml = gpu_nodes(5), .time_scale = 20, .prometheus_url = prometheus.url()});
  gpu_pool(h, "train", 5);
  h.apply(training_job("llm", "train", 3,
                       {{"fault-tolerance/job-retry-num", "2"},
                        {"respool.io/performance-monitoring", "true"},
                        {"respool.io/performance-window", "2m"}}),
          kube::resources::jobs);
  // A job Prometheus has no series of (no node agent on its nodes): its log rates decide.
  h.apply(training_job("quiet", "train", 2,
                       {{"fault-tolerance/job-retry-num", "2"},
                        {"respool.io/performance-monitoring", "true"},
                        {"respool.io/performance-window", "2m"}}),
          kube::resources::jobs);
  REQUIRE(h.eventually([&] {
    return running_pods(h, "llm", "0").size() == 3 && running_pods(h, "quiet", "0").size() == 2;
  }));
  std::string quiet;
  for (const auto& p : running_pods(h, "quiet", "0"))
    if (p["metadata"]["labels"].value("batch.kubernetes.io/job-completion-index", "") == "0")
      quiet = p["metadata"]["name"];
  annotate(h, kube::resources::pods, "default", quiet, {{"sandbox.respool.io/log-interval", "60"}});
  // Every worker logs alike: only the accelerators tell worker 1 apart.
  std::string slow, node;
  for (const auto& p : running_pods(h, "llm", "0")) {
    const std::string pod = p["metadata"]["name"];
    const bool one =
        p["metadata"]["labels"].value("batch.kubernetes.io/job-completion-index", "") == "1";
    prometheus.set(pod, one ? 31.5 : 96);
    if (one) slow = pod, node = p["spec"]["nodeName"];
  }
  const std::string name = slow + "-straggler";
  REQUIRE(h.eventually([&] { return completed(diagnosis(h, name)); }, 60s));
  const Json d = *diagnosis(h, name);
  const Json& s = d["status"];
  CHECK(s["requests"] == 1);  // one query, no log read
  CHECK(s["logBytes"] == 0);
  CHECK(s["results"][0]["module"] == "Accelerator use");
  CHECK(s["results"][0]["device"]["node"] == node);
  CHECK(s["results"][0]["fault"] ==
        "worker 1 (pod " + slow + " on node " + node +
            ") used its accelerators 31.5% over 2m0s, the job's other workers a median of 96% "
            "(O4: less than half)");
  REQUIRE(h.eventually([&] { return risk(job(h, "llm")) == "Medium"; }));
  REQUIRE(h.eventually([&] { return completed(diagnosis(h, quiet + "-straggler")); }, 60s));
  const Json q = *diagnosis(h, quiet + "-straggler");
  CHECK(q["status"]["results"][0]["module"] == "Worker log rate");
  CHECK(q["status"]["requests"] == 3);  // the query, then each worker's log
  const auto queries = prometheus.queries();
  REQUIRE_FALSE(queries.empty());
  CHECK(queries.size() >= 2);  // one per job and window, the jobs in any order
  CHECK(std::count(queries.begin(), queries.end(),
                   "/api/v1/query avg by (pod) (avg_over_time({__name__=~\"ma_container_(gpu|npu)_"
                   "util\", namespace=\"default\", job=\"llm\"}[120s]))") >= 1);
}

TEST_CASE("O4: Prometheus' instant vector read by pod; its errors and odd values",
          "[reconcilers][diagnosis][performance]") {
  auto use =
      reconcilers::use_by_pod(R"({"status":"success","data":{"resultType":"vector","result":[)"
                              R"({"metric":{"pod":"a"},"value":[1.5,"97.25"]},)"
                              R"({"metric":{"pod":"b"},"value":[1.5,"NaN"]},)"
                              R"({"metric":{},"value":[1.5,"50"]},)"
                              R"({"metric":{"pod":"c"},"value":[1.5,12]}]}})");
  REQUIRE(use);
  CHECK(*use == std::map<std::string, double>{{"a", 97.25}});
  auto error = reconcilers::use_by_pod(
      R"({"status":"error","errorType":"bad_data","error":"parse error at char 3"})");
  REQUIRE_FALSE(error);
  CHECK(error.error() == "bad_data: parse error at char 3");
  CHECK_FALSE(reconcilers::use_by_pod("<html>502 Bad Gateway</html>"));
  CHECK_FALSE(reconcilers::use_by_pod(R"({"status":"success","data":{"resultType":"matrix"}})"));
  CHECK(reconcilers::accelerator_use_query("team-a", "l\"m", std::chrono::minutes(10)) ==
        "avg by (pod) (avg_over_time({__name__=~\"ma_container_(gpu|npu)_util\", "
        "namespace=\"team-a\", job=\"l\\\"m\"}[600s]))");
}
