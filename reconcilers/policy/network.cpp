#include "reconcilers/policy/network.hpp"

#include <algorithm>
#include <numeric>

#include "reconcilers/policy/time.hpp"

namespace respool::policy {

namespace {

using nlohmann::json;

std::string network_owner(const std::string& name, const Cidr& block) {
  return "network " + name + " (" + block.to_string() + ")";
}

std::string interconnect_owner(const Interconnect& ic) {
  return "interconnect " + ic.vpc + "/" + ic.subnet + " (" + ic.cidr.to_string() + ")";
}

const std::vector<Interconnect>& interconnects(const NetworkView& n) {
  static const std::vector<Interconnect> kNone;
  return n.spec ? n.spec->interconnects : kNone;
}

// The conflict of `block` (of network `self`) with what the older networks hold, or nullopt.
std::optional<std::string> conflict(const NetworkView& self, const Cidr& block,
                                    std::span<const UsedBlock> older_blocks,
                                    std::span<const UsedBlock> older_interconnects) {
  const std::string what = block.to_string();
  auto fixed = fixed_blocks();
  if (auto used = first_overlap(block, fixed)) return what + " overlaps " + used->owner + " (W3)";
  if (auto used = first_overlap(block, older_blocks)) {
    return what + " overlaps " + used->owner + ", which is older (W3)";
  }
  if (auto used = first_overlap(block, older_interconnects)) {
    return what + " overlaps " + used->owner + " (W3)";
  }
  for (const Interconnect& ic : interconnects(self)) {
    if (ic.cidr.overlaps(block)) {
      return interconnect_owner(ic) + " overlaps the network's block " + what + " (W3)";
    }
    if (auto used = first_overlap(ic.cidr, older_blocks)) {
      return interconnect_owner(ic) + " overlaps " + used->owner + ", which is older (W3)";
    }
  }
  return std::nullopt;
}

}  // namespace

NetworkView network_view_from_json(const json& object) {
  NetworkView view;
  const json metadata = object.value("metadata", json::object());
  view.name = metadata.value("name", "");
  view.generation = metadata.value("generation", std::int64_t{0});
  view.deleting =
      metadata.contains("deletionTimestamp") && !metadata["deletionTimestamp"].is_null();
  view.created = parse_time(metadata.value("creationTimestamp", "")).value_or(TimePoint{});
  auto parsed = parse_network_spec(object.value("spec", json()));
  if (parsed) {
    view.spec = *parsed;
    view.invalid = validate_network(*parsed, view.name);
  } else {
    view.invalid = parsed.error();
  }
  const json status = object.value("status", json::object());
  if (auto cidr = status.find("cidr"); cidr != status.end() && cidr->is_string()) {
    if (auto block = parse_cidr(cidr->get<std::string>())) view.assigned = *block;
  }
  return view;
}

std::vector<NetworkVerdict> decide_networks(std::span<const NetworkView> networks,
                                            std::span<const Cidr> presets) {
  std::vector<std::size_t> order(networks.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::tie(networks[a].created, networks[a].name) <
           std::tie(networks[b].created, networks[b].name);
  });
  std::vector<NetworkVerdict> verdicts(networks.size());
  for (std::size_t i = 0; i < networks.size(); ++i)
    verdicts[i].name = networks[i].name;

  // Blocks fixed by status or spec (the preset ones are chosen below), and all interconnects.
  auto fixed_block = [&](const NetworkView& n) -> std::optional<Cidr> {
    if (n.assigned) return n.assigned;
    if (n.spec && n.spec->cidr) return n.spec->cidr;
    return std::nullopt;
  };
  const std::size_t admitted = std::min(networks.size(), kMaxNetworks);
  std::vector<UsedBlock> all_interconnects, all_fixed;
  for (std::size_t k = 0; k < admitted; ++k) {
    const NetworkView& n = networks[order[k]];
    if (auto block = fixed_block(n)) all_fixed.push_back({*block, network_owner(n.name, *block)});
    for (const Interconnect& ic : interconnects(n)) {
      all_interconnects.push_back({ic.cidr, interconnect_owner(ic) + " of network " + n.name});
    }
  }

  std::vector<UsedBlock> older_blocks, older_interconnects;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const NetworkView& n = networks[order[k]];
    NetworkVerdict& v = verdicts[order[k]];
    if (k >= kMaxNetworks) {
      v.block = n.assigned;
      v.reason = "TooManyNetworks";
      v.message =
          "at most 15 networks may exist and 15 older ones do; this one is admitted when "
          "one of them is deleted (W2)";
      continue;
    }
    v.admitted = true;
    std::optional<Cidr> block = fixed_block(n);
    if (!n.invalid.empty()) {
      v.reason = "InvalidSpec";
      v.message = join(n.invalid);
    } else if (n.assigned && n.spec->cidr && *n.spec->cidr != *n.assigned) {
      v.reason = "InvalidSpec";
      v.message =
          "spec.cidr: is immutable; the network's block is " + n.assigned->to_string() + " (W1)";
    } else if (!block) {
      std::vector<UsedBlock> in_use = fixed_blocks();
      in_use.insert(in_use.end(), all_fixed.begin(), all_fixed.end());
      in_use.insert(in_use.end(), older_blocks.begin(), older_blocks.end());
      in_use.insert(in_use.end(), all_interconnects.begin(), all_interconnects.end());
      block = choose_preset(presets, in_use);
      if (!block) {
        v.reason = "CIDRConflict";
        v.message = "every preset block overlaps a block or an interconnected subnet in use (W3)";
      }
    } else if (auto why = conflict(n, *block, older_blocks, older_interconnects)) {
      v.reason = "CIDRConflict";
      v.message = *why;
    }
    v.ready = v.reason.empty();
    v.block = n.assigned ? n.assigned : (v.ready ? block : std::nullopt);
    if (block) older_blocks.push_back({*block, network_owner(n.name, *block)});
    for (const Interconnect& ic : interconnects(n)) {
      older_interconnects.push_back({ic.cidr, interconnect_owner(ic) + " of network " + n.name});
    }
  }
  return verdicts;
}

std::vector<std::string> pools_using(std::string_view network,
                                     std::span<const std::pair<std::string, std::string>> pools) {
  std::vector<std::string> out;
  for (const auto& [pool, name] : pools) {
    if (name == network) out.push_back(pool);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

NetworkDeletion network_deletion(std::string_view network,
                                 const std::vector<std::string>& used_by) {
  if (used_by.empty()) return {true, ""};
  std::string pools;
  for (const std::string& p : used_by)
    pools += (pools.empty() ? "" : ", ") + p;
  return {false, "network " + std::string(network) + " is used by pool" +
                     (used_by.size() > 1 ? "s " : " ") + pools +
                     "; it is deleted once no pool names it (W5)"};
}

NetworkStatus network_status(const NetworkView& network, const NetworkVerdict& verdict,
                             std::vector<std::string> used_by,
                             const std::vector<Condition>& previous, TimePoint now) {
  NetworkStatus status;
  status.observed_generation = network.generation;
  status.cidr = verdict.block;
  Condition ready{
      "Ready",
      verdict.ready ? "True" : "False",
      verdict.ready ? "Ready" : verdict.reason,
      verdict.ready ? "block " + verdict.block->to_string() + " in force" : verdict.message,
      {},
      network.generation};
  if (network.deleting) {
    NetworkDeletion deletion = network_deletion(network.name, used_by);
    if (!deletion.release)
      ready = {"Ready", "False", "InUse", deletion.message, {}, network.generation};
  }
  status.used_by = std::move(used_by);
  status.conditions = merge_conditions(previous, {ready}, now);
  return status;
}

json to_json(const NetworkStatus& s) {
  json out = {{"observedGeneration", s.observed_generation},
              {"usedBy", s.used_by},
              {"conditions", to_json(s.conditions)}};
  if (s.cidr) out["cidr"] = s.cidr->to_string();
  return out;
}

}  // namespace respool::policy
