#include <fmt/format.h>
#include <algorithm>
#include <sstream>
#include <vector>

#include "agent/checks/host_checks.hpp"

namespace respool::agent {

namespace {

// mountinfo escapes space, tab, newline and backslash as \040 and the like.
std::string unescape(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      auto oct = s.substr(i + 1, 3);
      if (oct.size() == 3 && oct.find_first_not_of("01234567") == std::string::npos) {
        out += static_cast<char>(std::stoi(oct, nullptr, 8));
        i += 3;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

bool has_option(const std::string& options, std::string_view option) {
  std::stringstream in(options);
  std::string o;
  while (std::getline(in, o, ',')) {
    if (o == option) return true;
  }
  return false;
}

bool covers(const std::string& mount_point, const std::string& path) {
  if (mount_point == "/") return true;
  return path == mount_point || (path.starts_with(mount_point) && path[mount_point.size()] == '/');
}

}  // namespace

std::optional<MountState> mount_of(const std::string& mountinfo, const std::string& path) {
  std::optional<MountState> best;
  std::stringstream lines(mountinfo);
  std::string line;
  // The last matching line wins among equal mount points: a later mount hides an earlier one.
  while (std::getline(lines, line)) {
    std::stringstream fields(line);
    std::vector<std::string> f;
    std::string w;
    while (fields >> w)
      f.push_back(w);
    // id parent major:minor root mount-point options [optional...] - fstype source super-options
    auto dash = std::find(f.begin(), f.end(), "-");
    if (f.size() < 6 || dash == f.end() || std::distance(dash, f.end()) < 4) continue;
    auto mount_point = unescape(f[4]);
    if (!covers(mount_point, path)) continue;
    if (best && best->mount_point.size() > mount_point.size()) continue;
    best = MountState{mount_point, has_option(f[5], "ro") || has_option(*(dash + 3), "ro")};
  }
  return best;
}

FamilyResult check_kubelet_directory(const KubeletDirReading& reading) {
  FamilyResult out;
  out.family = Family::KubeletDirectory;
  if (!reading.mountinfo) {
    out.failures.push_back({reading.mountinfo_file, reading.error});
    out.conclusive = false;
    return out;
  }
  auto mount = mount_of(*reading.mountinfo, reading.path);
  if (!mount) {
    out.failures.push_back({reading.mountinfo_file, "no mount line covers " + reading.path});
    out.conclusive = false;
    return out;
  }
  if (mount->read_only) {
    out.faults.push_back(
        {"A050206", reading.path,
         fmt::format("{} is read-only (mounted ro at {})", reading.path, mount->mount_point)});
  }
  return out;
}

}  // namespace respool::agent
