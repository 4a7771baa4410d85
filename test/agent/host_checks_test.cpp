// H10–H12: InfiniBand ports, the clock and the kubelet directory, from made-up host trees.

#include <sys/timex.h>

#include <catch2/catch.hpp>

#include "agent/checks/host_checks.hpp"
#include "agent/host/host_readers.hpp"
#include "fixtures.hpp"

using namespace respool::agent;
using namespace respool::agent::test;
using Codes = std::vector<std::string>;

TEST_CASE("H10: every InfiniBand port not ACTIVE is A050147", "[agent][infiniband][rule:H10]") {
  TempDir root("agent-ib");
  root.write("sys/class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
  root.write("sys/class/infiniband/mlx5_1/ports/1/state", "4: ACTIVE\n");
  auto readings = read_infiniband(root.path());
  REQUIRE(readings.ports.size() == 2);
  CHECK(check_infiniband(readings, {}).faults.empty());

  root.write("sys/class/infiniband/mlx5_1/ports/1/state", "1: DOWN\n");
  auto out = check_infiniband(read_infiniband(root.path()), {});
  REQUIRE(codes(out) == Codes{"A050147"});
  CHECK(out.faults[0].device == "mlx5_1 port 1");
  CHECK(out.faults[0].message == "port state 1: DOWN (not ACTIVE)");
}

TEST_CASE("H10: a flavor with InfiniBand and no device is A050147; without, nothing to check",
          "[agent][infiniband][rule:H10]") {
  TempDir root("agent-ib-none");
  auto readings = read_infiniband(root.path());
  Expectations ib{true, Expectations::Accelerator::Gpu, 8, true};
  CHECK(codes(check_infiniband(readings, ib)) == Codes{"A050147"});
  CHECK_FALSE(check_infiniband(readings, gpu_flavor()).applies);
}

TEST_CASE("H10: a garbage or unreadable state file is the check's failure, not a fault",
          "[agent][infiniband][rule:H10]") {
  TempDir root("agent-ib-garbage");
  root.write("sys/class/infiniband/mlx5_0/ports/1/state", "\x01\x02garbage");
  std::filesystem::create_directories(root.path() / "sys/class/infiniband/mlx5_0/ports/2");
  auto out = check_infiniband(read_infiniband(root.path()), {});
  CHECK(out.faults.empty());
  REQUIRE(out.failures.size() == 2);
  CHECK_THAT(out.failures[0].what, Catch::Contains("ports/2/state"));
  CHECK(out.failures[1].what == "mlx5_0 port 1 state");
}

TEST_CASE("H11: an unsynchronised clock or an estimated error over the limit is A050146",
          "[agent][clock][rule:H11]") {
  ClockLimits limits{std::chrono::milliseconds(500)};
  ClockReading synced{true, "", TIME_OK, 0, 500'000, 600'000};
  CHECK(check_clock(synced, limits).faults.empty());
  auto over = synced;
  over.estimated_error_us = 500'001;
  CHECK(codes(check_clock(over, limits)) == Codes{"A050146"});
  auto unsync = synced;
  unsync.status = STA_UNSYNC;
  CHECK(codes(check_clock(unsync, limits)) == Codes{"A050146"});
  unsync.status = 0;
  unsync.state = TIME_ERROR;
  CHECK(codes(check_clock(unsync, limits)) == Codes{"A050146"});
  ClockReading broken{false, "adjtimex: Operation not permitted", 0, 0, 0, 0};
  auto out = check_clock(broken, limits);
  CHECK(out.faults.empty());
  CHECK_FALSE(out.conclusive);
}

TEST_CASE("H12: the kubelet directory's mount read-only is A050206", "[agent][kubelet][rule:H12]") {
  const std::string rw =
      "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
      "30 22 8:17 / /var/lib/kubelet rw,relatime shared:9 - xfs /dev/sdb1 rw\n"
      "31 30 0:50 / /var/lib/kubelet/pods/x/volumes/secret ro,relatime - tmpfs tmpfs ro\n";
  auto mount = mount_of(rw, "/var/lib/kubelet");
  REQUIRE(mount);
  CHECK(mount->mount_point == "/var/lib/kubelet");
  CHECK_FALSE(mount->read_only);
  // /var/lib/kubeletX is not under /var/lib/kubelet; the root covers everything.
  CHECK(mount_of(rw, "/var/lib/kubeletX")->mount_point == "/");

  TempDir root("agent-kubelet");
  root.write("proc/1/mountinfo", rw);
  CHECK(check_kubelet_directory(read_kubelet_directory(root.path(), "/var/lib/kubelet"))
            .faults.empty());
  // Remounted read-only after a disk error: the superblock says ro.
  root.write("proc/1/mountinfo",
             "22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n"
             "30 22 8:17 / /var/lib/kubelet rw,relatime - xfs /dev/sdb1 ro,errors=remount-ro\n");
  auto out = check_kubelet_directory(read_kubelet_directory(root.path(), "/var/lib/kubelet"));
  REQUIRE(codes(out) == Codes{"A050206"});
  CHECK(out.faults[0].message == "/var/lib/kubelet is read-only (mounted ro at /var/lib/kubelet)");
  // The documents' path, under a read-only /mnt: the covering mount decides.
  root.write(
      "proc/1/mountinfo",
      "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n40 22 8:2 / /mnt ro,nosuid - ext4 /dev/sdc ro\n");
  CHECK(codes(check_kubelet_directory(read_kubelet_directory(
            root.path(), "/mnt/paas/kubernetes/kubelet"))) == Codes{"A050206"});
}

TEST_CASE("H12: an unreadable or garbage mount table is the check's failure",
          "[agent][kubelet][rule:H12]") {
  TempDir root("agent-kubelet-bad");
  auto out = check_kubelet_directory(read_kubelet_directory(root.path(), "/var/lib/kubelet"));
  CHECK(out.faults.empty());
  CHECK_FALSE(out.conclusive);
  REQUIRE(out.failures.size() == 1);
  CHECK_THAT(out.failures[0].what, Catch::Contains("proc/1/mountinfo"));
  root.write("proc/1/mountinfo", "garbage\nmore garbage - x\n");
  out = check_kubelet_directory(read_kubelet_directory(root.path(), "/var/lib/kubelet"));
  CHECK(out.faults.empty());
  CHECK_FALSE(out.conclusive);
}
