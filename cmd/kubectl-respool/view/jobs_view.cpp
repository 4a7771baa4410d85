#include "cmd/kubectl-respool/view/jobs_view.hpp"

#include <map>
#include <set>
#include <tuple>

#include "cmd/kubectl-respool/view/object_read.hpp"
#include "reconcilers/policy/node_view.hpp"

namespace respool::kubectl {
namespace {

using namespace read;

std::pair<std::string, std::string> owner_of(const Json& pod) {
  const Json& refs = at(pod, {"metadata", "ownerReferences"});
  if (refs.is_array())
    for (const Json& ref : refs)
      if (at(ref, {"controller"}) == true) return {str(ref, {"kind"}), str(ref, {"name"})};
  return {"Pod", str(pod, {"metadata", "name"})};
}

struct RunningJob {
  int pods = 0;
  long long priority = 0;
  Json since;  // the oldest pod's creation
};

std::map<std::tuple<std::string, std::string, std::string>, RunningJob> running_jobs(
    const Json& nodes, const Json& pods) {
  // A set: every pod of the cluster is looked up in it.
  std::set<std::string, std::less<>> pool_nodes;
  for (const Json& node : items(nodes))
    pool_nodes.insert(str(node, {"metadata", "name"}));
  std::map<std::tuple<std::string, std::string, std::string>, RunningJob> jobs;
  for (const Json& pod : items(pods)) {
    auto node = policy::running_job_node(pod);
    if (!node || !pool_nodes.contains(*node)) continue;
    auto [kind, name] = owner_of(pod);
    RunningJob& job = jobs[{str(pod, {"metadata", "namespace"}), kind, name}];
    ++job.pods;
    const Json& priority = at(pod, {"spec", "priority"});
    if (priority.is_number_integer()) job.priority = priority.get<long long>();
    const Json& created = at(pod, {"metadata", "creationTimestamp"});
    if (job.since.is_null() || (created.is_string() && created < job.since)) job.since = created;
  }
  return jobs;
}

}  // namespace

Table jobs_table(const Json& pool, const Json& nodes, const Json& pods, bool wide,
                 Clock::time_point now) {
  Table t{{"NAMESPACE", "NAME", "KIND", "STATUS", "POSITION", "PRIORITY", "PODS", "AGE"}, {}};
  if (wide) t.headers.push_back("WAITING-FOR");
  for (const auto& [key, job] : running_jobs(nodes, pods)) {
    const auto& [ns, kind, name] = key;
    t.rows.push_back({ns, name, kind, "Running", "", std::to_string(job.priority),
                      std::to_string(job.pods), age_since(job.since, now)});
  }
  const Json& queue = at(pool, {"status", "jobs", "queue"});
  for (const Json& q : queue.is_array() ? queue : Json::array()) {
    std::vector<std::string> row{str(q, {"namespace"}), str(q, {"name"}),
                                 str(q, {"kind"}),      "Pending",
                                 num(q, {"position"}),  num(q, {"priority"}),
                                 num(q, {"pods"}),      age_since(at(q, {"since"}), now)};
    if (wide) row.push_back(str(q, {"waitingFor"}));
    t.rows.push_back(std::move(row));
  }
  return t;
}

Json jobs_data(const Json& pool, const Json& nodes, const Json& pods) {
  Json running = Json::array();
  for (const auto& [key, job] : running_jobs(nodes, pods)) {
    const auto& [ns, kind, name] = key;
    running.push_back({{"namespace", ns},
                       {"name", name},
                       {"kind", kind},
                       {"pods", job.pods},
                       {"priority", job.priority},
                       {"since", job.since}});
  }
  const Json& jobs = at(pool, {"status", "jobs"});
  return {{"pool", str(pool, {"metadata", "name"})},
          {"running", std::move(running)},
          {"jobs", jobs.is_object() ? jobs : Json::object()}};
}

}  // namespace respool::kubectl
