// Watch framing as k8s-reference/watch-*.txt shows it.

#include <catch2/catch.hpp>

#include "harness.hpp"

using namespace respool::sandbox::testing;
using respool::sandbox::testing::Json;

namespace {

Json cm(const std::string& name, Json labels = Json::object()) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"labels", labels}}},
          {"data", {{"k", "v"}}}};
}

std::string list_rv(Harness& h, const std::string& path) {
  return h.get(path).json()["metadata"]["resourceVersion"];
}

}  // namespace

TEST_CASE("a watch sends events after its resourceVersion, one JSON line per chunk",
          "[conformance][watch]") {
  Harness h;
  REQUIRE(h.post("/api/v1/namespaces/default/configmaps", cm("before")).status == 201);
  std::string rv = list_rv(h, "/api/v1/namespaces/default/configmaps");
  auto w = h.watch("/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=" + rv);
  REQUIRE(h.post("/api/v1/namespaces/default/configmaps", cm("a")).status == 201);
  REQUIRE(h.patch("/api/v1/namespaces/default/configmaps/a", {{"data", {{"k", "2"}}}}).status ==
          200);
  REQUIRE(h.del("/api/v1/namespaces/default/configmaps/a").status == 200);
  auto events = w->events(3);
  REQUIRE(events.size() == 3);
  REQUIRE(w->responder().reply.status == 200);
  REQUIRE(w->responder().reply.header("Content-Type") == "application/json");
  REQUIRE(events[0]["type"] == "ADDED");
  REQUIRE(events[1]["type"] == "MODIFIED");
  REQUIRE(events[2]["type"] == "DELETED");
  REQUIRE(events[0]["object"]["kind"] == "ConfigMap");
  REQUIRE(events[0]["object"]["metadata"]["name"] == "a");
  for (const std::string& chunk : w->responder().writer.chunks())
    REQUIRE(chunk.back() == '\n');
}

TEST_CASE("a watch from rv 0 with bookmarks sends the state, then initial-events-end",
          "[conformance][watch]") {
  Harness h;
  REQUIRE(h.post("/api/v1/namespaces/default/configmaps", cm("x")).status == 201);
  auto w = h.watch(
      "/api/v1/namespaces/default/"
      "configmaps?allowWatchBookmarks=true&resourceVersion=0&watch=true");
  auto events = w->events(2);
  REQUIRE(events.size() == 2);
  REQUIRE(events[0]["type"] == "ADDED");
  REQUIRE(events[1]["type"] == "BOOKMARK");
  Json meta = events[1]["object"]["metadata"];
  REQUIRE(meta["annotations"]["k8s.io/initial-events-end"] == "true");
  REQUIRE(meta["annotations"]["kubernetes.io/initial-events-list-blueprint"] ==
          "eyJraW5kIjoiQ29uZmlnTWFwTGlzdCIsImFwaVZlcnNpb24iOiJ2MSIsIm1ldGFkYXRhIjp7fSwiaXRlbXMiOm51"
          "bGx9Cg==");
  REQUIRE(meta.contains("creationTimestamp"));
  REQUIRE(meta["creationTimestamp"].is_null());
}

TEST_CASE("a watch from a compacted rv gets 200 and one 410 Expired ERROR event",
          "[conformance][watch]") {
  Harness h(nullptr, 2);
  for (int i = 0; i < 5; ++i) {
    REQUIRE(h.post("/api/v1/namespaces/default/configmaps", cm("c" + std::to_string(i))).status ==
            201);
  }
  auto w = h.watch("/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=1");
  REQUIRE(w->wait_finished());
  auto events = w->events(1);
  REQUIRE(w->responder().reply.status == 200);
  REQUIRE(events.size() == 1);
  REQUIRE(events[0]["type"] == "ERROR");
  Json status = events[0]["object"];
  REQUIRE(status["kind"] == "Status");
  REQUIRE(status["code"] == 410);
  REQUIRE(status["reason"] == "Expired");
  REQUIRE(status["message"].get<std::string>().rfind("too old resource version: 1 (", 0) == 0);
}

TEST_CASE("timeoutSeconds ends a watch after a bookmark ~2s before", "[conformance][watch]") {
  respool::runtime::ManualClock clock;
  Harness h(&clock);
  std::string rv = list_rv(h, "/api/v1/nodes");
  auto w = h.watch("/api/v1/nodes?allowWatchBookmarks=true&resourceVersion=" + rv +
                   "&timeoutSeconds=5&watch=true");
  REQUIRE(w->wait_streaming());
  REQUIRE(w->responder().writer.chunks().empty());
  clock.advance(std::chrono::milliseconds(3100));
  auto events = w->events(1);
  REQUIRE(events.size() == 1);
  REQUIRE(events[0]["type"] == "BOOKMARK");
  REQUIRE(events[0]["object"]["kind"] == "Node");
  REQUIRE(events[0]["object"]["status"]["nodeInfo"]["kubeletVersion"] == "");
  REQUIRE_FALSE(w->finished());
  clock.advance(std::chrono::seconds(2));
  REQUIRE(w->wait_finished());
}

TEST_CASE("selector transitions: leaving is DELETED, entering is ADDED", "[conformance][watch]") {
  Harness h;
  REQUIRE(h.post("/api/v1/namespaces/default/configmaps", cm("t", {{"sel", "yes"}})).status == 201);
  std::string rv = list_rv(h, "/api/v1/namespaces/default/configmaps");
  auto w = h.watch(
      "/api/v1/namespaces/default/configmaps?watch=true&labelSelector=sel%3Dyes&resourceVersion=" +
      rv);
  REQUIRE(h.patch("/api/v1/namespaces/default/configmaps/t",
                  {{"metadata", {{"labels", {{"sel", "no"}}}}}})
              .status == 200);
  REQUIRE(h.patch("/api/v1/namespaces/default/configmaps/t",
                  {{"metadata", {{"labels", {{"sel", "yes"}}}}}})
              .status == 200);
  REQUIRE(h.post("/api/v1/namespaces/default/configmaps", cm("other")).status == 201);
  auto events = w->events(2);
  REQUIRE(events.size() == 2);
  REQUIRE(events[0]["type"] == "DELETED");
  REQUIRE(events[0]["object"]["metadata"]["labels"]["sel"] == "yes");
  REQUIRE(events[1]["type"] == "ADDED");
  REQUIRE(w->responder().writer.wait_for(3, 0.3).size() == 2);
}

TEST_CASE("kubectl get -w: one-row Tables, columns only in the first",
          "[conformance][watch][tables]") {
  Harness h;
  std::string rv = list_rv(h, "/api/v1/nodes");
  auto w =
      h.watch("/api/v1/nodes?resourceVersion=" + rv + "&watch=true&timeoutSeconds=60",
              "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
              "g=meta.k8s.io,application/json");
  Json node = {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "ref-tw-1"}}}};
  REQUIRE(h.post("/api/v1/nodes", node).status == 201);
  REQUIRE(h.patch("/api/v1/nodes/ref-tw-1", {{"metadata", {{"labels", {{"x", "y"}}}}}}).status ==
          200);
  auto events = w->events(2);
  REQUIRE(events.size() == 2);
  REQUIRE(events[0]["object"]["kind"] == "Table");
  REQUIRE(events[0]["object"]["columnDefinitions"].size() == 10);
  REQUIRE(events[0]["object"]["rows"].size() == 1);
  REQUIRE(events[0]["object"]["rows"][0]["cells"][0] == "ref-tw-1");
  REQUIRE(events[0]["object"]["rows"][0]["cells"][1] == "Unknown");
  REQUIRE(events[1]["object"]["columnDefinitions"].is_null());
}

TEST_CASE("a watch of one object by metadata.name", "[conformance][watch]") {
  Harness h;
  std::string rv = list_rv(h, "/api/v1/namespaces/default/configmaps");
  auto w = h.watch(
      "/api/v1/namespaces/default/"
      "configmaps?watch=true&fieldSelector=metadata.name%3Done&resourceVersion=" +
      rv);
  REQUIRE(h.post("/api/v1/namespaces/default/configmaps", cm("two")).status == 201);
  REQUIRE(h.post("/api/v1/namespaces/default/configmaps", cm("one")).status == 201);
  auto events = w->events(1);
  REQUIRE(events.size() == 1);
  REQUIRE(events[0]["object"]["metadata"]["name"] == "one");
}

TEST_CASE("close_watches ends open watches; expire_next_watches answers 410",
          "[conformance][faults][watch]") {
  Harness h;
  auto w = h.watch("/api/v1/namespaces/default/configmaps?watch=true");
  REQUIRE(w->wait_streaming());
  h.faults().close_watches();
  {
    std::lock_guard lock(h.engine().store().mutex());
    h.engine().store().changed().notify_all();
  }
  REQUIRE(w->wait_finished());
  h.faults().expire_next_watches(1);
  auto x = h.watch("/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=1");
  REQUIRE(x->wait_finished());
  auto events = x->events(1);
  REQUIRE(events[0]["type"] == "ERROR");
  REQUIRE(events[0]["object"]["code"] == 410);
}
