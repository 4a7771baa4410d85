// Printers of autoscaling kinds (HorizontalPodAutoscaler).

#include "sandbox/apiserver/printers/printers.hpp"

namespace respool::sandbox::printers {
namespace {

std::string hpa_targets(const Json& o) {
  const Json& specs = at(o, {"spec", "metrics"});
  const Json& statuses = at(o, {"status", "currentMetrics"});
  if (!specs.is_array() || specs.empty()) return "<none>";
  std::vector<std::string> list;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const Json& s = specs[i];
    const Json& st = statuses.is_array() && i < statuses.size() ? statuses[i] : Json();
    std::string type = text(at(s, {"type"}));
    std::string key = type == "Resource"            ? "resource"
                      : type == "ContainerResource" ? "containerResource"
                      : type == "Pods"              ? "pods"
                      : type == "Object"            ? "object"
                      : type == "External"          ? "external"
                                                    : "";
    if (key.empty()) {
      list.push_back("<unknown type>");
      continue;
    }
    const Json& target = at(s, {key.c_str(), "target"});
    const Json& current = at(st, {key.c_str(), "current"});
    std::string prefix = key == "resource" || key == "containerResource"
                             ? text(at(s, {key.c_str(), "name"})) + ": "
                             : "";
    if (!at(target, {"averageValue"}).is_null() || key == "pods") {
      std::string cur = int_or_string(at(current, {"averageValue"}), "<unknown>");
      std::string suffix = key == "object" || key == "external" ? " (avg)" : "";
      list.push_back(prefix + cur + "/" + int_or_string(at(target, {"averageValue"}), "<unknown>") +
                     suffix);
    } else if (key == "object" || key == "external") {
      list.push_back(int_or_string(at(current, {"value"}), "<unknown>") + "/" +
                     int_or_string(at(target, {"value"}), "<unknown>"));
    } else {
      const Json& cu = at(current, {"averageUtilization"});
      const Json& tu = at(target, {"averageUtilization"});
      std::string cur =
          cu.is_number_integer() ? std::to_string(cu.get<long long>()) + "%" : "<unknown>";
      std::string tgt =
          tu.is_number_integer() ? std::to_string(tu.get<long long>()) + "%" : "<auto>";
      list.push_back(prefix + cur + "/" + tgt);
    }
  }
  std::size_t max = 2;
  std::size_t count = list.size();
  if (count > max) list.resize(max);
  std::string out = join(list, ", ");
  if (count > max) out += std::string(" + ") + std::to_string(count - max) + " more...";
  return out;
}

}  // namespace

const PrinterDef horizontal_pod_autoscaler{
    {{"Reference", "string",
      "reference to scaled resource; horizontal pod autoscaler will learn "
      "the current resource consumption and will set the desired number "
      "of pods by using its Scale subresource."},
     {"Targets", "string",
      "metrics contains the specifications for which to use to calculate "
      "the desired replica count."},
     {"MinPods", "string",
      "minReplicas is the lower limit for the number of replicas to which "
      "the autoscaler can scale down."},
     {"MaxPods", "string",
      "maxReplicas is the upper limit for the number of replicas to which "
      "the autoscaler can scale up."},
     {"Replicas", "string",
      "currentReplicas is current number of replicas of pods managed by "
      "this autoscaler, as last seen by the autoscaler."},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      const Json& min = at(o, {"spec", "minReplicas"});
      return {name_of(o),
              text(at(o, {"spec", "scaleTargetRef", "kind"})) + "/" +
                  text(at(o, {"spec", "scaleTargetRef", "name"})),
              hpa_targets(o),
              min.is_number_integer() ? std::to_string(min.get<long long>()) : "<unset>",
              number(at(o, {"spec", "maxReplicas"})),
              number(at(o, {"status", "currentReplicas"})),
              age(o, now)};
    }};

}  // namespace respool::sandbox::printers
