#pragma once
// Readings of the host itself (host/*.cpp read them under --host-root): InfiniBand ports,
// the kernel's clock discipline, the kubelet directory's mount.

#include <optional>
#include <string>
#include <vector>

#include "agent/checks/finding.hpp"

namespace respool::agent {

struct IbPortReading {
  std::string device;  // "mlx5_0"
  std::string port;    // "1"
  std::string state;   // the state file's text: "4: ACTIVE"
  // counters/port_rcv_data and port_xmit_data: octets divided by 4 (the IB spec's PortRcvData,
  // PortXmitData); nullopt when the port has no such counter or it is unreadable (metrics only).
  std::optional<unsigned long long> rcv_data_words = std::nullopt;
  std::optional<unsigned long long> xmit_data_words = std::nullopt;
};

struct IbReadings {
  bool class_present = false;  // <host-root>/sys/class/infiniband exists
  std::vector<IbPortReading> ports;
  std::vector<CheckFailure> failures;  // files that could not be read
};

// adjtimex(2) with modes 0: read-only, no privilege needed.
struct ClockReading {
  bool ok = false;
  std::string error;            // errno text when adjtimex failed
  int state = 0;                // its return value: TIME_OK .. TIME_ERROR
  int status = 0;               // timex.status (STA_UNSYNC...)
  long estimated_error_us = 0;  // timex.esterror
  long max_error_us = 0;        // timex.maxerror
};

struct KubeletDirReading {
  std::string path;                      // the kubelet directory on the host: /var/lib/kubelet
  std::string mountinfo_file;            // what was read: <host-root>/proc/1/mountinfo
  std::optional<std::string> mountinfo;  // its text; nullopt when unreadable
  std::string error;
};

}  // namespace respool::agent
