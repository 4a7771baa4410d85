// The chart's ValidatingAdmissionPolicy for training jobs (issue 17, rule J1): its CEL, read from
// the chart's template, evaluated with the sandbox's CEL as the API server would evaluate it
// against a Job, refuses exactly what respool's own reading of the annotations refuses. (The
// sandbox stores admission policies but does not call them; this checks the expressions.)

#include <fstream>
#include <sstream>

#include "reconcilers/policy/fault_tolerance.hpp"
#include "sandbox/cel/eval.hpp"
#include "sandbox/cel/parser.hpp"
#include "schema_test_util.hpp"
#include "yaml_json.hpp"

using Json = nlohmann::json;
namespace cel = respool::sandbox::cel;
using respool::policy::read_fault_tolerance;

namespace {

// The template's first document without its Helm directives (the lines with {{ }}).
Json policy_from_chart() {
  std::ifstream in(std::string(RESPOOL_SOURCE_DIR) +
                   "/helm/respool/templates/validatingadmissionpolicy.yaml");
  REQUIRE(in);
  std::stringstream text;
  std::string line;
  while (std::getline(in, line)) {
    if (line == "---") break;
    if (line.find("{{") == std::string::npos) text << line << "\n";
  }
  return schema_test::yaml::to_json(YAML::Load(text.str()));
}

// A Job as the API server hands it to a policy: JSON as CEL values (objects as maps).
cel::Value value_of(const Json& json) {
  if (json.is_object()) {
    auto data = std::make_shared<cel::MapData>();
    for (auto it = json.begin(); it != json.end(); ++it)
      data->insert(cel::Value::string(it.key()), value_of(it.value()));
    return cel::Value::map(std::move(data));
  }
  if (json.is_array()) {
    std::vector<cel::Value> items;
    for (const auto& x : json)
      items.push_back(value_of(x));
    return cel::Value::list(std::move(items));
  }
  if (json.is_string()) return cel::Value::string(json.get<std::string>());
  if (json.is_boolean()) return cel::Value::boolean(json.get<bool>());
  if (json.is_number_integer()) return cel::Value::integer(json.get<std::int64_t>());
  if (json.is_number()) return cel::Value::dbl(json.get<double>());
  return cel::Value();
}

cel::Value run(const std::string& source, const cel::Bindings& vars) {
  auto parsed = cel::parse(source);
  INFO(source);
  REQUIRE(parsed.issues.empty());
  return cel::evaluate(*parsed.expr, vars).value;
}

// The messages of the validations that refuse a Job with these annotations.
std::vector<std::string> refusals(const Json& policy, const Json& annotations) {
  Json job = {{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", {{"name", "train"}}}};
  if (!annotations.is_null()) job["metadata"]["annotations"] = annotations;
  cel::Bindings vars{{"object", value_of(job)}};
  auto variables = std::make_shared<cel::MapData>();
  for (const auto& v : policy["spec"]["variables"])
    variables->insert(cel::Value::string(v["name"]), run(v["expression"], vars));
  vars["variables"] = cel::Value::map(variables);
  std::vector<std::string> out;
  for (const auto& v : policy["spec"]["validations"]) {
    const cel::Value result = run(v["expression"], vars);
    // An error refuses too (failurePolicy Fail); false refuses.
    if (result.kind() != cel::Kind::Bool || !result.as_bool())
      out.push_back(v.value("message", ""));
  }
  return out;
}

}  // namespace

TEST_CASE("J1: the chart's admission policy refuses what respool's reading refuses",
          "[schema][trainingjob][rule:J1]") {
  const Json policy = policy_from_chart();
  REQUIRE(policy["kind"] == "ValidatingAdmissionPolicy");
  CHECK(policy["spec"]["matchConstraints"]["resourceRules"][0]["resources"][0] == "jobs");
  CHECK(refusals(policy, nullptr).empty());  // no annotations at all
  const std::vector<std::pair<std::string, std::vector<std::string>>> values = {
      {"fault-tolerance/job-retry-num",
       {"1", "3", "128", "0", "129", "-1", "03", "3.0", "x", "", "1000"}},
      {"fault-tolerance/job-unconditional-retry", {"true", "false", "True", "yes", ""}},
      {"fault-tolerance/hang-retry", {"true", "false", "1", "TRUE"}},
      {"respool.io/hang-timeout", {"30m", "1h", "1h30m", "90s", "60s", "59s", "30", "5d", ""}},
  };
  int refused = 0, accepted = 0;
  for (const auto& [key, list] : values) {
    for (const auto& value : list) {
      // respool's own reading, with hang-retry set so that the reading applies (J1).
      std::map<std::string, std::string> annotations{{key, value}};
      if (key == "respool.io/hang-timeout") annotations["fault-tolerance/hang-retry"] = "true";
      const bool respool_refuses = !read_fault_tolerance(annotations).problems.empty();
      Json json = Json::object();
      for (const auto& [k, v] : annotations)
        json[k] = v;
      const auto refused_by_policy = refusals(policy, json);
      INFO(key << "=\"" << value << "\"");
      CHECK(refused_by_policy.empty() == !respool_refuses);
      if (respool_refuses) {
        REQUIRE(refused_by_policy.size() == 1);
        CHECK(refused_by_policy[0].find(key) != std::string::npos);
        CHECK(refused_by_policy[0].find("J1") != std::string::npos);
        ++refused;
      } else {
        ++accepted;
      }
    }
  }
  CHECK(refused == 17);
  CHECK(accepted == 12);
}
