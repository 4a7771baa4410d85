#include "reconcilers/policy/spec.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "reconcilers/policy/names.hpp"
#include "reconcilers/policy/spec_fields.hpp"

namespace respool::policy {

namespace {

using nlohmann::json;
using Violations = std::vector<Violation>;
using spec_fields::at;
using spec_fields::member;
using spec_fields::read_string;

// Appends rather than `"\"" + std::string(s)`: GCC 12 at -O3 reports a false -Wrestrict on
// operator+(const char*, string&&) (GCC bug 105329).
std::string in_quotes(std::string_view s) {
  std::string quoted;
  quoted.reserve(s.size() + 2);
  quoted.append(1, '"').append(s).append(1, '"');
  return quoted;
}

std::optional<int> read_int(const json& object, const char* key, const std::string& field,
                            Violations& out) {
  const json* value = member(object, key);
  if (!value) return std::nullopt;
  if (!value->is_number_integer() || value->get<std::int64_t>() > 1'000'000'000 ||
      value->get<std::int64_t>() < -1'000'000'000) {
    out.push_back({field, "", "must be an integer"});
    return std::nullopt;
  }
  return value->get<int>();
}

const json* read_array(const json& object, const char* key, const std::string& field,
                       Violations& out) {
  const json* value = member(object, key);
  if (value && !value->is_array()) {
    out.push_back({field, "", "must be a list"});
    return nullptr;
  }
  return value;
}

std::optional<DriverSpec> parse_driver(const json& driver, Violations& out) {
  if (!driver.is_object()) {
    out.push_back({"spec.driver", "", "must be an object"});
    return std::nullopt;
  }
  DriverSpec spec;
  spec.gpu_version = read_string(driver, "gpuVersion", "spec.driver.gpuVersion", out);
  spec.npu_version = read_string(driver, "npuVersion", "spec.driver.npuVersion", out);
  if (const json* upgrade = member(driver, "upgrade")) {
    if (!upgrade->is_object()) {
      out.push_back({"spec.driver.upgrade", "", "must be an object"});
      return spec;
    }
    if (auto mode = read_string(*upgrade, "mode", "spec.driver.upgrade.mode", out)) {
      if (*mode == "Force") {
        spec.mode = UpgradeMode::Force;
      } else if (*mode != "Secure") {
        out.push_back({"spec.driver.upgrade.mode", "D1", "must be Secure or Force"});
      }
    }
    if (const json* max = member(*upgrade, "maxUnavailable")) {
      auto parsed = parse_int_or_percent(*max);
      if (parsed) {
        spec.max_unavailable = *parsed;
      } else {
        out.push_back({"spec.driver.upgrade.maxUnavailable", "D2", parsed.error()});
      }
    }
  }
  return spec;
}

std::optional<FlavorRequest> parse_resource(const json& item, const std::string& field,
                                            Violations& out) {
  if (!item.is_object()) {
    out.push_back({field, "", "must be an object"});
    return std::nullopt;
  }
  FlavorRequest request;
  request.flavor = read_string(item, "flavor", field + ".flavor", out).value_or("");
  auto count = read_int(item, "count", field + ".count", out);
  if (auto space =
          read_int(item, "containerEngineSpaceGiB", field + ".containerEngineSpaceGiB", out)) {
    request.container_engine_space_gib = *space;
  }
  int zone_sum = 0;
  if (const json* zones = read_array(item, "zones", field + ".zones", out)) {
    for (std::size_t i = 0; i < zones->size(); ++i) {
      const std::string zone_field = at(field + ".zones", i);
      const json& z = (*zones)[i];
      if (!z.is_object()) {
        out.push_back({zone_field, "", "must be an object {zone, count}"});
        continue;
      }
      ZoneCount zc;
      zc.zone = read_string(z, "zone", zone_field + ".zone", out).value_or("");
      zc.count = read_int(z, "count", zone_field + ".count", out).value_or(0);
      zone_sum += zc.count;
      request.zones.push_back(std::move(zc));
    }
  }
  request.count = count.value_or(request.zones.empty() ? 0 : zone_sum);
  return request;
}

}  // namespace

std::string Violation::to_string() const {
  return field + ": " + message + (rule.empty() ? "" : " (" + rule + ")");
}

std::string join(const std::vector<Violation>& violations) {
  std::string out;
  for (const Violation& v : violations)
    out += (out.empty() ? "" : "; ") + v.to_string();
  return out;
}

bool ResourcePoolSpec::has_job_type(JobType type) const {
  return std::find(job_types.begin(), job_types.end(), type) != job_types.end();
}

const FlavorRequest* ResourcePoolSpec::resource(std::string_view flavor) const {
  for (const FlavorRequest& r : resources) {
    if (r.flavor == flavor) return &r;
  }
  return nullptr;
}

int ResourcePoolSpec::desired_nodes() const {
  int total = 0;
  for (const FlavorRequest& r : resources)
    total += r.count;
  return total;
}

std::expected<ResourcePoolSpec, Violations> parse_pool_spec(const json& spec) {
  Violations out;
  if (!spec.is_object()) return std::unexpected(Violations{{"spec", "", "must be an object"}});
  ResourcePoolSpec pool;
  pool.description = read_string(spec, "description", "spec.description", out).value_or("");
  if (auto type = read_string(spec, "type", "spec.type", out)) {
    if (auto parsed = parse_pool_type(*type)) {
      pool.type = *parsed;
    } else {
      out.push_back(
          {"spec.type", "P2", in_quotes(*type) + " is not a pool type (Physical, Logical)"});
    }
  }
  if (const json* types = read_array(spec, "jobTypes", "spec.jobTypes", out)) {
    for (std::size_t i = 0; i < types->size(); ++i) {
      const json& t = (*types)[i];
      auto parsed = t.is_string() ? parse_job_type(t.get<std::string>()) : std::nullopt;
      if (parsed) {
        pool.job_types.push_back(*parsed);
      } else {
        out.push_back({at("spec.jobTypes", i), "P2",
                       t.dump() + " is not a job type (Training, Inference, DevEnviron)"});
      }
    }
  }
  pool.network = read_string(spec, "network", "spec.network", out).value_or("");
  if (const json* resources = read_array(spec, "resources", "spec.resources", out)) {
    for (std::size_t i = 0; i < resources->size(); ++i) {
      if (auto r = parse_resource((*resources)[i], at("spec.resources", i), out)) {
        pool.resources.push_back(std::move(*r));
      }
    }
  }
  if (const json* driver = member(spec, "driver")) pool.driver = parse_driver(*driver, out);
  if (const json* binding = member(spec, "nodeBinding")) {
    if (binding->is_boolean()) {
      pool.node_binding = binding->get<bool>();
    } else {
      out.push_back({"spec.nodeBinding", "", "must be true or false"});
    }
  }
  if (const json* tags = member(spec, "tags")) {
    if (!tags->is_object()) {
      out.push_back({"spec.tags", "P11", "must map tag keys to values"});
    } else {
      for (const auto& [key, value] : tags->items()) {
        if (!value.is_string()) {
          out.push_back({"spec.tags." + key, "P11", "must be a string"});
        } else {
          pool.tags[key] = value.get<std::string>();
        }
      }
    }
  }
  if (!out.empty()) return std::unexpected(std::move(out));
  return pool;
}

std::vector<Violation> validate_pool(const ResourcePoolSpec& spec, std::string_view name,
                                     const Catalog& catalog) {
  Violations out;
  if (!is_pool_name(name)) out.push_back({"metadata.name", "P1", std::string(kPoolNameRule)});
  if (spec.description.size() > kMaxDescription) {
    out.push_back({"spec.description", "", "must be at most 256 characters"});
  }
  if (spec.job_types.empty()) out.push_back({"spec.jobTypes", "P2", "must name at least one"});
  std::set<JobType> seen_types;
  for (std::size_t i = 0; i < spec.job_types.size(); ++i) {
    JobType t = spec.job_types[i];
    if (!seen_types.insert(t).second) {
      out.push_back({at("spec.jobTypes", i), "P2", std::string(to_string(t)) + " appears twice"});
    } else if (spec.type == PoolType::Logical && t != JobType::Training) {
      out.push_back({at("spec.jobTypes", i), "P2", "a Logical pool accepts only Training"});
    }
  }
  if (!is_dns_label(spec.network)) {
    out.push_back({"spec.network", "P3", "must name a Network"});
  }
  if (spec.resources.empty()) out.push_back({"spec.resources", "P4", "must list a flavor"});
  std::set<std::string> flavors;
  bool has_gpu = false, has_npu = false;
  for (std::size_t i = 0; i < spec.resources.size(); ++i) {
    const FlavorRequest& r = spec.resources[i];
    const std::string field = at("spec.resources", i);
    if (const Flavor* flavor = catalog.flavor(r.flavor)) {
      has_gpu |= flavor->accelerator.type == AcceleratorType::GPU;
      has_npu |= flavor->accelerator.type == AcceleratorType::NPU;
    } else {
      out.push_back({field + ".flavor", "P4",
                     in_quotes(r.flavor) + " is not a flavor of the catalog (" +
                         catalog.flavor_names() + ")"});
    }
    if (!flavors.insert(r.flavor).second) {
      out.push_back({field + ".flavor", "P4", in_quotes(r.flavor) + " appears twice"});
    }
    if (r.count < 1) out.push_back({field + ".count", "P4", "must be at least 1"});
    int zone_sum = 0;
    std::set<std::string> zones;
    for (std::size_t z = 0; z < r.zones.size(); ++z) {
      const std::string zone_field = at(field + ".zones", z);
      const ZoneCount& zc = r.zones[z];
      zone_sum += zc.count;
      if (!is_label_value(zc.zone) || zc.zone.empty()) {
        out.push_back({zone_field + ".zone", "P4", "must be a zone name (a label value)"});
      } else if (!zones.insert(zc.zone).second) {
        out.push_back({zone_field + ".zone", "P4", in_quotes(zc.zone) + " appears twice"});
      }
      if (zc.count < 1) out.push_back({zone_field + ".count", "P4", "must be at least 1"});
    }
    if (!r.zones.empty() && zone_sum != r.count) {
      out.push_back({field + ".count", "P4",
                     "is " + std::to_string(r.count) + " but the zones' counts sum to " +
                         std::to_string(zone_sum)});
    }
    if (r.container_engine_space_gib < kMinContainerEngineSpaceGiB) {
      out.push_back({field + ".containerEngineSpaceGiB", "P5", "must be at least 50 (GiB)"});
    }
  }
  if (spec.driver && spec.driver->gpu_version && !has_gpu) {
    out.push_back({"spec.driver.gpuVersion", "P13", "a GPU driver needs a GPU flavor in the pool"});
  }
  if (spec.driver && spec.driver->npu_version && !has_npu) {
    out.push_back(
        {"spec.driver.npuVersion", "P13", "an NPU driver needs an NPU flavor in the pool"});
  }
  // The catalog's list of versions, where it has one (issue 14: any other version is invalid).
  auto offered = [&](const std::optional<std::string>& version, AcceleratorType type,
                     const char* field) {
    if (!version || catalog.offers_driver(type, *version)) return;
    std::string list;
    for (const auto& v : catalog.driver_versions.at(type))
      list += (list.empty() ? "" : ", ") + v;
    out.push_back({field, "P13",
                   "\"" + *version + "\" is not a driver version the catalog offers for " +
                       std::string(to_string(type)) + " (" + list + ")"});
  };
  if (spec.driver) {
    offered(spec.driver->gpu_version, AcceleratorType::GPU, "spec.driver.gpuVersion");
    offered(spec.driver->npu_version, AcceleratorType::NPU, "spec.driver.npuVersion");
  }
  if (spec.tags.size() > kMaxTags) {
    out.push_back({"spec.tags", "P11", "at most 20 tags, not " + std::to_string(spec.tags.size())});
  }
  for (const auto& [key, value] : spec.tags) {
    if (key.empty() || key.size() > 128) {
      out.push_back({"spec.tags." + key, "P11", "a tag key has 1 to 128 characters"});
    }
    if (value.size() > 255) {
      out.push_back({"spec.tags." + key, "P11", "a tag value has at most 255 characters"});
    }
  }
  return out;
}

std::expected<ResourcePoolSpec, Violations> check_pool(const json& object, const Catalog& catalog) {
  std::string name;
  if (object.contains("metadata") && object["metadata"].is_object()) {
    name = object["metadata"].value("name", "");
  }
  auto spec = parse_pool_spec(object.contains("spec") ? object["spec"] : json());
  if (!spec) {
    Violations out = spec.error();
    if (!is_pool_name(name)) {
      out.insert(out.begin(), {"metadata.name", "P1", std::string(kPoolNameRule)});
    }
    return std::unexpected(std::move(out));
  }
  Violations problems = validate_pool(*spec, name, catalog);
  if (!problems.empty()) return std::unexpected(std::move(problems));
  return spec;
}

std::optional<Violation> driver_upgrade_violation(const ResourcePoolSpec& spec) {
  if (spec.type == PoolType::Logical && !spec.node_binding) {
    return Violation{"spec.nodeBinding", "P13",
                     "a Logical pool's driver can be upgraded only with nodeBinding: true"};
  }
  return std::nullopt;
}

}  // namespace respool::policy
