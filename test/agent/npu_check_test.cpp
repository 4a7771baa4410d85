// H7–H9, H13: the NPU check, from made-up DCMI readings, and the rolling link-down window.

#include <catch2/catch.hpp>

#include "agent/checks/npu_check.hpp"
#include "agent/state_file.hpp"
#include "fixtures.hpp"

using namespace respool::agent;
using namespace respool::agent::test;
using Codes = std::vector<std::string>;
using std::chrono::hours;
using std::chrono::minutes;

namespace {

FamilyResult check(const NpuReadings& r, const LinkDownWindow& w = {},
                   Expectations expect = npu_flavor(1),
                   std::chrono::system_clock::time_point now = kT0) {
  return check_npus(r, w, expect, now);
}

}  // namespace

TEST_CASE(
    "H7: driver exception A050121, major or urgent alarm A050122, network A050123, other "
    "errors A050129",
    "[agent][npu][rule:H7]") {
  auto r = healthy_npus(1);
  CHECK(check(r).faults.empty());
  CHECK(check(r).failures.empty());
  SECTION("driver health") {
    r.driver_health = {dcmi::kOk, 1u};
    CHECK(codes(check(r)) == Codes{"A050121"});
  }
  SECTION("device health: minor is healthy, major and urgent are A050122") {
    r.devices[0].health = {dcmi::kOk, 1u};
    CHECK(check(r).faults.empty());
    r.devices[0].health = {dcmi::kOk, 2u};
    CHECK(codes(check(r)) == Codes{"A050122"});
    r.devices[0].health = {dcmi::kOk, 3u};
    CHECK_THAT(check(r).faults[0].message, Catch::Contains("urgent"));
  }
  SECTION("network health; a probe not yet set up (INIT) is healthy") {
    r.devices[0].network = {dcmi::kOk, dcmi::kNetworkInit};
    CHECK(check(r).faults.empty());
    r.devices[0].network = {dcmi::kOk, 3};
    auto out = check(r);
    REQUIRE(codes(out) == Codes{"A050123"});
    CHECK(out.faults[0].device == "NPU 0/0");
  }
  SECTION("error codes with nothing more specific are A050129") {
    r.devices[0].error_codes = {dcmi::kOk, {0x80e18402u}};
    auto out = check(r);
    REQUIRE(codes(out) == Codes{"A050129"});
    CHECK(out.faults[0].message == "DCMI error codes: 0x80e18402");
    r.devices[0].health = {dcmi::kOk, 2u};
    CHECK(codes(check(r)) == Codes{"A050122"});
  }
  SECTION("unsupported readings are neither faults nor failures") {
    r.devices[0].network = {dcmi::kNotSupported, 0};
    r.devices[0].hbm_ecc = {dcmi::kNotSupportedInContainer, {}};
    auto out = check(r);
    CHECK(out.faults.empty());
    CHECK(out.failures.empty());
  }
  SECTION("DCMI missing on an NPU flavor is A050121; elsewhere nothing to check") {
    NpuReadings missing;
    missing.library = NpuReadings::Library::Missing;
    CHECK(codes(check(missing)) == Codes{"A050121"});
    CHECK_FALSE(check(missing, {}, gpu_flavor()).applies);
    missing.library = NpuReadings::Library::TimedOut;
    CHECK(codes(check(missing, {}, Expectations{})) == Codes{"A050121"});
  }
  SECTION("a failed card list is the check's failure, inconclusive") {
    r.cards = {-8020, {}};
    auto out = check(r);
    CHECK(out.faults.empty());
    CHECK_FALSE(out.conclusive);
    REQUIRE(out.failures.size() == 1);
    CHECK(out.failures[0].what == "dcmi_get_card_num_list");
  }
}

TEST_CASE("H8: HBM double-bit isolated pages: 63 healthy, 64 A050951", "[agent][npu][rule:H8]") {
  auto r = healthy_npus(1);
  r.devices[0].hbm_ecc.value.double_bit_isolated_pages_cnt = 63;
  CHECK(check(r).faults.empty());
  r.devices[0].hbm_ecc.value.double_bit_isolated_pages_cnt = 64;
  CHECK(codes(check(r)) == Codes{"A050951"});
}

TEST_CASE(
    "H9: hccn link down 5 times in 24 hours is healthy, the 6th is A050149, the window "
    "slides",
    "[agent][npu][rule:H9]") {
  auto r = healthy_npus(1);
  LinkDownWindow w;
  auto at = kT0;
  // Each flap: a reading down, then up again (A050123 while down).
  auto flap = [&](int n) {
    for (int i = 0; i < n; ++i) {
      r.devices[0].network = {dcmi::kOk, 3};
      observe_links(r, w, at);
      at += minutes(10);
      r.devices[0].network = {dcmi::kOk, dcmi::kNetworkOk};
      observe_links(r, w, at);
      at += minutes(10);
    }
  };
  flap(5);
  CHECK(w.downs("NPU 0/0", at) == 5);
  CHECK(check(r, w, npu_flavor(1), at).faults.empty());
  // Still down on the next reading: the same down, not another.
  r.devices[0].network = {dcmi::kOk, 3};
  observe_links(r, w, at);
  observe_links(r, w, at + minutes(1));
  CHECK(w.downs("NPU 0/0", at + minutes(1)) == 6);
  r.devices[0].network = {dcmi::kOk, dcmi::kNetworkOk};
  observe_links(r, w, at + minutes(2));
  auto out = check(r, w, npu_flavor(1), at + minutes(2));
  REQUIRE(codes(out) == Codes{"A050149"});
  CHECK(out.faults[0].message == "hccn link down 6 times in 24 hours (more than 5)");
  // The first down (at kT0) leaves the window 24 hours later: 5 remain, healthy again.
  CHECK(codes(check(r, w, npu_flavor(1), kT0 + hours(24) - minutes(1))) == Codes{"A050149"});
  CHECK(check(r, w, npu_flavor(1), kT0 + hours(24)).faults.empty());
}

TEST_CASE("H9: the link-down count survives a restart through the state file",
          "[agent][npu][rule:H9]") {
  TempDir dir("agent-state");
  AgentState before;
  for (int i = 0; i < 6; ++i) {
    before.links.observe("NPU 0/0", false, kT0 + minutes(i * 2));
    before.links.observe("NPU 0/0", true, kT0 + minutes(i * 2 + 1));
  }
  before.xids.push_back({3, "GPU-3", 79, kT0});
  auto file = dir.path() / "state.json";
  REQUIRE(save_state(file, before));
  auto after = load_state(file);
  REQUIRE(after);
  CHECK(*after == before);
  CHECK(after->links.downs("NPU 0/0", kT0 + hours(1)) == 6);
  REQUIRE(after->xids.size() == 1);
  CHECK(after->xids[0].xid == 79u);
  // A missing file is an empty history; a damaged one an error, never a crash.
  auto empty = load_state(dir.path() / "none.json");
  REQUIRE(empty);
  CHECK(empty->links.links().empty());
  dir.write("bad.json", "{\"linkDowns\": [");
  CHECK_FALSE(load_state(dir.path() / "bad.json"));
  dir.write("odd.json", R"({"linkDowns": {"NPU 0/0": {"up": "yes", "downs": [1, "x"]}}})");
  auto odd = load_state(dir.path() / "odd.json");
  REQUIRE(odd);
  CHECK(odd->links.links() == std::vector<std::string>{"NPU 0/0"});
}

TEST_CASE("H13: fewer NPUs than the flavor promises is A050203", "[agent][npu][rule:H13]") {
  CHECK(codes(check(healthy_npus(7), {}, npu_flavor(8))) == Codes{"A050203"});
  CHECK(check(healthy_npus(8), {}, npu_flavor(8)).faults.empty());
}
