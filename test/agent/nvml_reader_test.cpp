// H1, H6: the NVML and DCMI readers through their real dlopen path, against the test libraries
// (agent/testlibs), whose answers a test changes while the reader runs.

#include <cstdlib>

#include <catch2/catch.hpp>

#include "agent/bounded_worker.hpp"
#include "agent/checks/gpu_check.hpp"
#include "agent/checks/npu_check.hpp"
#include "agent/dcmi/dcmi_reader.hpp"
#include "agent/nvml/nvml_reader.hpp"
#include "fixtures.hpp"
#include "operator/runtime/clock.hpp"

using namespace respool::agent;
using namespace respool::agent::test;
using Codes = std::vector<std::string>;
using namespace std::chrono_literals;

namespace {

const std::string kFakeNvml = RESPOOL_BINARY_DIR "/agent/testlibs/libnvidia-ml-fake.so";
const std::string kPartialNvml = RESPOOL_BINARY_DIR "/agent/testlibs/libnvidia-ml-fake-partial.so";
const std::string kFakeDcmi = RESPOOL_BINARY_DIR "/agent/testlibs/libdcmi-fake.so";
const std::string kPartialDcmi = RESPOOL_BINARY_DIR "/agent/testlibs/libdcmi-fake-partial.so";

const char* kTwoGpus = R"({"driverVersion": "550.54.15", "devices": [
  {"uuid": "GPU-a", "name": "NVIDIA H100 80GB HBM3", "eccVolatileUncorrected": 0,
   "eccVolatileCorrected": 0, "retiredPagesSingleBit": 1, "retiredPagesDoubleBit": 0,
   "retirementPending": false, "remappedRows": {"failed": false},
   "powerMilliwatts": 70000, "temperatureCelsius": 31, "utilization": {"gpu": 5, "memory": 1}},
  {"uuid": "GPU-b", "name": "NVIDIA H100 80GB HBM3", "eccVolatileUncorrected": 0,
   "powerMilliwatts": 71000, "temperatureCelsius": 32}]})";

// Points the test library at a readings file for the test's duration.
struct FakeReadings {
  TempDir dir{"agent-nvml"};
  const char* env;
  FakeReadings(const char* variable, const std::string& json) : env(variable) {
    write(json);
    setenv(env, (dir.path() / "readings.json").c_str(), 1);
  }
  ~FakeReadings() { unsetenv(env); }
  void write(const std::string& json) const { dir.write("readings.json", json); }
};

FamilyResult check(const GpuReadings& r) {
  return check_gpus(r, {gpu_flavor(2), std::chrono::hours(1)}, r.xids.empty() ? kT0 : r.xids[0].at);
}

}  // namespace

TEST_CASE("H1: NVML read through dlopen; a reading flipped while the reader runs is seen",
          "[agent][nvml][rule:H1]") {
  FakeReadings fake("RESPOOL_FAKE_NVML_FILE", kTwoGpus);
  NvmlReader reader(kFakeNvml, 5s, respool::runtime::real_clock(), false);
  auto r = reader.read();
  REQUIRE(r.library == GpuReadings::Library::Loaded);
  CHECK(r.driver_version == "550.54.15");
  REQUIRE(r.devices.size() == 2);
  CHECK(r.devices[0].uuid == "GPU-a");
  CHECK(r.devices[0].retired_pages_single_bit.value == 1u);
  CHECK(r.devices[1].retired_pages_single_bit.rc == nvml::kErrorNotSupported);
  CHECK(r.devices[1].fan_speed_percent.rc == nvml::kErrorNotSupported);
  CHECK(check(r).faults.empty());
  CHECK(check(r).failures.empty());

  auto flipped = nlohmann::json::parse(kTwoGpus);
  flipped["devices"][1]["eccVolatileUncorrected"] = 2;
  fake.write(flipped.dump());
  auto out = check(reader.read());
  REQUIRE(codes(out) == Codes{"A050101"});
  CHECK(out.faults[0].device == "GPU 1 (GPU-b)");
}

TEST_CASE("H6: a hung NVML call is A050103 within --nvml-timeout; the reader recovers",
          "[agent][nvml][rule:H6]") {
  auto hung = nlohmann::json::parse(kTwoGpus);
  hung["hang"] = "nvmlDeviceGetTotalEccErrors";
  FakeReadings fake("RESPOOL_FAKE_NVML_FILE", hung.dump());
  NvmlReader reader(kFakeNvml, 300ms, respool::runtime::real_clock(), false);
  auto start = std::chrono::steady_clock::now();
  auto r = reader.read();
  // Bounded by the timeout (generously: a loaded machine schedules late, never early).
  CHECK(std::chrono::steady_clock::now() - start >= 300ms);
  REQUIRE(r.library == GpuReadings::Library::TimedOut);
  CHECK(r.detail == "nvmlDeviceGetTotalEccErrors did not return within 300ms");
  CHECK(codes(check(r)) == Codes{"A050103"});
  // While the call is still stuck, the next read fails at once, naming it.
  auto again = reader.read();
  REQUIRE(again.library == GpuReadings::Library::TimedOut);
  CHECK(again.detail == r.detail);  // the same words: the condition does not change meanwhile
  // The driver comes back: reads work again.
  fake.write(kTwoGpus);
  auto deadline = std::chrono::steady_clock::now() + 60s;
  GpuReadings healthy;
  do {
    std::this_thread::sleep_for(50ms);
    healthy = reader.read();
  } while (healthy.library != GpuReadings::Library::Loaded &&
           std::chrono::steady_clock::now() < deadline);
  CHECK(healthy.library == GpuReadings::Library::Loaded);
  CHECK(check(healthy).faults.empty());
}

TEST_CASE(
    "H6: a library that lacks a function, a missing library, an unreadable readings file: "
    "failures, never a fault it did not see",
    "[agent][nvml][rule:H6]") {
  FakeReadings fake("RESPOOL_FAKE_NVML_FILE", kTwoGpus);
  SECTION("missing symbol") {
    NvmlReader reader(kPartialNvml, 5s, respool::runtime::real_clock(), false);
    auto r = reader.read();
    REQUIRE(r.library == GpuReadings::Library::Loaded);
    CHECK(r.missing_symbols == std::vector<std::string>{"nvmlDeviceGetRemappedRows"});
    auto out = check(r);
    CHECK(out.faults.empty());
    REQUIRE(out.failures.size() == 1);
    CHECK(out.failures[0].what == "nvmlDeviceGetRemappedRows");
  }
  SECTION("no library") {
    NvmlReader reader(RESPOOL_BINARY_DIR "/no-such-libnvidia-ml.so.1", 5s,
                      respool::runtime::real_clock(), false);
    auto r = reader.read();
    CHECK(r.library == GpuReadings::Library::Missing);
    CHECK_THAT(r.detail, Catch::Contains("no-such-libnvidia-ml.so.1"));
  }
  SECTION("unreadable readings") {
    fake.write("{ not json");
    NvmlReader reader(kFakeNvml, 5s, respool::runtime::real_clock(), false);
    auto out = check(reader.read());
    CHECK(out.faults.empty());
    CHECK_FALSE(out.conclusive);
    REQUIRE_FALSE(out.failures.empty());
    CHECK(out.failures[0].what == "nvmlDeviceGetCount_v2");
  }
}

TEST_CASE("H5: Xid events from NVML's event set", "[agent][nvml][rule:H5]") {
  FakeReadings fake("RESPOOL_FAKE_NVML_FILE", kTwoGpus);
  NvmlReader reader(kFakeNvml, 5s, respool::runtime::real_clock(), true);
  REQUIRE(reader.read().library == GpuReadings::Library::Loaded);  // starts the event thread
  auto with_xid = nlohmann::json::parse(kTwoGpus);
  with_xid["xids"] = {{{"id", 1}, {"index", 1}, {"xid", 79}}};
  fake.write(with_xid.dump());
  std::vector<XidEvent> seen;
  auto deadline = std::chrono::steady_clock::now() + 60s;
  while (seen.empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(50ms);
    seen = reader.take_xids();
  }
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].xid == 79u);
  CHECK(seen[0].index == 1u);
  CHECK(seen[0].uuid == "GPU-b");
  auto r = reader.read();
  r.xids = seen;
  CHECK(codes(check(r)) == Codes{"A050109"});
}

TEST_CASE("H7: DCMI read through dlopen", "[agent][dcmi][rule:H7]") {
  FakeReadings fake("RESPOOL_FAKE_DCMI_FILE", R"({"cards": [
    {"card": 0, "devices": [{"health": 0, "network": 0, "hbmDoubleBitIsolatedPages": 0}]},
    {"card": 1, "devices": [{"health": 2, "network": 0, "hbmDoubleBitIsolatedPages": 64}]}]})");
  DcmiReader reader(kFakeDcmi, 5s);
  auto r = reader.read();
  REQUIRE(r.library == NpuReadings::Library::Loaded);
  REQUIRE(r.devices.size() == 2);
  LinkDownWindow w;
  auto out = check_npus(r, w, npu_flavor(2), kT0);
  CHECK(codes(out) == Codes{"A050122", "A050951"});
  CHECK(out.faults[0].device == "NPU 1/0");
}

TEST_CASE("DCMI: each NPU's HBM and processes; a library without those calls keeps its health",
          "[agent][dcmi][rule:H7]") {
  FakeReadings fake("RESPOOL_FAKE_DCMI_FILE", R"({"cards": [{"card": 0, "devices": [
    {"health": 2, "hbm": {"total": 65536, "used": 4096},
     "processes": [{"pid": 2000, "memory": 1073741824}, {"pid": 2001, "memory": 4096}]}]}]})");
  SECTION("full library") {
    DcmiReader reader(kFakeDcmi, 5s);
    auto r = reader.read();
    REQUIRE(r.devices.size() == 1);
    const auto& d = r.devices[0];
    REQUIRE(d.hbm.ok());
    CHECK(d.hbm.value.memory_size == 65536);
    CHECK(d.hbm.value.memory_usage == 4096);
    REQUIRE(d.processes.ok());
    REQUIRE(d.processes.value.size() == 2);
    CHECK(d.processes.value[0].proc_id == 2000);
    CHECK(d.processes.value[0].proc_mem_usage == 1073741824ul);
    CHECK(d.processes.value[1].proc_id == 2001);
    CHECK(r.missing_symbols.empty());
  }
  SECTION("missing symbols") {
    DcmiReader reader(kPartialDcmi, 5s);
    auto r = reader.read();
    REQUIRE(r.library == NpuReadings::Library::Loaded);
    CHECK(r.missing_symbols ==
          std::vector<std::string>{"dcmi_get_device_hbm_info", "dcmi_get_device_resource_info"});
    REQUIRE(r.devices.size() == 1);
    CHECK(r.devices[0].hbm.rc == dcmi::kSymbolMissing);
    CHECK(r.devices[0].processes.rc == dcmi::kSymbolMissing);
    LinkDownWindow w;
    auto out = check_npus(r, w, npu_flavor(1), kT0);
    CHECK(codes(out) == Codes{"A050122"});  // the device's health, as with the full library
    CHECK(out.failures.size() == 2);
  }
}

TEST_CASE("H6: the bounded worker gives up on a stuck call and names it", "[agent][rule:H6]") {
  BoundedWorker worker("TEST");
  auto release = std::make_shared<std::atomic<bool>>(false);
  auto stuck = worker.run(
      [release](BoundedWorker::Progress& p) {
        p.call("stuckCall");
        while (!*release)
          std::this_thread::sleep_for(5ms);
      },
      100ms);
  REQUIRE_FALSE(stuck);
  CHECK(stuck.error() == "stuckCall did not return within 100ms");
  CHECK(worker.hung());
  *release = true;
  auto deadline = std::chrono::steady_clock::now() + 60s;
  while (worker.hung() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  int ran = 0;
  // Calls that each return in time never time out, however many a task makes.
  auto ok = worker.run(
      [&ran](BoundedWorker::Progress& p) {
        for (int i = 0; i < 5; ++i) {
          p.call("quickCall");
          ++ran;
        }
      },
      10s);
  CHECK(ok);
  CHECK(ran == 5);
}
