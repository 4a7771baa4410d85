#include "agent/checks/finding.hpp"

namespace respool::agent {

std::string_view condition_type(Family family) {
  switch (family) {
    case Family::Gpu:
      return "GPUHealthy";
    case Family::Npu:
      return "NPUHealthy";
    case Family::InfiniBand:
      return "InfiniBandHealthy";
    case Family::Clock:
      return "ClockSynchronized";
    case Family::KubeletDirectory:
      return "KubeletDirectoryWritable";
  }
  return "";
}

std::string_view check_name(Family family) {
  switch (family) {
    case Family::Gpu:
      return "gpu";
    case Family::Npu:
      return "npu";
    case Family::InfiniBand:
      return "infiniband";
    case Family::Clock:
      return "clock";
    case Family::KubeletDirectory:
      return "kubelet-directory";
  }
  return "";
}

}  // namespace respool::agent
