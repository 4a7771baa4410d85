// pods/exec over a real WebSocket (v5.channel.k8s.io, v4 as fallback) against simulated
// containers: a kill restarts the training container, anything unknown exits as missing.
#include <catch2/catch.hpp>

#include "operator/http/message.hpp"
#include "sandbox/simulator/container_exec.hpp"
#include "sandbox/simulator/fit.hpp"
#include "test/sandbox/exec_client.hpp"
#include "test/simulator/sandbox_fixture.hpp"

using namespace respool;
using namespace respool::sandbox::test;
using respool::sandbox::sim::string_at;

namespace {

const char* kOneNode = R"(
nodes:
- flavor: cpu
  count: 1
  namePrefix: n
)";

std::string exec_target(const std::string& pod, std::vector<std::string> command,
                        const std::string& extra = "") {
  std::string t = "/api/v1/namespaces/default/pods/" + pod + "/exec?stdout=true&stderr=true";
  for (const auto& c : command)
    t += "&command=" + http::percent_encode(c);
  return t + extra;
}

Json worker(const std::string& name, const std::string& restart_policy) {
  Json pod = simple_pod(name, {{"restartPolicy", restart_policy}},
                        {{"sandbox.respool.io/log-interval", "1"}});
  pod["spec"]["containers"][0]["command"] = Json::array({"python", "train.py", "--epochs=90"});
  return pod;
}

Json container_status(Cluster& cluster, const std::string& pod) {
  return cluster.pod(pod)["status"]["containerStatuses"][0];
}

}  // namespace

TEST_CASE("commands of a simulated container", "[sandbox][exec]") {
  Json pod = worker("w", "OnFailure");
  auto run = [&](std::vector<std::string> argv) { return sandbox::sim::run_exec(argv, pod, "c"); };
  CHECK(run({"kill", "1"}).kill_signal == 15);
  CHECK(run({"kill", "-9", "1"}).kill_signal == 9);
  CHECK(run({"/bin/kill", "-s", "KILL", "1"}).kill_signal == 9);
  CHECK(run({"kill", "42"}).exit_code == 1);
  CHECK(run({"kill", "42"}).kill_signal == 0);
  CHECK(run({"pkill", "-f", "train.py"}).kill_signal == 15);
  CHECK(run({"pkill", "train.py"}).exit_code == 1);  // the name is "python"
  CHECK(run({"pkill", "-USR1", "python"}).kill_signal == 10);
  CHECK(run({"sh", "-c", "echo stopping; kill -TERM 1"}).kill_signal == 15);
  CHECK(run({"sh", "-c", "echo stopping; kill -TERM 1"}).out == "stopping\n");
  auto missing = run({"sh", "-c", "nvidia-smi"});
  CHECK(missing.exit_code == 127);
  CHECK(missing.err == "sh: nvidia-smi: not found\n");
  auto direct = run({"ls", "/"});
  CHECK(direct.exit_code == 127);
  CHECK(direct.err == "exec: \"ls\": executable file not found in $PATH\n");
  CHECK(run({"false"}).exit_code == 1);
  CHECK(run({"hostname"}).out == "w\n");
}

TEST_CASE("exec over a WebSocket kills and restarts the training container", "[sandbox][exec]") {
  Cluster cluster(kOneNode);
  cluster.create(kube::resources::pods, "default", worker("w", "OnFailure"));
  cluster.create(kube::resources::pods, "default", worker("once", "Never"));
  REQUIRE(eventually([&] {
    return phase(cluster.pod("w")) == "Running" && phase(cluster.pod("once")) == "Running";
  }));
  const auto config = cluster.sandbox().cluster_config();

  ExecReply echo = ws_exec(config, exec_target("w", {"echo", "hello"}));
  CHECK(echo.http_status == 101);
  CHECK(echo.accept == kWebSocketAccept);
  CHECK(echo.protocol == "v5.channel.k8s.io");
  CHECK(echo.out == "hello\n");
  CHECK(Json::parse(echo.status)["status"] == "Success");
  CHECK(echo.closed);
  // An older client: v4.
  CHECK(ws_exec(config, exec_target("w", {"true"}), "v4.channel.k8s.io").protocol ==
        "v4.channel.k8s.io");

  const std::string first_start =
      string_at(container_status(cluster, "w"), {"state", "running", "startedAt"});
  ExecReply kill = ws_exec(config, exec_target("w", {"kill", "1"}));
  CHECK(Json::parse(kill.status)["status"] == "Success");
  Json restarted = container_status(cluster, "w");
  CHECK(restarted["restartCount"] == 1);
  CHECK(restarted["state"].contains("running"));
  CHECK(restarted["lastState"]["terminated"]["exitCode"] == 143);
  CHECK(restarted["lastState"]["terminated"]["reason"] == "Error");
  CHECK(restarted["lastState"]["terminated"]["startedAt"] == first_start);
  CHECK(phase(cluster.pod("w")) == "Running");
  // The logs restart: the previous run's are there, the new run begins again.
  auto current = cluster.client().request("GET", "/api/v1/namespaces/default/pods/w/log");
  REQUIRE(current);
  CHECK(current->body.starts_with("c started (restart 1)\n"));
  auto previous =
      cluster.client().request("GET", "/api/v1/namespaces/default/pods/w/log?previous=true");
  REQUIRE(previous);
  CHECK(previous->status == 200);
  CHECK(previous->body.starts_with("c started (restart 0)\n"));

  REQUIRE(ws_exec(config, exec_target("w", {"sh", "-c", "pkill -f train.py"})).closed);
  CHECK(container_status(cluster, "w")["restartCount"] == 2);

  // Anything else exits as a missing command; nothing restarts.
  ExecReply missing = ws_exec(config, exec_target("w", {"nvidia-smi"}));
  CHECK(missing.err == "exec: \"nvidia-smi\": executable file not found in $PATH\n");
  Json status = Json::parse(missing.status);
  CHECK(status["status"] == "Failure");
  CHECK(status["reason"] == "NonZeroExitCode");
  CHECK(status["message"] ==
        "command terminated with non-zero exit code: error executing "
        "command [nvidia-smi], exit code 127");
  CHECK(status["details"]["causes"][0] == Json{{"reason", "ExitCode"}, {"message", "127"}});
  CHECK(container_status(cluster, "w")["restartCount"] == 2);

  // restartPolicy Never: the container stays terminated, the pod fails.
  REQUIRE(ws_exec(config, exec_target("once", {"kill", "-9", "1"})).closed);
  Json once = cluster.pod("once");
  CHECK(phase(once) == "Failed");
  CHECK(once["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 137);
  ExecReply completed = ws_exec(config, exec_target("once", {"true"}));
  CHECK(completed.http_status == 400);
  CHECK(Json::parse(completed.body, nullptr, false)["message"] ==
        "cannot exec into a container in a completed pod; current phase is Failed");
}

TEST_CASE("exec answers the real server's errors before the upgrade", "[sandbox][exec]") {
  Cluster cluster(kOneNode);
  cluster.create(kube::resources::pods, "default", worker("w", "Always"));
  REQUIRE(eventually([&] { return phase(cluster.pod("w")) == "Running"; }));
  const auto config = cluster.sandbox().cluster_config();
  auto message = [](const ExecReply& r) {
    return Json::parse(r.body, nullptr, false).value("message", std::string());
  };
  ExecReply wrong = ws_exec(config, exec_target("w", {"true"}, "&container=zz"));
  CHECK(wrong.http_status == 400);
  CHECK(message(wrong) == "container zz is not valid for pod w");
  CHECK(ws_exec(config, exec_target("missing", {"true"})).http_status == 404);
  ExecReply none = ws_exec(config, "/api/v1/namespaces/default/pods/w/exec?stdout=true");
  CHECK(message(none) == "you must specify at least 1 command");
  CHECK(ws_exec(config, exec_target("w", {"true"}), "base64.channel.k8s.io").http_status == 400);
  // Not a WebSocket (nor SPDY, which the sandbox does not speak).
  auto plain = cluster.client().request("POST", exec_target("w", {"true"}));
  REQUIRE(plain);
  CHECK(plain->status == 400);
}
