#include "reconcilers/policy/spec.hpp"

#include <set>

#include "reconcilers/policy/names.hpp"
#include "reconcilers/policy/spec_fields.hpp"

// The Network half of spec.hpp.

namespace respool::policy {

namespace {

using nlohmann::json;
using Violations = std::vector<Violation>;
using spec_fields::at;
using spec_fields::read_string;

}  // namespace

std::expected<NetworkSpec, Violations> parse_network_spec(const json& spec) {
  Violations out;
  NetworkSpec network;
  if (spec.is_null()) return network;
  if (!spec.is_object()) return std::unexpected(Violations{{"spec", "", "must be an object"}});
  if (auto cidr = read_string(spec, "cidr", "spec.cidr", out)) {
    if (auto parsed = parse_cidr(*cidr)) {
      network.cidr = *parsed;
    } else {
      out.push_back({"spec.cidr", "W1", parsed.error()});
    }
  }
  const json* list = spec.contains("interconnects") ? &spec["interconnects"] : nullptr;
  if (list && !list->is_null() && !list->is_array()) {
    out.push_back({"spec.interconnects", "W4", "must be a list"});
  } else if (list && list->is_array()) {
    for (std::size_t i = 0; i < list->size(); ++i) {
      const std::string field = at("spec.interconnects", i);
      const json& item = (*list)[i];
      if (!item.is_object()) {
        out.push_back({field, "W4", "must be an object {vpc, subnet, cidr}"});
        continue;
      }
      Interconnect ic;
      ic.vpc = read_string(item, "vpc", field + ".vpc", out).value_or("");
      ic.subnet = read_string(item, "subnet", field + ".subnet", out).value_or("");
      auto cidr = read_string(item, "cidr", field + ".cidr", out);
      auto parsed = cidr ? parse_cidr(*cidr) : std::unexpected(std::string("is required"));
      if (parsed) {
        ic.cidr = *parsed;
      } else {
        out.push_back({field + ".cidr", "W3", parsed.error()});
      }
      network.interconnects.push_back(std::move(ic));
    }
  }
  if (!out.empty()) return std::unexpected(std::move(out));
  return network;
}

std::vector<Violation> validate_network(const NetworkSpec& spec, std::string_view name) {
  Violations out;
  if (!is_pool_name(name)) out.push_back({"metadata.name", "", std::string(kPoolNameRule)});
  if (spec.interconnects.size() > kMaxInterconnects) {
    out.push_back(
        {"spec.interconnects", "W4",
         "at most 10 interconnected subnets, not " + std::to_string(spec.interconnects.size())});
  }
  std::set<std::pair<std::string, std::string>> seen;
  for (std::size_t i = 0; i < spec.interconnects.size(); ++i) {
    const Interconnect& ic = spec.interconnects[i];
    const std::string field = at("spec.interconnects", i);
    if (ic.vpc.empty()) out.push_back({field + ".vpc", "W4", "must name the peer network"});
    if (ic.subnet.empty()) out.push_back({field + ".subnet", "W4", "must name the subnet"});
    if (!seen.insert({ic.vpc, ic.subnet}).second) {
      out.push_back({field, "W4", ic.vpc + "/" + ic.subnet + " appears twice"});
    }
  }
  return out;
}

std::expected<NetworkSpec, Violations> check_network(const json& object) {
  std::string name;
  if (object.contains("metadata") && object["metadata"].is_object()) {
    name = object["metadata"].value("name", "");
  }
  auto spec = parse_network_spec(object.contains("spec") ? object["spec"] : json());
  if (!spec) return spec;
  Violations problems = validate_network(*spec, name);
  if (!problems.empty()) return std::unexpected(std::move(problems));
  return spec;
}

}  // namespace respool::policy
