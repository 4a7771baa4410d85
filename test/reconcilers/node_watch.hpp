#pragma once
// Watches every Node change through the API (not the operator's status) and keeps, at every
// change, how many nodes of a pool are in each kind of node operation, so that a test checks
// limits as the cluster lived them, not as the operator reports them.

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "test/reconcilers/harness.hpp"

namespace respool::test {

class NodeWatch {
 public:
  NodeWatch(kube::Client& client, std::string pool) : client_(client), pool_(std::move(pool)) {
    auto list = client_.list(kube::resources::nodes, "");
    REQUIRE(list);
    for (const auto& n : (*list)["items"])
      observe(n);
    rv_ = (*list)["metadata"].value("resourceVersion", "");
    thread_ = std::thread([this] { run(); });
  }
  ~NodeWatch() {
    stop_ = true;  // the watch thread looks every 200 ms
    thread_.join();
  }

  // The most nodes of the pool seen at once in an operation of `type` (Replace, Reset, Delete).
  int most(const std::string& type) {
    std::lock_guard lock(mu_);
    return most_[type];
  }
  // Every node of the pool seen at some moment in `kind` (an operation type, "upgrade", ...).
  std::set<std::string> ever(const std::string& kind) {
    std::lock_guard lock(mu_);
    return ever_[kind];
  }
  // Each change of the node as the watch saw it: {in the pool, kind, its driver version}.
  struct Seen {
    bool in_pool = false;
    std::string kind, driver, state;  // state: respool.io/driver-upgrade-state
    std::string describe() const {
      return std::string(in_pool ? "in" : "out") + "/" + kind + "/" + driver + "/" + state;
    }
  };
  std::vector<Seen> history(const std::string& node) {
    std::lock_guard lock(mu_);
    return history_[node];
  }
  int most_in_admission() {
    std::lock_guard lock(mu_);
    return most_["admission"];
  }
  int events() {
    std::lock_guard lock(mu_);
    return events_;
  }
  // What the watch went through, for a failing check's message.
  std::string log() {
    std::lock_guard lock(mu_);
    return log_ + " events=" + std::to_string(events_);
  }

 private:
  void run() {
    while (!stop_) {
      kube::WatchOptions o;
      o.resource_version = rv_;
      o.timeout_seconds = 30;
      auto stream = client_.watch(kube::resources::nodes, "", o);
      if (!stream) {
        note("watch from " + rv_ + ": " + stream.error().describe());
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        continue;
      }
      if (rv_ != last_noted_) note("watching from " + rv_);
      last_noted_ = rv_;
      stream_ = std::move(*stream);
      while (!stop_) {
        auto line = stream_->next_line(std::chrono::milliseconds(200));
        if (!line) {
          // A read that times out closes the connection (operator/http): watch again from
          // the last version seen.
          if (!line.error().is(kube::Error::Kind::Timeout))
            note("read: " + line.error().describe());
          break;
        }
        if (!*line) {
          note("closed");
          break;
        }
        auto event = kube::Json::parse(**line, nullptr, false);
        if (event.is_discarded() || !event.contains("object")) continue;
        const auto& object = event["object"];
        if (event.value("type", "") == "ERROR") note("ERROR " + object.dump());
        if (event.value("type", "") == "BOOKMARK" || event.value("type", "") == "ERROR") {
          rv_ = object["metadata"].value("resourceVersion", rv_);
          continue;
        }
        if (event.value("type", "") == "DELETED") {
          std::lock_guard lock(mu_);
          state_.erase(object["metadata"].value("name", ""));
        } else {
          observe(object);
        }
        rv_ = object["metadata"].value("resourceVersion", rv_);
      }
    }
  }

  void note(const std::string& what) {
    std::lock_guard lock(mu_);
    if (log_.size() < 4000) log_ += what + "; ";
  }

  void observe(const kube::Json& node) {
    const auto& meta = node["metadata"];
    const std::string name = meta.value("name", "");
    const kube::Json labels = meta.value("labels", kube::Json::object());
    const kube::Json annotations = meta.value("annotations", kube::Json::object());
    std::string kind;
    if (labels.value("respool.io/pool", "") == pool_) {
      kind = annotations.value("respool.io/node-operation-type", "");
      if (kind.empty() && has_taint(node, "isolation.respool.io/A200008")) kind = "admission";
      // Between cordon and uncordon of a driver upgrade (D2's batch).
      static const std::set<std::string> in_flight = {
          "cordon-required",         "wait-for-jobs-required", "pod-deletion-required",
          "driver-restart-required", "validation-required",    "uncordon-required"};
      if (kind.empty() && in_flight.contains(labels.value("respool.io/driver-upgrade-state", "")))
        kind = "upgrade";
    }
    std::lock_guard lock(mu_);
    ++events_;
    state_[name] = kind;
    history_[name].push_back({labels.value("respool.io/pool", "") == pool_, kind,
                              labels.value("respool.io/driver-version", ""),
                              labels.value("respool.io/driver-upgrade-state", "")});
    if (!kind.empty()) ever_[kind].insert(name);
    std::map<std::string, int> now;
    for (const auto& [n, k] : state_) {
      if (!k.empty()) ++now[k];
    }
    for (const auto& [k, count] : now)
      most_[k] = std::max(most_[k], count);
  }

  kube::Client& client_;
  std::string pool_;
  std::string rv_;
  std::atomic<bool> stop_{false};
  std::unique_ptr<kube::WatchStream> stream_;
  std::thread thread_;
  std::mutex mu_;
  std::map<std::string, std::string> state_;  // node → operation type, "admission" or ""
  std::map<std::string, int> most_;
  std::map<std::string, std::set<std::string>> ever_;
  std::map<std::string, std::vector<Seen>> history_;
  int events_ = 0;
  std::string log_;
  std::string last_noted_;
};

}  // namespace respool::test
