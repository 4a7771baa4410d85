// pods/attach over a real WebSocket against simulated containers: what the container writes
// from the moment of attaching, until its run ends (the kubelet's Success Status, then the close
// frame); and the real server's 400s before the upgrade.
#include <catch2/catch.hpp>

#include "operator/http/message.hpp"
#include "test/sandbox/exec_client.hpp"
#include "test/simulator/sandbox_fixture.hpp"

using namespace respool;
using namespace respool::sandbox::test;

namespace {

const char* kOneNode = R"(
nodes:
- flavor: cpu
  count: 1
  namePrefix: n
)";

const std::string kAttach = "/api/v1/namespaces/default/pods/";

}  // namespace

TEST_CASE("attach streams the container's output until its run ends", "[sandbox][attach]") {
  Cluster cluster(kOneNode);
  cluster.create(kube::resources::pods, "default",
                 simple_pod("short", {{"restartPolicy", "Never"}},
                            {{"sandbox.respool.io/log-interval", "10"},
                             {"sandbox.respool.io/run-seconds", "120"}}));
  REQUIRE(eventually([&] { return phase(cluster.pod("short")) == "Running"; }));
  const auto config = cluster.sandbox().cluster_config();
  // Two simulated minutes at the fixture's time scale of 60: two seconds of attaching.
  ExecReply attached = ws_exec(config, kAttach + "short/attach?stdout=true&stderr=true");
  INFO(attached.body);
  CHECK(attached.http_status == 101);
  CHECK(attached.protocol == "v5.channel.k8s.io");
  CHECK(attached.out.find("c step ") != std::string::npos);
  CHECK(attached.out.find("c started") == std::string::npos);  // written before attaching
  CHECK(Json::parse(attached.status)["status"] == "Success");
  CHECK(attached.closed);
}

TEST_CASE("attach answers the real server's errors before the upgrade", "[sandbox][attach]") {
  Cluster cluster(kOneNode);
  cluster.create(kube::resources::pods, "default",
                 simple_pod("w", Json::object(), {{"sandbox.respool.io/log-interval", "1"}}));
  REQUIRE(eventually([&] { return phase(cluster.pod("w")) == "Running"; }));
  const auto config = cluster.sandbox().cluster_config();
  auto message = [](const ExecReply& r) {
    return Json::parse(r.body, nullptr, false).value("message", std::string());
  };
  ExecReply wrong = ws_exec(config, kAttach + "w/attach?stdout=true&container=zz");
  CHECK(wrong.http_status == 400);
  CHECK(message(wrong) == "container zz is not valid for pod w");
  ExecReply none = ws_exec(config, kAttach + "w/attach");
  CHECK(message(none) == "you must specify at least 1 of stdin, stdout, stderr");
  CHECK(ws_exec(config, kAttach + "missing/attach?stdout=true").http_status == 404);
  auto plain = cluster.client().request("POST", kAttach + "w/attach?stdout=true");
  REQUIRE(plain);
  CHECK(plain->status == 400);
}
