// The API server over real HTTPS: authentication, the kubeconfig it writes, a watch stream.

#include <catch2/catch.hpp>

#include "operator/http/client.hpp"
#include "operator/kube/config.hpp"
#include "sandbox/apiserver/api_server.hpp"

using respool::sandbox::ApiServer;
using respool::sandbox::ApiServerOptions;
namespace http = respool::http;
using Json = nlohmann::json;
using namespace std::chrono_literals;

namespace {

http::ClientOptions client_options(const ApiServer& s) {
  http::ClientOptions o;
  o.endpoint = *http::parse_url(s.url());
  o.tls.ca_pem = s.ca_cert_pem();
  return o;
}

http::Request request(const std::string& method, const std::string& target,
                      const std::string& token, const std::string& body = "") {
  http::Request r;
  r.method = method;
  r.target = target;
  r.body = body;
  r.headers.set("Accept", "application/json");
  if (!body.empty()) r.headers.set("Content-Type", "application/json");
  if (!token.empty()) r.headers.set("Authorization", "Bearer " + token);
  return r;
}

}  // namespace

TEST_CASE("HTTPS with a token, a client certificate, or nothing", "[conformance][http][auth]") {
  auto started = ApiServer::start(ApiServerOptions{});
  REQUIRE(started);
  ApiServer& s = **started;
  REQUIRE(s.url().rfind("https://127.0.0.1:", 0) == 0);
  http::Client client(client_options(s));

  auto ok = client.send(request("GET", "/api/v1/namespaces", s.token()), 20s);
  REQUIRE(ok);
  REQUIRE(ok->status == 200);
  REQUIRE(Json::parse(ok->body)["items"].size() == 4);

  auto anon = client.send(request("GET", "/api/v1/namespaces", ""), 20s);
  REQUIRE(anon);
  REQUIRE(anon->status == 403);
  REQUIRE(Json::parse(anon->body)["message"] ==
          "namespaces is forbidden: User \"system:anonymous\" cannot list resource \"namespaces\" "
          "in API group \"\" at the cluster scope");
  auto bad = client.send(request("GET", "/api/v1/namespaces", "wrong"), 20s);
  REQUIRE(bad);
  REQUIRE(bad->status == 401);

  auto cert = s.issue_client_cert("alice", {"dev"});
  REQUIRE(cert);
  http::ClientOptions with_cert = client_options(s);
  with_cert.tls.cert_pem = cert->cert_pem;
  with_cert.tls.key_pem = cert->key_pem;
  http::Client cert_client(with_cert);
  // The certificate's CN and O are the user and groups RBAC sees: group dev holds nothing yet.
  auto by_cert = cert_client.send(request("GET", "/api/v1/nodes", ""), 20s);
  REQUIRE(by_cert);
  REQUIRE(by_cert->status == 403);
  REQUIRE(Json::parse(by_cert->body)["message"] ==
          "nodes is forbidden: User \"alice\" cannot list resource \"nodes\" in API group \"\" at "
          "the cluster scope");
  Json grant = {
      {"metadata", {{"name", "dev-admin"}}},
      {"roleRef",
       {{"apiGroup", "rbac.authorization.k8s.io"},
        {"kind", "ClusterRole"},
        {"name", "cluster-admin"}}},
      {"subjects",
       {{{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Group"}, {"name", "dev"}}}}};
  auto granted =
      client.send(request("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
                          s.token(), grant.dump()),
                  20s);
  REQUIRE(granted);
  REQUIRE(granted->status == 201);
  by_cert = cert_client.send(request("GET", "/api/v1/nodes", ""), 20s);
  REQUIRE(by_cert);
  REQUIRE(by_cert->status == 200);

  auto config = respool::kube::load_kubeconfig(s.kubeconfig_path(), std::nullopt);
  REQUIRE(config);
  REQUIRE(config->server == s.url());
  REQUIRE(config->token == s.token());
  REQUIRE(config->tls.ca_pem == s.ca_cert_pem());
  s.stop();
}

TEST_CASE("a watch streams over HTTP, one event per line", "[conformance][http][watch]") {
  ApiServerOptions options;
  options.tls = false;
  auto started = ApiServer::start(options);
  REQUIRE(started);
  ApiServer& s = **started;
  REQUIRE(s.url().rfind("http://", 0) == 0);
  http::Client client(client_options(s));
  auto stream = client.open(
      request("GET", "/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=30",
              s.token()),
      20s);
  REQUIRE(stream);
  REQUIRE((*stream)->status() == 200);
  Json cm = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "w"}}}};
  auto created = client.send(
      request("POST", "/api/v1/namespaces/default/configmaps", s.token(), cm.dump()), 20s);
  REQUIRE(created);
  REQUIRE(created->status == 201);
  auto line = (*stream)->read_line(20s);
  REQUIRE(line);
  REQUIRE(line->has_value());
  Json event = Json::parse(**line);
  REQUIRE(event["type"] == "ADDED");
  REQUIRE(event["object"]["metadata"]["name"] == "w");
  (*stream)->cancel();
  s.stop();
}
