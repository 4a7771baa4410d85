#include "test/soak/node_history.hpp"

#include <chrono>

namespace respool::soak {

using namespace std::chrono_literals;

void NodeHistory::start() {
  while (!list())
    std::this_thread::sleep_for(200ms);
  thread_ = std::thread([this] { run(); });
}

void NodeHistory::stop() {
  stopping_ = true;
  {
    std::lock_guard lock(mu_);
    if (stream_) stream_->cancel();
  }
  if (thread_.joinable()) thread_.join();
}

void NodeHistory::seen(const Json& node, bool across_gap) {
  ++versions_;
  const Json& m = node["metadata"];
  const std::string name = m.value("name", "");
  const std::string pool = m.value("labels", Json::object()).value("respool.io/pool", "");
  std::lock_guard lock(mu_);
  auto [it, fresh] = pool_of_.emplace(name, "");
  const std::string last = it->second;
  it->second = pool;
  if (pool == last) return;
  if (!last.empty() && !pool.empty() && !across_gap && !fresh) {
    breaches_.push_back({"claim", "node " + name + " went from pool " + last + " to pool " + pool +
                                      " in one write (resourceVersion " +
                                      m.value("resourceVersion", "") + ")"});
  }
  if (!last.empty()) leaves_.emplace_back(last, name);
  if (!pool.empty()) joins_.emplace_back(pool, name);
}

bool NodeHistory::list() {
  auto listed = client_.list(kube::resources::nodes, "");
  if (!listed) return false;
  const bool gap = !resource_version_.empty();
  for (const Json& node : listed->value("items", Json::array()))
    seen(node, gap);
  std::lock_guard lock(mu_);
  resource_version_ = (*listed)["metadata"].value("resourceVersion", "");
  return true;
}

bool NodeHistory::watch(std::string& outcome) {
  kube::WatchOptions options;
  {
    std::lock_guard lock(mu_);
    options.resource_version = resource_version_;
  }
  options.timeout_seconds = 300;
  auto stream = client_.watch(kube::resources::nodes, "", options);
  if (!stream) {
    outcome = stream.error().is(kube::Error::Kind::Gone) ? "gone" : "failed";
    return false;
  }
  {
    std::lock_guard lock(mu_);
    if (stopping_) return false;
    stream_ = std::move(*stream);
  }
  for (;;) {
    auto line = stream_->next_line(330s);
    if (!line || !line->has_value()) break;  // ended: resumed from the last version
    const Json event = Json::parse(**line, nullptr, false);
    const std::string type = event.value("type", "");
    const Json& object = event.contains("object") ? event["object"] : Json::object();
    if (type == "ERROR") {
      outcome = object.value("code", 0) == 410 ? "gone" : "failed";
      break;
    }
    const std::string rv = object.value("metadata", Json::object()).value("resourceVersion", "");
    if (type == "ADDED" || type == "MODIFIED") seen(object, false);
    std::lock_guard lock(mu_);
    if (!rv.empty()) resource_version_ = rv;
  }
  std::lock_guard lock(mu_);
  stream_.reset();
  return outcome.empty();
}

void NodeHistory::run() {
  while (!stopping_) {
    std::string outcome;
    if (watch(outcome) || stopping_) continue;
    if (outcome == "gone") {
      ++relists_;
      while (!stopping_ && !list())
        std::this_thread::sleep_for(200ms);
    } else {
      std::this_thread::sleep_for(200ms);
    }
  }
}

std::vector<Breach> NodeHistory::breaches() const {
  std::lock_guard lock(mu_);
  return breaches_;
}

std::vector<std::pair<std::string, std::string>> NodeHistory::joins() const {
  std::lock_guard lock(mu_);
  return joins_;
}

std::vector<std::pair<std::string, std::string>> NodeHistory::leaves() const {
  std::lock_guard lock(mu_);
  return leaves_;
}

}  // namespace respool::soak
