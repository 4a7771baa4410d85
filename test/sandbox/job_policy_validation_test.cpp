// A Job's podFailurePolicy and successPolicy refused as kube-apiserver v1.32 refuses them
// (validatePodFailurePolicy, validateSuccessPolicy in pkg/apis/batch/validation), with the real
// 422 message and causes.

#include <catch2/catch.hpp>

#include "harness.hpp"
#include "invalid_reply.hpp"

using namespace respool::sandbox::testing;
using respool::sandbox::testing::invalid_message;
using respool::sandbox::testing::Json;

namespace {

const std::string kJobs = "/apis/batch/v1/namespaces/default/jobs";

Json job(const std::string& name, Json extra) {
  Json containers = Json::array({{{"name", "train"}, {"image", "trainer:1"}}});
  Json spec = {{"template", {{"spec", {{"restartPolicy", "Never"}, {"containers", containers}}}}}};
  spec.update(extra);
  return {
      {"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", {{"name", name}}}, {"spec", spec}};
}

}  // namespace

TEST_CASE("Jobs: pod failure policy rules", "[validation][jobs]") {
  Harness h;
  Json rules = {
      {{"action", "FailJob"},
       {"onExitCodes", {{"containerName", "nope"}, {"operator", "In"}, {"values", {3, 0, 3}}}}},
      {{"action", "Retry"}, {"onPodConditions", {{{"type", "DisruptionTarget"}}}}},
      {{"action", "FailIndex"}},
      {{"action", "Ignore"},
       {"onExitCodes", {{"operator", "NotIn"}, {"values", Json::array()}}},
       {"onPodConditions", {{{"type", "DisruptionTarget"}, {"status", "True"}}}}}};
  Json bad = job("policy", {{"podFailurePolicy", {{"rules", rules}}},
                            {"podReplacementPolicy", "TerminatingOrFailed"}});
  bad["spec"]["template"]["spec"]["restartPolicy"] = "OnFailure";
  CHECK(
      invalid_message(h.post(kJobs, bad), 12) ==
      "Job.batch \"policy\" is invalid: [spec.podFailurePolicy.rules[0].onExitCodes.containerName: "
      "Invalid value: \"nope\": must be one of the container or initContainer names in the pod "
      "template, spec.podFailurePolicy.rules[0].onExitCodes.values[1]: Invalid value: 0: must "
      "not be 0 for the In operator, spec.podFailurePolicy.rules[0].onExitCodes.values[2]: "
      "Duplicate value: 3, spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: "
      "[]int32{3, 0, 3}: must be ordered, spec.podFailurePolicy.rules[1].action: Unsupported "
      "value: \"Retry\": supported values: \"Count\", \"FailIndex\", \"FailJob\", \"Ignore\", "
      "spec.podFailurePolicy.rules[1].onPodConditions[0].status: Required value: valid values: "
      "[\"False\" \"True\" \"Unknown\"], spec.podFailurePolicy.rules[2].action: Invalid value: "
      "\"FailIndex\": requires the backoffLimitPerIndex to be set, "
      "spec.podFailurePolicy.rules[2]: Invalid value: specifying one of OnExitCodes and "
      "OnPodConditions is required, spec.podFailurePolicy.rules[3].onExitCodes.values: Invalid "
      "value: []int32{}: at least one value is required, spec.podFailurePolicy.rules[3]: "
      "Invalid value: specifying both OnExitCodes and OnPodConditions is not supported, "
      "spec.podReplacementPolicy: Unsupported value: \"TerminatingOrFailed\": supported values: "
      "\"Failed\", spec.template.spec.restartPolicy: Invalid value: \"OnFailure\": only "
      "\"Never\" is supported when podFailurePolicy is specified]");

  Json good =
      job("good",
          {{"podFailurePolicy",
            {{"rules",
              {{{"action", "FailJob"}, {"onExitCodes", {{"operator", "In"}, {"values", {42}}}}},
               {{"action", "Ignore"},
                {"onPodConditions", {{{"type", "DisruptionTarget"}, {"status", "True"}}}}}}}}}});
  auto r = h.post(kJobs, good);
  INFO(r.body);
  CHECK(r.status == 201);
}

TEST_CASE("Jobs: success policy rules", "[validation][jobs]") {
  Harness h;
  Json plain = job("plain", {{"successPolicy", {{"rules", {{{"succeededCount", 1}}}}}}});
  CHECK(invalid_message(h.post(kJobs, plain), 1) ==
        "Job.batch \"plain\" is invalid: spec.successPolicy: Invalid value: "
        "batch.SuccessPolicy{Rules:[]batch.SuccessPolicyRule{batch.SuccessPolicyRule{"
        "SucceededIndexes:(*string)(nil), SucceededCount:(*int32)(0xc000000000)}}}: requires "
        "indexed completion mode");

  Json rules = {Json::object(),
                {{"succeededIndexes", "0-2,1"}},
                {{"succeededIndexes", "1,3-4"}, {"succeededCount", 4}},
                {{"succeededCount", 9}}};
  Json indexed = job("indexed", {{"completionMode", "Indexed"},
                                 {"completions", 5},
                                 {"parallelism", 5},
                                 {"successPolicy", {{"rules", rules}}}});
  CHECK(invalid_message(h.post(kJobs, indexed), 4) ==
        "Job.batch \"indexed\" is invalid: [spec.successPolicy.rules[0]: Required value: at least "
        "one of succeededCount or succeededIndexes must be specified, "
        "spec.successPolicy.rules[1].succeededIndexes: Invalid value: \"0-2,1\": error parsing "
        "succeededIndexes: non-increasing order, previous: 2, current: 1, "
        "spec.successPolicy.rules[2].succeededCount: Invalid value: 4: must be less than or equal "
        "to 3 (the number of indexes in the specified succeededIndexes field), "
        "spec.successPolicy.rules[3].succeededCount: Invalid value: 9: must be less than or equal "
        "to 5 (the number of specified completions)]");

  Json fine = job(
      "fine",
      {{"completionMode", "Indexed"},
       {"completions", 4},
       {"successPolicy", {{"rules", {{{"succeededIndexes", "0,2-3"}, {"succeededCount", 2}}}}}}});
  auto r = h.post(kJobs, fine);
  INFO(r.body);
  CHECK(r.status == 201);
}
