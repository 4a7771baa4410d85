#include "agent/host/host_readers.hpp"

#include <sys/timex.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace respool::agent {

namespace fs = std::filesystem;

namespace {

std::optional<std::string> read_text(const fs::path& file, std::string& error) {
  std::ifstream in(file);
  if (!in) {
    error = std::string("unreadable: ") + std::strerror(errno);
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
    s.pop_back();
  return s;
}

std::vector<fs::path> sorted_children(const fs::path& dir, std::error_code& ec) {
  std::vector<fs::path> out;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<unsigned long long> counter(const fs::path& file) {
  std::ifstream in(file);
  unsigned long long value = 0;
  if (!(in >> value)) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::string> read_process_cgroup(const fs::path& host_root, unsigned int pid) {
  std::string error;
  return read_text(host_root / "proc" / std::to_string(pid) / "cgroup", error);
}

IbReadings read_infiniband(const fs::path& host_root) {
  IbReadings out;
  const auto dir = host_root / "sys/class/infiniband";
  std::error_code ec;
  if (!fs::exists(dir, ec)) return out;
  out.class_present = true;
  auto devices = sorted_children(dir, ec);
  if (ec) out.failures.push_back({dir.string(), fmt::format("unreadable: {}", ec.message())});
  for (const auto& device : devices) {
    std::error_code port_ec;
    auto ports = sorted_children(device / "ports", port_ec);
    if (port_ec) {
      out.failures.push_back(
          {(device / "ports").string(), fmt::format("unreadable: {}", port_ec.message())});
      continue;
    }
    for (const auto& port : ports) {
      std::string error;
      auto state = read_text(port / "state", error);
      if (!state) {
        out.failures.push_back({(port / "state").string(), error});
        continue;
      }
      out.ports.push_back({device.filename().string(), port.filename().string(), trimmed(*state),
                           counter(port / "counters/port_rcv_data"),
                           counter(port / "counters/port_xmit_data")});
    }
  }
  return out;
}

ClockReading read_kernel_clock() {
  ClockReading out;
  struct timex tx {};
  tx.modes = 0;  // read only
  int state = adjtimex(&tx);
  if (state < 0) {
    out.error = std::string("adjtimex: ") + std::strerror(errno);
    return out;
  }
  out.ok = true;
  out.state = state;
  out.status = tx.status;
  out.estimated_error_us = tx.esterror;
  out.max_error_us = tx.maxerror;
  return out;
}

KubeletDirReading read_kubelet_directory(const fs::path& host_root,
                                         const std::string& kubelet_dir) {
  KubeletDirReading out;
  out.path = kubelet_dir;
  out.mountinfo_file = (host_root / "proc/1/mountinfo").string();
  out.mountinfo = read_text(out.mountinfo_file, out.error);
  if (out.error.empty() && out.mountinfo && out.mountinfo->empty()) {
    out.error = "empty";
  }
  return out;
}

}  // namespace respool::agent
