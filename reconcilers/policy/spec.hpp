#pragma once
// Typed specs of ResourcePool and Network, parsed from the objects' JSON, and the rule checks
// on them. The API server checks what the CRD schema and its CEL rules can; the operator checks
// again here because not every API server evaluates CEL, and because some rules need the
// catalog (flavors exist, drivers only for GPU/NPU flavors).

#include <cstdint>
#include <expected>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/catalog.hpp"
#include "reconcilers/policy/cidr.hpp"
#include "reconcilers/policy/int_or_percent.hpp"
#include "reconcilers/policy/types.hpp"

namespace respool::policy {

// One broken rule: "spec.jobTypes[1]: a Logical pool accepts only Training (P2)".
struct Violation {
  std::string field;    // "spec.resources[0].zones[1].count", "metadata.name"
  std::string rule;     // "P2"; empty for plain syntax
  std::string message;  // what is wrong, without the field
  std::string to_string() const;
  bool operator==(const Violation&) const = default;
};
// The violations as one condition message, joined by "; ".
std::string join(const std::vector<Violation>& violations);

struct ZoneCount {
  std::string zone;
  int count = 0;
};

struct FlavorRequest {
  std::string flavor;
  int count = 0;  // when only zones are given, their sum
  std::vector<ZoneCount> zones;
  int container_engine_space_gib = 50;  // P5
};

enum class UpgradeMode { Secure, Force };

struct DriverSpec {
  std::optional<std::string> gpu_version;
  std::optional<std::string> npu_version;
  UpgradeMode mode = UpgradeMode::Secure;
  std::optional<IntOrPercent> max_unavailable;  // omitted: all nodes at once (D2)
};

struct ResourcePoolSpec {
  std::string description;
  PoolType type = PoolType::Physical;
  std::vector<JobType> job_types;
  std::string network;
  std::vector<FlavorRequest> resources;
  std::optional<DriverSpec> driver;
  bool node_binding = false;
  std::map<std::string, std::string> tags;

  bool has_job_type(JobType type) const;
  const FlavorRequest* resource(std::string_view flavor) const;
  int desired_nodes() const;
};

inline constexpr int kMinContainerEngineSpaceGiB = 50;  // P5
inline constexpr std::size_t kMaxTags = 20;             // P11
inline constexpr std::size_t kMaxDescription = 256;

// Reads `spec` (the object's .spec). Wrong types and unknown enum values are violations.
std::expected<ResourcePoolSpec, std::vector<Violation>> parse_pool_spec(const nlohmann::json& spec);
// The rules a pool spec must keep: P1 (name), P2, P3 (a network is named), P4 (flavors from the
// catalog, at least one node each, zone counts sum to the count, no flavor twice), P5, P11, P13.
std::vector<Violation> validate_pool(const ResourcePoolSpec& spec, std::string_view name,
                                     const Catalog& catalog);
// parse_pool_spec and validate_pool on a whole ResourcePool object.
std::expected<ResourcePoolSpec, std::vector<Violation>> check_pool(const nlohmann::json& object,
                                                                   const Catalog& catalog);
// P13, second half: a Logical pool's driver can be upgraded only with node binding.
std::optional<Violation> driver_upgrade_violation(const ResourcePoolSpec& spec);

struct Interconnect {
  std::string vpc;
  std::string subnet;
  Cidr cidr;
};

struct NetworkSpec {
  std::optional<Cidr> cidr;  // omitted: a preset is chosen (W1)
  std::vector<Interconnect> interconnects;
};

inline constexpr std::size_t kMaxInterconnects = 10;  // W4

std::expected<NetworkSpec, std::vector<Violation>> parse_network_spec(const nlohmann::json& spec);
// The name's syntax and W4 (at most 10 interconnects, none twice). Overlaps (W3) depend on the
// other networks: see network.hpp.
std::vector<Violation> validate_network(const NetworkSpec& spec, std::string_view name);
std::expected<NetworkSpec, std::vector<Violation>> check_network(const nlohmann::json& object);

}  // namespace respool::policy
