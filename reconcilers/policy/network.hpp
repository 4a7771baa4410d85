#pragma once
// Decisions about Networks (W1–W5), made for all networks at once because each one's block
// depends on the others:
//   W2  at most 15 networks: the 15 oldest (creationTimestamp, then name) are admitted; a newer
//       one is refused in its status (Ready=False TooManyNetworks), not deleted, and admitted when
//       an older one goes.
//   W1  the block in force is status.cidr once set, and never changes: spec.cidr when given, else
//       the first preset that overlaps nothing in use. A spec.cidr that differs from the block
//       in force is InvalidSpec (the CRD's CEL rule refuses it where CEL runs).
//   W3  a block must not overlap the container block 172.16.0.0/16, the service block
//       10.247.0.0/16, another network's block or any interconnected subnet. Between two
//       networks the older keeps its block: the newer gets Ready=False CIDRConflict naming the
//       other (also when the newer one's interconnect overlaps the older one's block). Presets
//       avoid every block and interconnect in use, so a preset never causes a conflict.
//   W4  at most 10 interconnects (InvalidSpec).
//   W5  a network that a pool names is not released while in use (Ready=False InUse).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/cidr.hpp"
#include "reconcilers/policy/conditions.hpp"
#include "reconcilers/policy/spec.hpp"

namespace respool::policy {

inline constexpr std::size_t kMaxNetworks = 15;  // W2

struct NetworkView {
  std::string name;
  TimePoint created{};
  std::int64_t generation = 0;
  bool deleting = false;
  std::optional<NetworkSpec> spec;  // nullopt when the spec does not parse
  std::vector<Violation> invalid;   // what check_network found
  std::optional<Cidr> assigned;     // status.cidr: the block in force
};
NetworkView network_view_from_json(const nlohmann::json& object);

struct NetworkVerdict {
  std::string name;
  bool admitted = false;      // W2
  std::optional<Cidr> block;  // status.cidr to write; nullopt: none yet
  bool ready = false;
  std::string reason;  // when not ready: TooManyNetworks, InvalidSpec, CIDRConflict
  std::string message;
};

// One verdict per network, in the order given. `presets` come from the catalog.
std::vector<NetworkVerdict> decide_networks(std::span<const NetworkView> networks,
                                            std::span<const Cidr> presets);

// The pools that name `network`, sorted: status.usedBy. Pairs are (pool, spec.network).
std::vector<std::string> pools_using(std::string_view network,
                                     std::span<const std::pair<std::string, std::string>> pools);

// W5: what a network being deleted may do.
struct NetworkDeletion {
  bool release = false;  // remove the finalizer: no pool uses it
  std::string message;   // when not: the InUse condition message and event
};
NetworkDeletion network_deletion(std::string_view network, const std::vector<std::string>& used_by);

struct NetworkStatus {
  std::int64_t observed_generation = 0;
  std::optional<Cidr> cidr;
  std::vector<std::string> used_by;
  std::vector<Condition> conditions;
};

// The status from the verdict, the pools that use the network and, while it is being deleted,
// the W5 state. `previous` are the status's current conditions.
NetworkStatus network_status(const NetworkView& network, const NetworkVerdict& verdict,
                             std::vector<std::string> used_by,
                             const std::vector<Condition>& previous, TimePoint now);
nlohmann::json to_json(const NetworkStatus& status);

}  // namespace respool::policy
