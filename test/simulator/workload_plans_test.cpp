// The StatefulSet, CronJob and endpoints controllers' decisions, and cron schedules, without a
// server.

#include <catch2/catch.hpp>

#include "apimachinery/time.hpp"
#include "sandbox/simulator/cron_schedule.hpp"
#include "sandbox/simulator/cronjob_plan.hpp"
#include "sandbox/simulator/endpoints_plan.hpp"
#include "sandbox/simulator/statefulset_plan.hpp"

using namespace respool::sandbox::sim;
using Json = nlohmann::json;
using respool::apimachinery::format_time;
using respool::apimachinery::parse_time;

namespace {

const auto kNow = *parse_time("2026-01-05T10:07:30Z");  // a Monday

std::vector<const Json*> ptrs(const std::vector<Json>& v) {
  std::vector<const Json*> out;
  for (const auto& j : v)
    out.push_back(&j);
  return out;
}

Json make_sts(int replicas, const std::string& image) {
  Json s = Json::parse(R"({
    "metadata": {"name": "db", "namespace": "ns", "uid": "sts-uid", "generation": 2},
    "spec": {"serviceName": "db", "selector": {"matchLabels": {"app": "db"}},
             "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
             "revisionHistoryLimit": 1,
             "template": {"metadata": {"labels": {"app": "db"}},
                          "spec": {"containers": [{"name": "db", "image": ""}]}}}})");
  s["spec"]["replicas"] = replicas;
  s["spec"]["template"]["spec"]["containers"][0]["image"] = image;
  return s;
}

// A pod of `set` at `ordinal` as the API holds it once it runs (ready or not).
Json running(const Json& pod, bool ready) {
  Json p = pod;
  p["metadata"]["uid"] = p["metadata"]["name"];
  p["status"] = {{"phase", "Running"}};
  p["status"]["conditions"] = {{{"type", "Ready"},
                                {"status", ready ? "True" : "False"},
                                {"lastTransitionTime", "2026-01-01T00:00:00Z"}}};
  return p;
}

std::vector<std::string> names(const std::vector<Json>& objects) {
  std::vector<std::string> out;
  for (const auto& o : objects)
    out.push_back(o["metadata"]["name"]);
  return out;
}

}  // namespace

TEST_CASE("a StatefulSet starts pods in order and keeps its revisions",
          "[simulator][statefulset]") {
  Json sts = make_sts(3, "pg:16");
  StatefulSetPlan plan = plan_statefulset(sts, {}, {}, kNow);
  REQUIRE(plan.create_revision);
  const Json revision = *plan.create_revision;
  const std::string rev = revision["metadata"]["name"];
  CHECK(rev.starts_with("db-"));
  CHECK(revision["revision"] == 1);
  CHECK(revision["metadata"]["labels"]["app"] == "db");
  CHECK(revision["metadata"]["labels"].contains("controller.kubernetes.io/hash"));
  CHECK(revision["data"]["spec"]["template"]["$patch"] == "replace");
  CHECK(names(plan.create) == std::vector<std::string>{"db-0"});  // one at a time
  const Json& pod = plan.create[0];
  CHECK(pod["metadata"]["labels"]["controller-revision-hash"] == rev);
  CHECK(pod["metadata"]["labels"]["apps.kubernetes.io/pod-index"] == "0");
  CHECK(pod["spec"]["hostname"] == "db-0");
  CHECK(pod["spec"]["subdomain"] == "db");
  CHECK(plan.status == Json({{"observedGeneration", 2},
                             {"replicas", 0},
                             {"availableReplicas", 0},
                             {"currentRevision", rev},
                             {"updateRevision", rev},
                             {"collisionCount", 0}}));

  // db-0 runs but is not ready: wait. Ready: db-1 next.
  std::vector<Json> revisions = {revision};
  std::vector<Json> pods = {running(plan.create[0], false)};
  plan = plan_statefulset(sts, ptrs(pods), ptrs(revisions), kNow);
  CHECK_FALSE(plan.create_revision);
  CHECK(plan.create.empty());
  pods = {running(pods[0], true)};
  plan = plan_statefulset(sts, ptrs(pods), ptrs(revisions), kNow);
  CHECK(names(plan.create) == std::vector<std::string>{"db-1"});
  CHECK(plan.status["readyReplicas"] == 1);
  // Parallel: every missing pod at once.
  sts["spec"]["podManagementPolicy"] = "Parallel";
  CHECK(names(plan_statefulset(sts, ptrs(pods), ptrs(revisions), kNow).create) ==
        std::vector<std::string>{"db-1", "db-2"});
}

TEST_CASE("a StatefulSet scales down from the top and updates from the top",
          "[simulator][statefulset]") {
  Json sts = make_sts(3, "pg:16");
  StatefulSetPlan first = plan_statefulset(sts, {}, {}, kNow);
  std::vector<Json> revisions = {*first.create_revision};
  std::vector<Json> pods;
  for (int i = 0; i < 3; ++i) {
    Json p = first.create[0];
    p["metadata"]["name"] = "db-" + std::to_string(i);
    pods.push_back(running(p, true));
  }
  // Scale to 1: db-2 first, then (once it is gone) db-1.
  Json smaller = make_sts(1, "pg:16");
  smaller["status"]["currentRevision"] = revisions[0]["metadata"]["name"];
  CHECK(plan_statefulset(smaller, ptrs(pods), ptrs(revisions), kNow).remove ==
        std::vector<std::string>{"db-2"});

  // A new image: a new revision; db-2 is deleted first, and only once db-2 runs ready at the
  // new revision does db-1 go.
  Json updated = make_sts(3, "pg:17");
  updated["status"]["currentRevision"] = revisions[0]["metadata"]["name"];
  StatefulSetPlan plan = plan_statefulset(updated, ptrs(pods), ptrs(revisions), kNow);
  REQUIRE(plan.create_revision);
  CHECK((*plan.create_revision)["revision"] == 2);
  CHECK(plan.remove == std::vector<std::string>{"db-2"});
  const std::string next = (*plan.create_revision)["metadata"]["name"];
  revisions.push_back(*plan.create_revision);
  pods[2]["metadata"]["labels"]["controller-revision-hash"] = next;
  plan = plan_statefulset(updated, ptrs(pods), ptrs(revisions), kNow);
  CHECK(plan.remove == std::vector<std::string>{"db-1"});
  CHECK(plan.status["currentReplicas"] == 2);
  CHECK(plan.status["updatedReplicas"] == 1);
  CHECK(plan.status["currentRevision"] == revisions[0]["metadata"]["name"]);
  // A partition of 2 keeps db-0 and db-1 at the old revision.
  updated["spec"]["updateStrategy"]["rollingUpdate"]["partition"] = 2;
  CHECK(plan_statefulset(updated, ptrs(pods), ptrs(revisions), kNow).remove.empty());
  // All updated: the update revision becomes the current one; the old is history (limit 1).
  updated["spec"]["updateStrategy"]["rollingUpdate"]["partition"] = 0;
  for (auto& p : pods)
    p["metadata"]["labels"]["controller-revision-hash"] = next;
  plan = plan_statefulset(updated, ptrs(pods), ptrs(revisions), kNow);
  CHECK(plan.status["currentRevision"] == next);
  CHECK(plan.status["currentReplicas"] == 3);
  CHECK(plan.remove_revisions.empty());
  // Back to the first template: its revision is reused as number 3.
  Json back = make_sts(3, "pg:16");
  back["status"]["currentRevision"] = next;
  plan = plan_statefulset(back, ptrs(pods), ptrs(revisions), kNow);
  REQUIRE(plan.renumber_revision);
  CHECK((*plan.renumber_revision)["metadata"]["name"] == revisions[0]["metadata"]["name"]);
  CHECK((*plan.renumber_revision)["revision"] == 3);
  CHECK(statefulset_ordinal("db", "db-12") == 12);
  CHECK(statefulset_ordinal("db", "db-x") == -1);
  CHECK(statefulset_ordinal("db", "dbx-1") == -1);
}

TEST_CASE("a StatefulSet's claims come from its templates", "[simulator][statefulset]") {
  Json sts = make_sts(1, "pg:16");
  sts["spec"]["volumeClaimTemplates"] = {
      {{"metadata", {{"name", "data"}}}, {"spec", {{"accessModes", {"ReadWriteOnce"}}}}}};
  auto claims = statefulset_claims(sts, 4);
  REQUIRE(claims.size() == 1);
  CHECK(claims[0]["metadata"]["name"] == "data-db-4");
  CHECK(claims[0]["metadata"]["labels"] == Json({{"app", "db"}}));
  CHECK_FALSE(claims[0]["metadata"].contains("ownerReferences"));  // whenDeleted: Retain
  const Json pod = plan_statefulset(sts, {}, {}, kNow).create[0];
  CHECK(pod["spec"]["volumes"][0] ==
        Json({{"name", "data"}, {"persistentVolumeClaim", {{"claimName", "data-db-0"}}}}));
}

TEST_CASE("cron schedules parse and step as robfig/cron", "[simulator][cronjob]") {
  auto next = [](const std::string& spec, const std::string& after) {
    auto s = CronSchedule::parse(spec);
    REQUIRE(s);
    auto t = s->next(*parse_time(after));
    return t ? format_time(*t) : std::string("never");
  };
  CHECK(next("*/15 * * * *", "2026-01-05T10:07:30Z") == "2026-01-05T10:15:00Z");
  CHECK(next("*/15 * * * *", "2026-01-05T10:15:00Z") == "2026-01-05T10:30:00Z");
  CHECK(next("0 9 * * 1-5", "2026-01-09T09:00:00Z") == "2026-01-12T09:00:00Z");   // Fri → Mon
  CHECK(next("0 0 13 * fri", "2026-01-01T00:00:00Z") == "2026-01-02T00:00:00Z");  // either day
  CHECK(next("0 0 13 * *", "2026-01-01T00:00:00Z") == "2026-01-13T00:00:00Z");
  CHECK(next("30 2 1 jan,jul ?", "2026-01-05T00:00:00Z") == "2026-07-01T02:30:00Z");
  CHECK(next("@hourly", "2026-01-05T10:07:30Z") == "2026-01-05T11:00:00Z");
  CHECK(next("@weekly", "2026-01-05T10:07:30Z") == "2026-01-11T00:00:00Z");
  CHECK(next("@every 90s", "2026-01-05T10:07:30Z") == "2026-01-05T10:09:00Z");
  CHECK(next("59 23 31 12 *", "2026-12-31T23:59:00Z") == "2027-12-31T23:59:00Z");
  CHECK(next("0 0 30 2 *", "2026-01-01T00:00:00Z") == "never");
  CHECK(CronSchedule::parse("* * * *").error() == "expected exactly 5 fields, found 4: [* * * *]");
  CHECK(CronSchedule::parse("61 * * * *").error() == "end of range (61) above maximum (59): 61");
  CHECK(CronSchedule::parse("5-1 * * * *").error() ==
        "beginning of range (5) beyond end of range (1): 5-1");
  CHECK(CronSchedule::parse("*/0 * * * *").error() ==
        "step of range should be a positive number: */0");
  CHECK(CronSchedule::parse("x * * * *").error() ==
        "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax");
  CHECK(CronSchedule::parse("@fortnightly").error() == "unrecognized descriptor: @fortnightly");
}

TEST_CASE("a CronJob starts the most recent missed time once", "[simulator][cronjob]") {
  Json cj = Json::parse(R"({
    "metadata": {"name": "report", "namespace": "ns", "uid": "cj-uid",
                 "creationTimestamp": "2026-01-05T09:00:00Z"},
    "spec": {"schedule": "*/5 * * * *", "concurrencyPolicy": "Allow",
             "successfulJobsHistoryLimit": 1, "failedJobsHistoryLimit": 1,
             "jobTemplate": {"metadata": {"labels": {"app": "report"}},
                             "spec": {"template": {"spec": {"restartPolicy": "Never"}}}}}})");
  CronJobPlan plan = plan_cronjob(cj, {}, kNow);
  REQUIRE(plan.create);
  const Json& job = *plan.create;
  const auto at = *parse_time("2026-01-05T10:05:00Z");
  const auto minutes = std::chrono::duration_cast<std::chrono::minutes>(at.time_since_epoch());
  CHECK(job["metadata"]["name"] == "report-" + std::to_string(minutes.count()));
  CHECK(job["metadata"]["labels"]["app"] == "report");
  CHECK(job["metadata"]["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"] ==
        "2026-01-05T10:05:00Z");
  CHECK(job["metadata"]["ownerReferences"][0]["kind"] == "CronJob");
  CHECK(plan.status["lastScheduleTime"] == "2026-01-05T10:05:00Z");
  CHECK(plan.recheck == std::chrono::milliseconds(150'100));  // 10:10:00.1

  // Recorded: nothing more until 10:10.
  Json made = job;
  made["metadata"]["uid"] = "job-1";
  cj["status"] = plan.status;
  cj["status"]["active"] = {job_reference(made)};
  std::vector<Json> jobs = {made};
  plan = plan_cronjob(cj, ptrs(jobs), kNow);
  CHECK_FALSE(plan.create);
  // Forbid while it runs, at 10:10.
  cj["spec"]["concurrencyPolicy"] = "Forbid";
  const auto later = *parse_time("2026-01-05T10:11:00Z");
  plan = plan_cronjob(cj, ptrs(jobs), later);
  CHECK_FALSE(plan.create);
  CHECK(plan.events.back().reason == "JobAlreadyActive");
  // Replace deletes it and starts the new one.
  cj["spec"]["concurrencyPolicy"] = "Replace";
  plan = plan_cronjob(cj, ptrs(jobs), later);
  REQUIRE(plan.create);
  CHECK(plan.remove == std::vector<std::string>{made["metadata"]["name"]});
  CHECK_FALSE(plan.status.contains("active"));
  // Finished: out of active, lastSuccessfulTime; beyond the history limit: deleted.
  cj["spec"]["concurrencyPolicy"] = "Allow";
  jobs[0]["status"] = {{"startTime", "2026-01-05T10:05:01Z"},
                       {"completionTime", "2026-01-05T10:06:00Z"},
                       {"conditions", {{{"type", "Complete"}, {"status", "True"}}}}};
  Json older = jobs[0];
  older["metadata"]["name"] = "report-1";
  older["metadata"]["uid"] = "job-0";
  older["status"]["startTime"] = "2026-01-05T10:00:01Z";
  jobs.push_back(older);
  plan = plan_cronjob(cj, ptrs(jobs), kNow);
  CHECK_FALSE(plan.status.contains("active"));
  CHECK(plan.remove == std::vector<std::string>{"report-1"});
  cj["status"] = plan.status;
  CHECK(plan_cronjob(cj, ptrs(jobs), kNow).status["lastSuccessfulTime"] == "2026-01-05T10:06:00Z");
}

TEST_CASE("a CronJob skips what it may not start", "[simulator][cronjob]") {
  Json cj = Json::parse(R"({
    "metadata": {"name": "r", "namespace": "ns", "uid": "u",
                 "creationTimestamp": "2025-01-01T00:00:00Z"},
    "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {}}}})");
  CronJobPlan plan = plan_cronjob(cj, {}, kNow);  // a year of missed minutes
  REQUIRE(plan.create);
  CHECK(plan.status["lastScheduleTime"] == "2026-01-05T10:07:00Z");
  CHECK(plan.events.back().reason == "TooManyMissedTimes");
  // startingDeadlineSeconds bounds how far back a time may be started: 10:07 is 30 s ago.
  cj["spec"]["startingDeadlineSeconds"] = 10;
  CHECK_FALSE(plan_cronjob(cj, {}, kNow).create);
  cj["spec"]["startingDeadlineSeconds"] = 60;
  CHECK(plan_cronjob(cj, {}, kNow).create);
  cj["spec"]["suspend"] = true;
  CHECK_FALSE(plan_cronjob(cj, {}, kNow).create);
  cj["spec"]["suspend"] = false;
  cj["spec"]["schedule"] = "every minute";
  plan = plan_cronjob(cj, {}, kNow);
  CHECK_FALSE(plan.create);
  CHECK(plan.events.back().reason == "UnparseableSchedule");
  cj["spec"]["schedule"] = "* * * * *";
  cj["spec"]["timeZone"] = "Europe/Paris";
  CHECK(plan_cronjob(cj, {}, kNow).events.back().reason == "UnknownTimeZone");
}

TEST_CASE("endpoints list the ready pods a Service selects, by port", "[simulator][endpoints]") {
  Json svc = Json::parse(R"({
    "metadata": {"name": "web", "namespace": "ns", "labels": {"team": "a"}},
    "spec": {"selector": {"app": "web"},
             "ports": [{"name": "http", "port": 80, "targetPort": "http", "protocol": "TCP"},
                       {"name": "metrics", "port": 9090, "targetPort": 9090,
                        "protocol": "TCP"}]}})");
  auto pod = [](const std::string& name, const std::string& ip, bool ready, bool named_port) {
    Json p = {{"metadata",
               {{"name", name},
                {"namespace", "ns"},
                {"uid", name + "-uid"},
                {"labels", {{"app", "web"}}}}},
              {"spec", {{"nodeName", "n1"}, {"containers", {{{"name", "c"}}}}}},
              {"status", {{"phase", "Running"}, {"podIP", ip}}}};
    if (named_port)
      p["spec"]["containers"][0]["ports"] = {{{"name", "http"}, {"containerPort", 8080}}};
    p["status"]["conditions"] = {{{"type", "Ready"}, {"status", ready ? "True" : "False"}}};
    return p;
  };
  std::vector<Json> pods = {pod("b", "10.0.0.2", true, true), pod("a", "10.0.0.1", false, true),
                            pod("c", "10.0.0.3", true, false)};
  Json other = pod("d", "10.0.0.4", true, true);
  other["metadata"]["labels"]["app"] = "db";
  pods.push_back(other);
  Json gone = pod("e", "10.0.0.5", true, true);
  gone["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  pods.push_back(gone);

  Json subsets = endpoints_subsets(svc, ptrs(pods));
  REQUIRE(subsets.size() == 2);
  // a and b offer both ports; c only the numbered one.
  CHECK(subsets[0]["addresses"] ==
        Json::array({{{"ip", "10.0.0.2"},
                      {"nodeName", "n1"},
                      {"targetRef",
                       {{"kind", "Pod"}, {"namespace", "ns"}, {"name", "b"}, {"uid", "b-uid"}}}}}));
  CHECK(subsets[0]["notReadyAddresses"][0]["ip"] == "10.0.0.1");
  CHECK(subsets[0]["ports"] ==
        Json::array({{{"name", "http"}, {"port", 8080}, {"protocol", "TCP"}},
                     {{"name", "metrics"}, {"port", 9090}, {"protocol", "TCP"}}}));
  CHECK(subsets[1]["addresses"][0]["ip"] == "10.0.0.3");
  CHECK(subsets[1]["ports"].size() == 1);
  CHECK(endpoints_labels(svc) == Json({{"team", "a"}}));

  auto slices = endpoint_slices(svc, ptrs(pods), [](const std::string&) { return "z1"; });
  REQUIRE(slices.size() == 2);
  // The terminating pod stays in the slice, not ready, serving, terminating.
  REQUIRE(slices[0].endpoints.size() == 3);
  const Json& terminating = slices[0].endpoints[2];
  CHECK(terminating["addresses"][0] == "10.0.0.5");
  CHECK(terminating["conditions"] ==
        Json({{"ready", false}, {"serving", true}, {"terminating", true}}));
  CHECK(terminating["zone"] == "z1");
  CHECK(slices[0].endpoints[0]["conditions"]["ready"] == false);  // a, not ready
  CHECK(endpoint_slice_labels(svc)["kubernetes.io/service-name"] == "web");

  // No pods: no subsets, one placeholder slice; headless services say so.
  svc["spec"]["clusterIP"] = "None";
  CHECK(endpoints_subsets(svc, {}).empty());
  auto placeholder = endpoint_slices(svc, {}, [](const std::string&) { return ""; });
  REQUIRE(placeholder.size() == 1);
  CHECK(placeholder[0].ports.is_null());
  CHECK(placeholder[0].endpoints.is_null());
  CHECK(endpoints_labels(svc).contains("service.kubernetes.io/headless"));

  // More than 100 endpoints: more than one slice.
  std::vector<Json> many;
  for (int i = 0; i < 150; ++i)
    many.push_back(pod("p" + std::to_string(i), "10.1.0." + std::to_string(i), true, true));
  svc["spec"]["ports"].erase(1);
  auto chunks = endpoint_slices(svc, ptrs(many), [](const std::string&) { return ""; });
  REQUIRE(chunks.size() == 2);
  CHECK(chunks[0].endpoints.size() == 100);
  CHECK(chunks[1].endpoints.size() == 50);
}
