// H1–H6, H13: the GPU check, from made-up NVML readings and an injected time.

#include <catch2/catch.hpp>

#include "agent/checks/gpu_check.hpp"
#include "fixtures.hpp"

using namespace respool::agent;
using namespace respool::agent::test;
using Codes = std::vector<std::string>;

namespace {

FamilyResult check(const GpuReadings& r, Expectations expect = gpu_flavor(1)) {
  return check_gpus(r, {expect, std::chrono::hours(1)}, kT0);
}

}  // namespace

TEST_CASE("H1 H4: a healthy H100 with unsupported readings is healthy, not faulty",
          "[agent][gpu][rule:H1][rule:H4]") {
  auto r = check(healthy_gpus(1));
  CHECK(r.applies);
  CHECK(r.conclusive);
  CHECK(r.faults.empty());
  CHECK(r.failures.empty());  // NOT_SUPPORTED is "not available", never a failure
}

TEST_CASE("H1: uncorrectable ECC, pending retirement, remapping failure, register file, SRAM",
          "[agent][gpu][rule:H1]") {
  auto r = healthy_gpus(1);
  auto& d = r.devices[0];
  SECTION("volatile uncorrectable: 0 healthy, 1 faulty") {
    CHECK(check(r).faults.empty());
    d.ecc_volatile_uncorrected = value(1ull);
    auto out = check(r);
    REQUIRE(codes(out) == Codes{"A050101"});
    CHECK(out.faults[0].device == "GPU 0 (GPU-0)");
    CHECK(out.faults[0].message == "volatile uncorrectable ECC errors: 1");
  }
  SECTION("correctable errors alone are healthy (L1)") {
    d.ecc_volatile_corrected = value(10'000ull);
    CHECK(check(r).faults.empty());
  }
  SECTION("pending page retirement") {
    d.retirement_pending = value(true);
    CHECK(codes(check(r)) == Codes{"A050101"});
  }
  SECTION("row remapping failed; pending remaps alone are healthy") {
    d.remapped_rows = value(RemappedRows{0, 2, true, false});
    CHECK(check(r).faults.empty());
    d.remapped_rows = value(RemappedRows{0, 2, false, true});
    CHECK(codes(check(r)) == Codes{"A050101"});
  }
  SECTION("multi-bit register file > 0") {
    d.register_file_volatile_uncorrected = value(1ull);
    CHECK(codes(check(r)) == Codes{"A050101"});
  }
  SECTION("uncorrectable SRAM: 4 healthy, 5 faulty") {
    d.sram_aggregate_uncorrected = value(4ull);
    CHECK(check(r).faults.empty());
    d.sram_aggregate_uncorrected = value(5ull);
    CHECK(codes(check(r)) == Codes{"A050101"});
  }
}

TEST_CASE("H2: retired pages, single plus double bit: 64 healthy, 65 A050104",
          "[agent][gpu][rule:H2]") {
  auto r = healthy_gpus(1);
  auto& d = r.devices[0];
  d.retired_pages_single_bit = value(60u);
  d.retired_pages_double_bit = value(4u);
  CHECK(check(r).faults.empty());
  d.retired_pages_double_bit = value(5u);
  auto out = check(r);
  REQUIRE(codes(out) == Codes{"A050104"});
  CHECK(out.faults[0].message == "retired pages: 60 single bit + 5 double bit = 65 (more than 64)");
}

TEST_CASE("H3: a corrupted infoROM is A050148", "[agent][gpu][rule:H3]") {
  auto r = healthy_gpus(1);
  r.devices[0].inforom_rc = nvml::kErrorNotSupported;
  CHECK(check(r).faults.empty());
  r.devices[0].inforom_rc = nvml::kErrorCorruptedInforom;
  CHECK(codes(check(r)) == Codes{"A050148"});
}

TEST_CASE("H4: a fan or power reading in error is A050102; unsupported or forbidden is not",
          "[agent][gpu][rule:H4]") {
  auto r = healthy_gpus(1);
  auto& d = r.devices[0];
  d.power_milliwatts = failed<unsigned int>(nvml::kErrorNoPermission);
  CHECK(check(r).faults.empty());
  d.fan_speed_percent = failed<unsigned int>(nvml::kErrorUnknown);
  auto out = check(r);
  REQUIRE(codes(out) == Codes{"A050102"});
  CHECK_THAT(out.faults[0].message, Catch::Contains("fan speed"));
}

TEST_CASE("H5: a lost GPU and critical Xid events are A050109 (Xid 95, 48: A050101), for the hold",
          "[agent][gpu][rule:H5]") {
  auto r = healthy_gpus(2);
  SECTION("lost") {
    r.devices[1].ecc_volatile_uncorrected = failed<unsigned long long>(nvml::kErrorGpuIsLost);
    auto out = check(r);
    REQUIRE(codes(out) == Codes{"A050109"});
    CHECK(out.faults[0].device == "GPU 1 (GPU-1)");
  }
  SECTION("Xid events, held for an hour") {
    r.xids = {{1, "GPU-1", 79, kT0 - std::chrono::minutes(59)},
              {0, "GPU-0", 95, kT0 - std::chrono::minutes(1)},
              {0, "GPU-0", 13, kT0},  // the application's, not the GPU's
              {0, "GPU-0", 74, kT0 - std::chrono::minutes(61)}};
    CHECK(codes(check(r)) == Codes{"A050109", "A050101"});
  }
}

TEST_CASE("H6: NVML missing on a GPU flavor, failing to start or timing out is A050103",
          "[agent][gpu][rule:H6]") {
  GpuReadings r;
  r.library = GpuReadings::Library::Missing;
  r.detail = "libnvidia-ml.so.1: cannot open shared object file";
  CHECK(codes(check(r, gpu_flavor())) == Codes{"A050103"});
  // A node that promises no GPU (or whose flavor is unknown) has nothing to check.
  CHECK_FALSE(check(r, cpu_flavor()).applies);
  CHECK_FALSE(check(r, Expectations{}).applies);
  r.library = GpuReadings::Library::InitFailed;
  r.init_rc = nvml::kErrorDriverNotLoaded;
  CHECK(codes(check(r, gpu_flavor())) == Codes{"A050103"});
  CHECK_FALSE(check(r, cpu_flavor()).applies);
  r.library = GpuReadings::Library::TimedOut;
  r.detail = "nvmlDeviceGetTotalEccErrors did not return within 5000ms";
  auto out = check(r, Expectations{});
  REQUIRE(codes(out) == Codes{"A050103"});
  CHECK(out.faults[0].message == r.detail);
}

TEST_CASE("H6: a library without a function is the check's failure, never a fault",
          "[agent][gpu][rule:H6]") {
  GpuReadings r;
  r.library = GpuReadings::Library::BadLibrary;
  r.detail = "nvmlDeviceGetCount_v2";
  auto out = check(r, gpu_flavor());
  CHECK(out.faults.empty());
  CHECK_FALSE(out.conclusive);
  REQUIRE(out.failures.size() == 1);
  CHECK(out.failures[0].what == "nvmlDeviceGetCount_v2");

  auto partial = healthy_gpus(1);
  partial.missing_symbols = {"nvmlDeviceGetRemappedRows"};
  partial.devices[0].remapped_rows = failed<RemappedRows>(nvml::kSymbolMissing);
  out = check(partial);
  CHECK(out.faults.empty());
  CHECK(out.conclusive);  // the other readings still say healthy
  REQUIRE(out.failures.size() == 1);
  CHECK(out.failures[0].what == "nvmlDeviceGetRemappedRows");
}

TEST_CASE("H6: a call that fails for another reason is a failure; a failed count is inconclusive",
          "[agent][gpu][rule:H6]") {
  auto r = healthy_gpus(1);
  r.devices[0].ecc_volatile_uncorrected = failed<unsigned long long>(nvml::kErrorNoPermission);
  auto out = check(r);
  CHECK(out.faults.empty());
  CHECK(out.conclusive);
  REQUIRE(out.failures.size() == 1);
  CHECK(out.failures[0].what == "nvmlDeviceGetTotalEccErrors");
  r.device_count = failed<unsigned int>(nvml::kErrorUnknown);
  out = check(r);
  CHECK(out.faults.empty());
  CHECK_FALSE(out.conclusive);
}

TEST_CASE("H13: fewer GPUs than the flavor promises is A050203", "[agent][gpu][rule:H13]") {
  auto r = healthy_gpus(7);
  auto out = check(r, gpu_flavor(8));
  REQUIRE(codes(out) == Codes{"A050203"});
  CHECK(out.faults[0].message == "7 of 8 GPUs found");
  CHECK(check(healthy_gpus(8), gpu_flavor(8)).faults.empty());
  CHECK(check(r, Expectations{}).faults.empty());  // unknown flavor: nothing promised
}
