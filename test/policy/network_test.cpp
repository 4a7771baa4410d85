// Networks: preset choice, conflicts, admission and deletion (W1–W5).

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "reconcilers/policy/network.hpp"
#include "reconcilers/policy/time.hpp"

using namespace respool::policy;
using nlohmann::json;
using respool::policy::test::kT0;

namespace {

const std::vector<Cidr> kPresets{*parse_cidr("192.168.0.0/17"), *parse_cidr("192.168.128.0/17"),
                                 *parse_cidr("10.100.0.0/16")};

// A network `age` minutes after kT0, with an optional custom block and status block.
NetworkView net(const std::string& name, int age, std::optional<std::string> cidr = {},
                std::optional<std::string> assigned = {},
                std::vector<Interconnect> interconnects = {}) {
  json object = {{"metadata",
                  {{"name", name},
                   {"generation", 1},
                   {"creationTimestamp", format_time(kT0 + std::chrono::minutes{age})}}},
                 {"spec", json::object()}};
  if (cidr) object["spec"]["cidr"] = *cidr;
  for (const Interconnect& ic : interconnects) {
    object["spec"]["interconnects"].push_back(
        {{"vpc", ic.vpc}, {"subnet", ic.subnet}, {"cidr", ic.cidr.to_string()}});
  }
  if (assigned) object["status"] = {{"cidr", *assigned}};
  return network_view_from_json(object);
}

Interconnect ic(const std::string& vpc, const std::string& cidr) {
  return {vpc, "subnet-a", *parse_cidr(cidr)};
}

std::string block(const NetworkVerdict& v) {
  return v.block ? v.block->to_string() : "-";
}

}  // namespace

TEST_CASE("W1: a network without a block gets the first free preset",
          "[policy][network][rule:W1]") {
  std::vector<NetworkView> nets{net("a", 0), net("b", 1), net("c", 2, "192.168.0.0/24")};
  auto v = decide_networks(nets, kPresets);
  // c's custom block takes part of the first preset, so a gets the second and b the third.
  CHECK(block(v[0]) == "192.168.128.0/17");
  CHECK(block(v[1]) == "10.100.0.0/16");
  CHECK(block(v[2]) == "192.168.0.0/24");
  for (const auto& x : v)
    CHECK(x.ready);
}

TEST_CASE("W1: the block in force never changes", "[policy][network][rule:W1]") {
  // Already assigned: kept even though an earlier preset is free now.
  auto v = decide_networks(std::vector{net("a", 0, {}, "10.100.0.0/16")}, kPresets);
  CHECK(block(v[0]) == "10.100.0.0/16");
  CHECK(v[0].ready);
  // A spec.cidr that differs from the block in force (where CEL did not refuse the update).
  v = decide_networks(std::vector{net("a", 0, "10.1.0.0/16", "10.100.0.0/16")}, kPresets);
  CHECK_FALSE(v[0].ready);
  CHECK(v[0].reason == "InvalidSpec");
  CHECK(v[0].message == "spec.cidr: is immutable; the network's block is 10.100.0.0/16 (W1)");
  CHECK(block(v[0]) == "10.100.0.0/16");
}

TEST_CASE("W3: custom blocks must avoid the container and service blocks",
          "[policy][network][rule:W3]") {
  auto v = decide_networks(std::vector{net("a", 0, "172.16.0.0/12")}, kPresets);
  CHECK(v[0].reason == "CIDRConflict");
  CHECK(v[0].message == "172.16.0.0/12 overlaps the container block 172.16.0.0/16 (W3)");
  CHECK(block(v[0]) == "-");
  v = decide_networks(std::vector{net("a", 0, "10.0.0.0/8")}, kPresets);
  CHECK(v[0].message == "10.0.0.0/8 overlaps the service block 10.247.0.0/16 (W3)");
}

TEST_CASE("W3: between two networks the older keeps its block", "[policy][network][rule:W3]") {
  // Given in any order: age decides, then the name.
  std::vector<NetworkView> nets{net("new", 5, "10.1.0.0/16"), net("old", 1, "10.0.0.0/14")};
  auto v = decide_networks(nets, kPresets);
  CHECK(v[1].ready);
  CHECK(block(v[1]) == "10.0.0.0/14");
  CHECK_FALSE(v[0].ready);
  CHECK(v[0].reason == "CIDRConflict");
  CHECK(v[0].message == "10.1.0.0/16 overlaps network old (10.0.0.0/14), which is older (W3)");
  CHECK(block(v[0]) == "-");

  // Same creation time: the name decides.
  v = decide_networks(std::vector{net("b", 0, "10.1.0.0/16"), net("a", 0, "10.1.0.0/24")},
                      kPresets);
  CHECK(v[1].ready);
  CHECK(v[0].message == "10.1.0.0/16 overlaps network a (10.1.0.0/24), which is older (W3)");

  // An older network's interconnect also holds its subnet; a newer network's interconnect must
  // avoid older blocks; a network's own interconnect must avoid its block.
  v = decide_networks(std::vector{net("a", 0, "10.1.0.0/16", {}, {ic("vpc-prod", "10.9.0.0/24")}),
                                  net("b", 1, "10.9.0.0/16")},
                      kPresets);
  CHECK(v[0].ready);
  CHECK(v[1].message ==
        "10.9.0.0/16 overlaps interconnect vpc-prod/subnet-a (10.9.0.0/24) of "
        "network a (W3)");
  v = decide_networks(std::vector{net("a", 0, "10.1.0.0/16"),
                                  net("b", 1, "10.2.0.0/16", {}, {ic("vpc-x", "10.1.3.0/24")})},
                      kPresets);
  CHECK(v[1].message ==
        "interconnect vpc-x/subnet-a (10.1.3.0/24) overlaps network a "
        "(10.1.0.0/16), which is older (W3)");
  v = decide_networks(std::vector{net("a", 0, "10.1.0.0/16", {}, {ic("vpc-x", "10.1.3.0/24")})},
                      kPresets);
  CHECK(v[0].message ==
        "interconnect vpc-x/subnet-a (10.1.3.0/24) overlaps the network's block 10.1.0.0/16 (W3)");

  // Two networks may interconnect the same subnet.
  v = decide_networks(std::vector{net("a", 0, "10.1.0.0/16", {}, {ic("vpc-x", "10.50.0.0/24")}),
                                  net("b", 1, "10.2.0.0/16", {}, {ic("vpc-x", "10.50.0.0/24")})},
                      kPresets);
  CHECK(v[0].ready);
  CHECK(v[1].ready);
}

TEST_CASE("W3: a conflicting network keeps its claim against newer ones",
          "[policy][network][rule:W3]") {
  // b conflicts with a; c overlaps b only. c conflicts with b, so that deleting a makes b Ready
  // without turning c from Ready to conflicting.
  std::vector<NetworkView> nets{net("a", 0, "10.1.0.0/16"), net("b", 1, "10.0.0.0/14"),
                                net("c", 2, "10.2.0.0/16")};
  auto v = decide_networks(nets, kPresets);
  CHECK(v[0].ready);
  CHECK(v[1].reason == "CIDRConflict");
  CHECK(v[2].message == "10.2.0.0/16 overlaps network b (10.0.0.0/14), which is older (W3)");
  nets.erase(nets.begin());
  v = decide_networks(nets, kPresets);
  CHECK(v[0].ready);
  CHECK(v[1].reason == "CIDRConflict");
}

TEST_CASE("W3: presets avoid every block and interconnect in use", "[policy][network][rule:W3]") {
  std::vector<NetworkView> nets{net("a", 0, {}, {}, {ic("vpc-x", "192.168.200.0/24")}),
                                net("b", 1, "192.168.0.0/20")};
  auto v = decide_networks(nets, kPresets);
  CHECK(block(v[0]) == "10.100.0.0/16");
  CHECK(v[0].ready);
  CHECK(v[1].ready);
  nets.push_back(net("c", 2));
  v = decide_networks(nets, kPresets);
  CHECK_FALSE(v[2].ready);
  CHECK(v[2].reason == "CIDRConflict");
  CHECK(v[2].message ==
        "every preset block overlaps a block or an interconnected subnet in use (W3)");
}

TEST_CASE("W2: the 16th network is refused in its status, not deleted",
          "[policy][network][rule:W2]") {
  std::vector<NetworkView> nets;
  for (int i = 0; i < 16; ++i) {
    nets.push_back(net("n" + std::to_string(i), 16 - i, "10." + std::to_string(i) + ".0.0/16"));
  }
  auto v = decide_networks(nets, kPresets);
  // n0 is the newest (created last).
  CHECK_FALSE(v[0].admitted);
  CHECK_FALSE(v[0].ready);
  CHECK(v[0].reason == "TooManyNetworks");
  CHECK(v[0].message ==
        "at most 15 networks may exist and 15 older ones do; this one is "
        "admitted when one of them is deleted (W2)");
  for (int i = 1; i < 16; ++i)
    CHECK(v[i].admitted);
  // One of the older ones goes: the 16th is admitted.
  nets.erase(nets.begin() + 7);
  v = decide_networks(nets, kPresets);
  CHECK(v[0].admitted);
  CHECK(v[0].ready);
}

TEST_CASE("W4: too many interconnects is an invalid spec", "[policy][network][rule:W4]") {
  std::vector<Interconnect> many;
  for (int i = 0; i < 11; ++i)
    many.push_back(ic("vpc-" + std::to_string(i), "10.60.0.0/24"));
  auto v = decide_networks(std::vector{net("a", 0, "10.1.0.0/16", {}, many)}, kPresets);
  CHECK(v[0].reason == "InvalidSpec");
  CHECK(v[0].message == "spec.interconnects: at most 10 interconnected subnets, not 11 (W4)");
}

TEST_CASE("W5: a network in use is not released", "[policy][network][rule:W5]") {
  std::vector<std::pair<std::string, std::string>> pools{
      {"gpu-b", "net-a"}, {"cpu", "net-b"}, {"gpu-a", "net-a"}};
  auto used = pools_using("net-a", pools);
  CHECK(used == std::vector<std::string>{"gpu-a", "gpu-b"});
  auto deletion = network_deletion("net-a", used);
  CHECK_FALSE(deletion.release);
  CHECK(deletion.message ==
        "network net-a is used by pools gpu-a, gpu-b; it is deleted once no pool names it (W5)");
  CHECK(network_deletion("net-b", {"cpu"}).message ==
        "network net-b is used by pool cpu; it is deleted once no pool names it (W5)");
  CHECK(network_deletion("net-c", {}).release);

  json object = {{"metadata",
                  {{"name", "net-a"},
                   {"generation", 3},
                   {"deletionTimestamp", "2026-01-02T00:00:00Z"},
                   {"creationTimestamp", "2026-01-01T00:00:00Z"}}},
                 {"spec", json::object()},
                 {"status", {{"cidr", "192.168.0.0/17"}}}};
  NetworkView view = network_view_from_json(object);
  CHECK(view.deleting);
  auto verdict = decide_networks(std::vector{view}, kPresets)[0];
  auto status = network_status(view, verdict, used, {}, kT0);
  json out = to_json(status);
  CHECK(out["cidr"] == "192.168.0.0/17");
  CHECK(out["usedBy"] == json({"gpu-a", "gpu-b"}));
  CHECK(out["observedGeneration"] == 3);
  CHECK(out["conditions"][0]["reason"] == "InUse");
  CHECK(out["conditions"][0]["status"] == "False");
  CHECK(out["conditions"][0]["message"] == deletion.message);
}

TEST_CASE("network status: Ready with the block, transition time kept", "[policy][network]") {
  NetworkView view = net("a", 0);
  auto verdict = decide_networks(std::vector{view}, kPresets)[0];
  auto first = network_status(view, verdict, {}, {}, kT0);
  CHECK(to_json(first) == json::parse(R"({"observedGeneration": 1, "usedBy": [],
    "cidr": "192.168.0.0/17", "conditions": [{"type": "Ready", "status": "True", "reason": "Ready",
    "message": "block 192.168.0.0/17 in force", "lastTransitionTime": "2026-01-01T00:00:00Z",
    "observedGeneration": 1}]})"));
  auto later = network_status(view, verdict, {"p"}, first.conditions, kT0 + std::chrono::hours{1});
  CHECK(later.conditions[0].last_transition == kT0);
  CHECK(later.used_by == std::vector<std::string>{"p"});
}
