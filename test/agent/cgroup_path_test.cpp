// A GPU process's cgroup → its pod UID and container ID, for the forms kubelets write: cgroup
// v1 and v2, the systemd and cgroupfs drivers, containerd, CRI-O and Docker.

#include <catch2/catch.hpp>

#include "agent/usage/cgroup_path.hpp"
#include "usage_fixtures.hpp"

using respool::agent::usage::container_from_cgroup;
using respool::agent::usage::ContainerRef;
using respool::agent::usage::strip_runtime_scheme;
using namespace respool::agent::test;

namespace {

const std::string kUid = "6f1c2a3b-1111-2222-3333-444455556666";
const std::string kUnderscored = "6f1c2a3b_1111_2222_3333_444455556666";
const std::string kId = container_id(7);

}  // namespace

TEST_CASE("cgroup v2, systemd driver, containerd's scope", "[agent][usage]") {
  CHECK(container_from_cgroup(cgroup_v2_systemd(kUid, kId)) == ContainerRef{kUid, kId});
}

TEST_CASE("cgroup v2, systemd driver, a Guaranteed pod (no QoS slice) under CRI-O",
          "[agent][usage]") {
  auto text = "0::/kubepods.slice/kubepods-pod" + kUnderscored + ".slice/crio-" + kId + ".scope";
  CHECK(container_from_cgroup(text) == ContainerRef{kUid, kId});
}

TEST_CASE("cgroup v2, cgroupfs driver", "[agent][usage]") {
  CHECK(container_from_cgroup("0::/kubepods/pod" + kUid + "/" + kId + "\n") ==
        ContainerRef{kUid, kId});
}

TEST_CASE("cgroup v1, cgroupfs driver: every controller's line names the container",
          "[agent][usage]") {
  const auto path = "/kubepods/besteffort/pod" + kUid + "/" + kId;
  auto text =
      "12:memory:" + path + "\n11:cpu,cpuacct:" + path + "\n1:name=systemd:" + path + "\n0::/\n";
  CHECK(container_from_cgroup(text) == ContainerRef{kUid, kId});
}

TEST_CASE("cgroup v1, systemd driver, Docker's and CRI-O's scopes", "[agent][usage]") {
  auto slice =
      "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + kUnderscored + ".slice/";
  CHECK(container_from_cgroup("4:memory:" + slice + "docker-" + kId + ".scope\n") ==
        ContainerRef{kUid, kId});
  CHECK(container_from_cgroup("4:pids:" + slice + "crio-" + kId + ".scope\n") ==
        ContainerRef{kUid, kId});
}

TEST_CASE("no container: host processes, the pod's own cgroup, CRI-O's conmon", "[agent][usage]") {
  CHECK_FALSE(container_from_cgroup("0::/system.slice/nvidia-persistenced.service\n"));
  CHECK_FALSE(container_from_cgroup("0::/user.slice/user-1000.slice/session-3.scope\n"));
  CHECK_FALSE(container_from_cgroup("0::/kubepods.slice/kubepods-pod" + kUnderscored + ".slice"));
  CHECK_FALSE(container_from_cgroup("0::/kubepods.slice/kubepods-pod" + kUnderscored +
                                    ".slice/crio-conmon-" + kId + ".scope"));
  CHECK_FALSE(container_from_cgroup(""));
  CHECK_FALSE(container_from_cgroup("garbage without colons"));
}

TEST_CASE("a pod status's container ID without its runtime scheme", "[agent][usage]") {
  CHECK(strip_runtime_scheme("containerd://" + kId) == kId);
  CHECK(strip_runtime_scheme("cri-o://" + kId) == kId);
  CHECK(strip_runtime_scheme("docker://" + kId) == kId);
  CHECK(strip_runtime_scheme(kId) == kId);
}
