// Client::exec against the sandbox over real HTTPS: pods/exec on a WebSocket, the command's
// output and exit code, the restart a `kill 1` causes, the server's refusals as typed errors,
// and every way the client authenticates.
#include <catch2/catch.hpp>

#include "operator/kube/client.hpp"
#include "test/simulator/sandbox_fixture.hpp"

using namespace respool;
using namespace respool::sandbox::test;
using kube::Error;

namespace {

const char* kOneNode = R"(
nodes:
- flavor: cpu
  count: 1
  namePrefix: n
)";

// A running training worker "w" (container "c", process "python train.py").
void start_worker(Cluster& cluster) {
  Json pod = simple_pod("w", {{"restartPolicy", "OnFailure"}});
  pod["spec"]["containers"][0]["command"] = Json::array({"python", "train.py"});
  cluster.create(kube::resources::pods, "default", pod);
  REQUIRE(eventually([&] { return phase(cluster.pod("w")) == "Running"; }));
}

std::unique_ptr<kube::Client> client_for(const kube::ClusterConfig& config,
                                         kube::ClientOptions options = {}) {
  auto client = kube::Client::create(config, std::move(options));
  REQUIRE(client);
  return std::move(*client);
}

int restart_count(Cluster& cluster) {
  return cluster.pod("w")["status"]["containerStatuses"][0].value("restartCount", -1);
}

// The token of ServiceAccount default/operator, bound to a Role with `rules`.
std::string service_account_token(kube::Client& admin, const Json& rules) {
  const std::string rbac = "/apis/rbac.authorization.k8s.io/v1/namespaces/default";
  auto post = [&](const std::string& target, const Json& body) {
    auto r = admin.request("POST", target, body.dump(), "application/json");
    REQUIRE(r);
    REQUIRE(r->status == 201);
    return Json::parse(r->body);
  };
  post("/api/v1/namespaces/default/serviceaccounts", {{"metadata", {{"name", "operator"}}}});
  post(rbac + "/roles", {{"metadata", {{"name", "operator"}}}, {"rules", rules}});
  post(rbac + "/rolebindings",
       {{"metadata", {{"name", "operator"}}},
        {"roleRef",
         {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", "operator"}}},
        {"subjects",
         {{{"kind", "ServiceAccount"}, {"name", "operator"}, {"namespace", "default"}}}}});
  Json token =
      post("/api/v1/namespaces/default/serviceaccounts/operator/token", {{"spec", Json::object()}});
  return token["status"]["token"];
}

}  // namespace

TEST_CASE("exec runs a command in a container and reports its output and exit code",
          "[client][exec]") {
  Cluster cluster(kOneNode);
  start_worker(cluster);
  std::vector<std::pair<std::string, int>> observed;
  kube::ClientOptions options;
  options.observe = [&](std::string_view method, std::string_view, int code, double) {
    observed.emplace_back(std::string(method), code);
  };
  auto client = client_for(cluster.sandbox().cluster_config(), options);

  auto echo = client->exec("default", "w", "c", {"echo", "hi"});
  REQUIRE(echo);
  CHECK(echo->out == "hi\n");
  CHECK(echo->err.empty());
  CHECK(echo->exit_code == 0);
  CHECK(echo->protocol == "v5.channel.k8s.io");
  CHECK(observed == std::vector<std::pair<std::string, int>>{{"GET", 101}});

  // The container may be left out when the pod has one.
  auto host = client->exec("default", "w", "", {"hostname"});
  REQUIRE(host);
  CHECK(host->out == "w\n");

  // A non-zero exit is a result, not an error.
  auto failed = client->exec("default", "w", "c", {"false"});
  REQUIRE(failed);
  CHECK(failed->exit_code == 1);
  CHECK(failed->message ==
        "command terminated with non-zero exit code: error executing command [false], exit code 1");

  auto missing = client->exec("default", "w", "c", {"nvidia-smi", "-L"});
  REQUIRE(missing);
  CHECK(missing->exit_code == 127);
  CHECK(missing->out.empty());
  CHECK(missing->err == "exec: \"nvidia-smi\": executable file not found in $PATH\n");
  auto in_shell = client->exec("default", "w", "c", {"sh", "-c", "echo stopping; nvidia-smi"});
  REQUIRE(in_shell);
  CHECK(in_shell->exit_code == 127);
  CHECK(in_shell->out == "stopping\n");
  CHECK(in_shell->err == "sh: nvidia-smi: not found\n");

  // stdout=false: the server sends nothing on channel 1.
  kube::ExecOptions quiet;
  quiet.capture_stdout = false;
  auto silent = client->exec("default", "w", "c", {"echo", "hi"}, quiet);
  REQUIRE(silent);
  CHECK(silent->out.empty());

  // kill 1 stops the training process: the kubelet restarts the container.
  REQUIRE(restart_count(cluster) == 0);
  auto kill = client->exec("default", "w", "c", {"kill", "1"});
  REQUIRE(kill);
  CHECK(kill->exit_code == 0);
  CHECK(restart_count(cluster) == 1);
  auto pkill = client->exec("default", "w", "c", {"sh", "-c", "pkill -f train.py"});
  REQUIRE(pkill);
  CHECK(restart_count(cluster) == 2);
  CHECK(cluster.pod("w")["status"]["containerStatuses"][0]["lastState"]["terminated"]["exitCode"] ==
        143);
  // Every exec is one GET, counted when the server answered the handshake.
  CHECK(observed.size() == 8);
}

TEST_CASE("exec refusals are the server's Status as typed errors", "[client][exec]") {
  Cluster cluster(kOneNode);
  start_worker(cluster);
  auto& client = cluster.client();

  auto no_pod = client.exec("default", "nope", "c", {"true"});
  REQUIRE_FALSE(no_pod);
  CHECK(no_pod.error().is(Error::Kind::NotFound));
  CHECK(no_pod.error().code == 404);
  CHECK(no_pod.error().message == "pods \"nope\" not found");

  auto wrong = client.exec("default", "w", "zz", {"true"});
  REQUIRE_FALSE(wrong);
  CHECK(wrong.error().is(Error::Kind::BadRequest));
  CHECK(wrong.error().message == "container zz is not valid for pod w");

  auto empty = client.exec("default", "w", "c", {});
  REQUIRE_FALSE(empty);
  CHECK(empty.error().is(Error::Kind::Invalid));

  // A ServiceAccount that may read pods but not exec into them, then one that may.
  const std::string token = service_account_token(
      client, Json::array({{{"apiGroups", {""}}, {"resources", {"pods"}}, {"verbs", {"get"}}}}));
  kube::ClusterConfig config = cluster.sandbox().cluster_config();
  config.token = token;
  auto reader = client_for(config);
  REQUIRE(reader->get(kube::resources::pods, "default", "w"));
  auto forbidden = reader->exec("default", "w", "c", {"true"});
  REQUIRE_FALSE(forbidden);
  CHECK(forbidden.error().is(Error::Kind::Forbidden));
  CHECK(forbidden.error().code == 403);
  CHECK(forbidden.error().message ==
        "pods \"w\" is forbidden: User \"system:serviceaccount:default:operator\" cannot get "
        "resource \"pods/exec\" in API group \"\" in the namespace \"default\"");
  Json grant = {
      {"rules", {{{"apiGroups", {""}}, {"resources", {"pods", "pods/exec"}}, {"verbs", {"get"}}}}}};
  REQUIRE(client.patch(kube::Resource{"rbac.authorization.k8s.io", "v1", "roles", "Role", true},
                       "default", "operator", kube::PatchType::Merge, grant));
  REQUIRE(eventually([&] { return reader->exec("default", "w", "c", {"true"}).has_value(); }));
}

TEST_CASE("exec authenticates as every other request does", "[client][exec]") {
  Cluster cluster(kOneNode);
  start_worker(cluster);
  const kube::ClusterConfig base = cluster.sandbox().cluster_config();

  // A client certificate instead of the token.
  auto cert = cluster.sandbox().api_server().issue_client_cert("alice", {"system:masters"});
  REQUIRE(cert);
  kube::ClusterConfig with_cert = base;
  with_cert.token.clear();
  with_cert.tls.cert_pem = cert->cert_pem;
  with_cert.tls.key_pem = cert->key_pem;
  auto by_cert = client_for(with_cert)->exec("default", "w", "c", {"echo", "cert"});
  REQUIRE(by_cert);
  CHECK(by_cert->out == "cert\n");

  // No credentials at all: system:anonymous, who may not exec.
  kube::ClusterConfig anonymous = base;
  anonymous.token.clear();
  auto nobody = client_for(anonymous)->exec("default", "w", "c", {"true"});
  REQUIRE_FALSE(nobody);
  CHECK(nobody.error().is(Error::Kind::Forbidden));
  CHECK_THAT(nobody.error().message, Catch::Contains("User \"system:anonymous\" cannot get"));
  // A token the server does not know: 401.
  kube::ClusterConfig stranger = base;
  stranger.token = "not-a-token";
  auto unauthorized = client_for(stranger)->exec("default", "w", "c", {"true"});
  REQUIRE_FALSE(unauthorized);
  CHECK(unauthorized.error().is(Error::Kind::Unauthorized));

  // The cluster CA is what makes the server trusted: without it (system roots) TLS fails,
  // unless verification is off.
  kube::ClusterConfig untrusted = base;
  untrusted.tls.ca_pem.clear();
  auto refused = client_for(untrusted)->exec("default", "w", "c", {"true"});
  REQUIRE_FALSE(refused);
  CHECK(refused.error().is(Error::Kind::Network));
  CHECK_THAT(refused.error().message, Catch::Contains("certificate verify failed"));
  untrusted.tls.insecure_skip_verify = true;
  CHECK(client_for(untrusted)->exec("default", "w", "c", {"true"}));
}
