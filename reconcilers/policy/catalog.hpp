#pragma once
// The catalog (--catalog FILE, API.md): which node label names a node's flavor and zone, the
// flavors with their accelerators, the preset network blocks, the plug-ins each job type
// installs, the driver images and the reset image. The operator reads the YAML file, converts it
// to JSON and calls parse_catalog once at start; everything else reads the typed Catalog.
//
// Additions to API.md's format: a flavor may say `labelValue` when the node label's value is
// not the flavor's name and `infiniband: true` when its nodes have InfiniBand, and plug-in
// manifests are templates (see plugins.hpp): string values may hold {{pool}}, {{jobType}} and
// {{jobTypeLabel}}, which are the only placeholders accepted.

#include <expected>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/cidr.hpp"
#include "reconcilers/policy/int_or_percent.hpp"
#include "reconcilers/policy/types.hpp"

namespace respool::policy {

class FailureCatalogue;  // failure_catalogue.hpp

struct Accelerator {
  AcceleratorType type = AcceleratorType::None;
  std::string resource;  // extended resource, e.g. "nvidia.com/gpu"; empty for None
  int count = 0;         // per node; 0 for None
};

struct Flavor {
  std::string name;         // what spec.resources[].flavor names
  std::string label_value;  // the flavor label's value on its nodes (default: name)
  Accelerator accelerator;
  // Addition: `infiniband: true` when the flavor's nodes have InfiniBand NICs; the node agent
  // then reports a node without any as faulty (A050147, H12).
  bool infiniband = false;
};

// N1, N2: replacements in a rolling 24 hours, and at once, as a share of the pool's nodes.
struct ReplacementLimits {
  IntOrPercent per_day{20, true};    // N1
  IntOrPercent concurrent{5, true};  // N2
  bool operator==(const ReplacementLimits&) const = default;
};

struct Catalog {
  std::string flavor_label = "node.kubernetes.io/instance-type";
  std::string zone_label = "topology.kubernetes.io/zone";
  std::vector<Flavor> flavors;
  std::vector<Cidr> network_presets;
  // Per job type, the manifests (templates) installed for each pool of that type.
  std::map<JobType, std::vector<nlohmann::json>> plugins;
  // Per accelerator type, the driver image with "{version}" where the version goes.
  std::map<AcceleratorType, std::string> driver_images;
  // Per accelerator type, the versions the catalog offers (`drivers.GPU.versions`); a type
  // without a list takes any version.
  std::map<AcceleratorType, std::vector<std::string>> driver_versions;
  std::string reset_image;
  // Addition: `nodeOperations: {replacementsPerDay: 20%, concurrentReplacements: 5%}`.
  ReplacementLimits replacement_limits;
  // Addition: `failures`, the known training failures code-error detection recognises (O3, O7);
  // parse_catalog always sets it (empty without the list); null in a hand-built Catalog.
  std::shared_ptr<const FailureCatalogue> failures;

  const Flavor* flavor(std::string_view name) const;
  // The flavor whose nodes carry this flavor-label value.
  const Flavor* flavor_by_label(std::string_view label_value) const;
  // The driver image for a version, or nullopt when the catalog has no driver of that type.
  std::optional<std::string> driver_image(AcceleratorType type, std::string_view version) const;
  // Whether the catalog offers `version` for the type: listed, or no list at all.
  bool offers_driver(AcceleratorType type, std::string_view version) const;
  // "gpu-8x-a100, cpu-64c": for messages that list what exists.
  std::string flavor_names() const;
};

// Errors name the field: "flavors[2].accelerator.count: must be a positive integer".
std::expected<Catalog, std::string> parse_catalog(const nlohmann::json& document);

}  // namespace respool::policy
