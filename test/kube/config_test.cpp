#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "apimachinery/base64.hpp"
#include "operator/kube/config.hpp"

using namespace respool::kube;
using respool::apimachinery::base64_encode;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("respool-config-test-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  fs::path write(const std::string& name, const std::string& content) const {
    fs::path p = path / name;
    std::ofstream(p) << content;
    return p;
  }
};

const char* kTwoContexts = R"(apiVersion: v1
kind: Config
current-context: a
clusters:
- name: ca
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority-data: )";

}  // namespace

TEST_CASE("kubeconfig with token and CA data", "[kube][config]") {
  TempDir dir;
  std::string ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  auto path = dir.write("config", std::string(kTwoContexts) + base64_encode(ca) + R"(
- name: cb
  cluster:
    server: http://127.0.0.1:8080
    insecure-skip-tls-verify: true
contexts:
- name: a
  context: {cluster: ca, user: ua}
- name: b
  context: {cluster: cb, user: ub}
users:
- name: ua
  user: {token: secret-a}
- name: ub
  user: {tokenFile: token-b}
)");
  dir.write("token-b", "secret-b\n");

  auto a = load_kubeconfig(path, std::nullopt);
  REQUIRE(a);
  CHECK(a->server == "https://127.0.0.1:6443");
  CHECK(a->tls.ca_pem == ca);
  CHECK(a->token == "secret-a");
  CHECK(a->context == "a");
  CHECK_FALSE(a->tls.insecure_skip_verify);

  auto b = load_kubeconfig(path, std::string("b"));
  REQUIRE(b);
  CHECK(b->server == "http://127.0.0.1:8080");
  CHECK(b->tls.insecure_skip_verify);
  CHECK(b->token.empty());
  CHECK(b->token_file == dir.path / "token-b");  // relative to the kubeconfig's folder

  auto missing = load_kubeconfig(path, std::string("nope"));
  REQUIRE_FALSE(missing);
  CHECK_THAT(missing.error(), Catch::Contains("context \"nope\" not found"));
}

TEST_CASE("kubeconfig client certificate files and errors name the field", "[kube][config]") {
  TempDir dir;
  dir.write("ca.crt", "CA");
  dir.write("client.crt", "CERT");
  dir.write("client.key", "KEY");
  auto path = dir.write("config", R"(apiVersion: v1
kind: Config
current-context: c
clusters:
- name: k
  cluster: {server: "https://localhost:1", certificate-authority: ca.crt}
contexts:
- name: c
  context: {cluster: k, user: u}
users:
- name: u
  user: {client-certificate: client.crt, client-key: client.key}
)");
  auto c = load_kubeconfig(path, std::nullopt);
  REQUIRE(c);
  CHECK(c->tls.ca_pem == "CA");
  CHECK(c->tls.cert_pem == "CERT");
  CHECK(c->tls.key_pem == "KEY");

  auto exec = dir.write("exec", R"(current-context: c
clusters: [{name: k, cluster: {server: "https://x:1"}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
users: [{name: u, user: {exec: {command: aws}}}]
)");
  auto e = load_kubeconfig(exec, std::nullopt);
  REQUIRE_FALSE(e);
  CHECK_THAT(e.error(), Catch::Contains("users[u].user.exec") && Catch::Contains("not supported"));

  auto half = dir.write("half", R"(current-context: c
clusters: [{name: k, cluster: {server: "https://x:1"}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
users: [{name: u, user: {client-certificate-data: Q0VSVA==}}]
)");
  auto h = load_kubeconfig(half, std::nullopt);
  REQUIRE_FALSE(h);
  CHECK_THAT(h.error(), Catch::Contains("both the certificate and the key"));

  auto bad_ca = dir.write("badca", R"(current-context: c
clusters: [{name: k, cluster: {server: "https://x:1", certificate-authority: missing.crt}}]
contexts: [{name: c, context: {cluster: k}}]
)");
  auto b = load_kubeconfig(bad_ca, std::nullopt);
  REQUIRE_FALSE(b);
  CHECK_THAT(b.error(), Catch::Contains("certificate-authority") && Catch::Contains("missing.crt"));
}

TEST_CASE("resolve_config order: flag, KUBECONFIG, in cluster, home", "[kube][config]") {
  TempDir dir;
  auto one = dir.write("one", R"(current-context: c
clusters: [{name: k, cluster: {server: "https://one:1"}}]
contexts: [{name: c, context: {cluster: k}}]
)");
  auto two = dir.write("two", R"(current-context: d
clusters: [{name: k, cluster: {server: "https://two:1"}}, {name: k2, cluster: {server: "https://two2:1"}}]
contexts: [{name: d, context: {cluster: k2}}]
)");
  ::setenv("KUBECONFIG",
           (dir.path / "absent")
               .string()
               .append(":")
               .append(one.string())
               .append(":")
               .append(two.string())
               .c_str(),
           1);
  auto merged = resolve_config({});
  REQUIRE(merged);
  // The first file that sets current-context wins; the first definition of a name wins.
  CHECK(merged->server == "https://one:1");
  auto flag = resolve_config({two, std::nullopt});
  REQUIRE(flag);
  CHECK(flag->server == "https://two2:1");
  ::unsetenv("KUBECONFIG");

  // In cluster: service host and port plus the service-account files under a root.
  fs::create_directories(dir.path / "var/run/secrets/kubernetes.io/serviceaccount");
  dir.write("var/run/secrets/kubernetes.io/serviceaccount/token", "sa-token");
  dir.write("var/run/secrets/kubernetes.io/serviceaccount/ca.crt", "SA-CA");
  ::setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
  ::setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  auto in = in_cluster_config(dir.path);
  REQUIRE(in);
  CHECK(in->server == "https://[fd00::1]:443");
  CHECK(in->tls.ca_pem == "SA-CA");
  CHECK(in->token_file == dir.path / "var/run/secrets/kubernetes.io/serviceaccount/token");
  ::unsetenv("KUBERNETES_SERVICE_HOST");
  ::unsetenv("KUBERNETES_SERVICE_PORT");
  auto none = in_cluster_config(dir.path);
  REQUIRE_FALSE(none);
  CHECK_THAT(none.error(), Catch::Contains("KUBERNETES_SERVICE_HOST"));
}
