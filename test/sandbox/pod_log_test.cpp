// pods/log over real HTTP against simulated containers: the lines follow the injected clock,
// PodLogOptions select them, hangs silence them, errors are the real server's.
#include <catch2/catch.hpp>

#include <sstream>

#include "apimachinery/time.hpp"
#include "operator/kube/yaml.hpp"
#include "reconcilers/policy/catalog.hpp"
#include "reconcilers/policy/failure_match.hpp"
#include "sandbox/simulator/container_log.hpp"
#include "sandbox/simulator/failure_samples.hpp"
#include "sandbox/simulator/fit.hpp"
#include "test/simulator/sandbox_fixture.hpp"

using namespace respool;
using namespace respool::sandbox::test;
using respool::sandbox::sim::annotation;

namespace {

const char* kTwoNodes = R"(
nodes:
- flavor: cpu
  count: 2
  namePrefix: n
)";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

struct Log {
  int status = 0;
  std::string body;
  std::string content_type;
};

Log get_log(Cluster& cluster, const std::string& pod, const std::string& query = "") {
  auto r = cluster.client().request("GET", "/api/v1/namespaces/default/pods/" + pod + "/log" +
                                               (query.empty() ? "" : "?" + query));
  if (!r) FAIL("log request: " << r.error().describe());
  return {r->status, r->body, std::string(r->headers.get("Content-Type").value_or(""))};
}

std::string message_of(const Log& log) {
  return Json::parse(log.body, nullptr, false).value("message", std::string());
}

void wait_running(Cluster& cluster, const std::string& pod) {
  REQUIRE(
      eventually([&] { return phase(cluster.pod(pod)) == "Running"; }, std::chrono::seconds(30)));
}

}  // namespace

TEST_CASE("pods/log serves the simulated lines by PodLogOptions", "[sandbox][logs]") {
  Cluster cluster(kTwoNodes);
  cluster.create(kube::resources::pods, "default",
                 simple_pod("worker", {}, {{"sandbox.respool.io/log-interval", "1"}}));
  wait_running(cluster, "worker");
  // Some simulated seconds of output.
  REQUIRE(eventually([&] { return lines_of(get_log(cluster, "worker").body).size() >= 12; }));

  Log all = get_log(cluster, "worker");
  CHECK(all.status == 200);
  CHECK(all.content_type == "text/plain");
  auto lines = lines_of(all.body);
  CHECK(lines[0] == "c started (restart 0)");
  CHECK(lines[1].starts_with("c step 1: loss="));
  CHECK(lines[10].starts_with("c step 10: loss="));

  Log tail = get_log(cluster, "worker", "tailLines=3");
  auto tail_lines = lines_of(tail.body);
  REQUIRE(tail_lines.size() == 3);
  CHECK(tail_lines[2].starts_with("c step "));

  const auto before = cluster.clock().now();
  Log since = get_log(cluster, "worker", "sinceSeconds=5&timestamps=true");
  auto since_lines = lines_of(since.body);
  CHECK(since_lines.size() >= 4);
  CHECK(since_lines.size() <= 8);
  for (const auto& line : since_lines) {
    auto t =
        apimachinery::parse_time(line.substr(0, 19) + "Z");  // seconds precision is enough here
    REQUIRE(t);
    CHECK(*t >= std::chrono::floor<std::chrono::seconds>(before) - std::chrono::seconds(6));
    CHECK(line.find(".000000000Z c step ") == 19);
  }

  const std::string since_time = apimachinery::format_time(before - std::chrono::seconds(3));
  Log by_time = get_log(cluster, "worker", "sinceTime=" + since_time);
  CHECK(lines_of(by_time.body).size() <= 6);

  CHECK(get_log(cluster, "worker", "limitBytes=10").body == all.body.substr(0, 10));

  // PodLogOptions validation: 422 PodLogOptions.
  Log zero = get_log(cluster, "worker", "sinceSeconds=0");
  CHECK(zero.status == 422);
  CHECK(message_of(zero) ==
        "PodLogOptions \"worker\" is invalid: sinceSeconds: Invalid value: 0: must be greater than "
        "0");
  CHECK(get_log(cluster, "worker", "tailLines=-1").status == 422);
  CHECK(get_log(cluster, "worker", "sinceSeconds=5&sinceTime=" + since_time).status == 422);
  CHECK(get_log(cluster, "worker", "tailLines=x").status == 400);

  // No previous run yet: the kubelet's 400.
  Log previous = get_log(cluster, "worker", "previous=true");
  CHECK(previous.status == 400);
  CHECK(message_of(previous) == "previous terminated container \"c\" in pod \"worker\" not found");
  CHECK(get_log(cluster, "missing").status == 404);
}

TEST_CASE("pods/log names the container to choose; unscheduled pods log nothing",
          "[sandbox][logs]") {
  Cluster cluster(kTwoNodes);
  Json two = simple_pod("two");
  two["spec"]["containers"] = Json::parse(
      R"([{"name": "a", "image": "busybox:1.36"}, {"name": "b", "image": "busybox:1.36"}])");
  cluster.create(kube::resources::pods, "default", two);
  cluster.create(kube::resources::pods, "default",
                 simple_pod("nowhere", {{"nodeSelector", {{"zone", "none"}}}}));
  wait_running(cluster, "two");
  Log unnamed = get_log(cluster, "two");
  CHECK(unnamed.status == 400);
  CHECK(message_of(unnamed) ==
        "a container name must be specified for pod two, choose one of: [a b]");
  Log b = get_log(cluster, "two", "container=b");
  CHECK(b.status == 200);
  CHECK(lines_of(b.body).at(0) == "b started (restart 0)");
  Log wrong = get_log(cluster, "two", "container=zz");
  CHECK(wrong.status == 400);
  CHECK(message_of(wrong) == "container zz is not valid for pod two");
  Log nowhere = get_log(cluster, "nowhere");
  CHECK(nowhere.status == 200);
  CHECK(nowhere.body.empty());
}

TEST_CASE("a hung pod's log goes silent and resumes; follow streams until the end",
          "[sandbox][logs]") {
  Cluster cluster(kTwoNodes);
  cluster.create(kube::resources::pods, "default",
                 simple_pod("hangs", {}, {{"sandbox.respool.io/log-interval", "1"}}));
  cluster.create(kube::resources::pods, "default",
                 simple_pod("short", {},
                            {{"sandbox.respool.io/log-interval", "1"},
                             {"sandbox.respool.io/run-seconds", "40"}}));
  wait_running(cluster, "hangs");
  wait_running(cluster, "short");

  auto annotate = [&](const Json& value) {
    REQUIRE(cluster.client().patch(
        kube::resources::pods, "default", "hangs", kube::PatchType::Merge,
        {{"metadata", {{"annotations", {{"sandbox.respool.io/hang", value}}}}}}));
  };
  annotate("true");
  REQUIRE(eventually(
      [&] { return annotation(cluster.pod("hangs"), "sandbox.respool.io/silences").has_value(); }));
  const std::string hung = get_log(cluster, "hangs").body;
  const auto at = cluster.clock().now();
  REQUIRE(eventually([&] { return cluster.clock().now() > at + std::chrono::seconds(5); }));
  CHECK(get_log(cluster, "hangs").body == hung);                    // nothing new
  CHECK(get_log(cluster, "hangs", "sinceSeconds=4").body.empty());  // what a hang check reads

  annotate(nullptr);
  REQUIRE(eventually([&] { return get_log(cluster, "hangs", "sinceSeconds=4").body.size() > 0; }));
  const std::string resumed = get_log(cluster, "hangs").body;
  CHECK(resumed.starts_with(hung));
  CHECK(lines_of(resumed).size() > lines_of(hung).size());

  // follow: streamed until the container ends (40 simulated seconds after its start).
  Log followed = get_log(cluster, "short", "follow=true");
  CHECK(followed.status == 200);
  auto lines = lines_of(followed.body);
  REQUIRE(lines.size() == 41);
  CHECK(lines.back().starts_with("c step 40: "));
  CHECK(phase(cluster.pod("short")) == "Succeeded");
}

// Code-error detection's demo and tests (issue 29): a pod annotated with a failure sample ends
// with the sample's exit code and reason, its log's last lines are the sample's, and each sample
// is recognised by the entry of the shipped catalogue it plays.
TEST_CASE("a failure sample ends the pod as the framework would, and the catalogue knows it",
          "[sandbox][logs]") {
  auto document = kube::yaml_file_to_json(RESPOOL_SOURCE_DIR "/config/catalog.yaml");
  REQUIRE(document);
  auto catalog = policy::parse_catalog(*document);
  REQUIRE(catalog);
  REQUIRE(catalog->failures);
  Cluster cluster(kTwoNodes);
  const std::map<std::string, std::string> expected = {{"cuda-oom", "cuda-out-of-memory"},
                                                       {"nccl-timeout", "nccl-timeout"},
                                                       {"traceback", "missing-module"},
                                                       {"segfault", "segmentation-fault"},
                                                       {"host-oom", "host-out-of-memory"}};
  for (const auto& [sample, entry] : expected) {
    cluster.create(kube::resources::pods, "default",
                   simple_pod(sample, {{"restartPolicy", "Never"}},
                              {{"sandbox.respool.io/log-interval", "1"},
                               {"sandbox.respool.io/run-seconds", "3"},
                               {"sandbox.respool.io/failure", sample}}));
  }
  for (const auto& [sample, entry] : expected) {
    INFO(sample);
    REQUIRE(eventually([&] { return phase(cluster.pod(sample)) == "Failed"; },
                       std::chrono::seconds(30)));
    const Json pod = cluster.pod(sample);
    const Json& terminated = pod["status"]["containerStatuses"][0]["state"]["terminated"];
    const auto* played = sandbox::sim::find_failure_sample(sample);
    REQUIRE(played);
    CHECK(terminated["exitCode"] == played->exit_code);
    CHECK(terminated["reason"] == std::string(played->reason));
    Log log = get_log(cluster, sample, "tailLines=200&timestamps=true");
    auto lines = lines_of(log.body);
    REQUIRE(lines.size() >= played->lines.size());
    if (!played->lines.empty()) {
      CHECK(lines.back().substr(31) == std::string(played->lines.back()));
      CHECK(lines.back().substr(0, 30) == sandbox::sim::nano_time(*apimachinery::parse_time(
                                              terminated["finishedAt"].get<std::string>())));
    }
    // The tail counts them among its lines.
    CHECK(lines_of(get_log(cluster, sample, "tailLines=1").body).size() == 1);
    auto finding = policy::match_failure(
        *catalog->failures, {terminated["exitCode"].get<int>(), terminated["reason"]}, log.body);
    REQUIRE(finding);
    CHECK(catalog->failures->entries()[finding->entry].name == entry);
  }
}
