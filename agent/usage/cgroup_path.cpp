#include "agent/usage/cgroup_path.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace respool::agent::usage {

namespace {

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0;;) {
    auto end = text.find(sep, start);
    out.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

bool is_hex(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
}

// The pod UID a path component names: "pod<uid>" (cgroupfs) or
// "kubepods-<qos>-pod<uid_with_underscores>.slice" (systemd, which cannot use dashes there).
std::optional<std::string> pod_uid(std::string_view component) {
  if (component.starts_with("pod")) return std::string(component.substr(3));
  if (!component.starts_with("kubepods") || !component.ends_with(".slice")) return std::nullopt;
  auto at = component.rfind("-pod");
  if (at == std::string_view::npos) return std::nullopt;
  std::string uid(component.substr(at + 4, component.size() - at - 4 - 6));
  std::replace(uid.begin(), uid.end(), '_', '-');
  return uid;
}

// The runtime ID a container's component names: the bare ID (cgroupfs) or a systemd scope
// "<runtime>-<id>.scope". CRI-O's conmon ("crio-conmon-<id>.scope") is no container.
std::optional<std::string> container_id(std::string_view component) {
  if (component.ends_with(".scope")) {
    component.remove_suffix(6);
    if (component.starts_with("crio-conmon-")) return std::nullopt;
    constexpr std::array<std::string_view, 4> prefixes{"cri-containerd-", "crio-", "docker-",
                                                       "containerd-"};
    auto prefix = std::find_if(prefixes.begin(), prefixes.end(),
                               [&](std::string_view p) { return component.starts_with(p); });
    if (prefix == prefixes.end()) return std::nullopt;
    component.remove_prefix(prefix->size());
  }
  if (!is_hex(component)) return std::nullopt;
  return std::string(component);
}

std::optional<ContainerRef> from_path(std::string_view path) {
  auto parts = split(path, '/');
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    auto uid = pod_uid(parts[i]);
    if (!uid || uid->empty()) continue;
    auto id = container_id(parts[i + 1]);
    if (!id) return std::nullopt;  // the pod's own cgroup or its sandbox
    return ContainerRef{std::move(*uid), std::move(*id)};
  }
  return std::nullopt;
}

}  // namespace

std::optional<ContainerRef> container_from_cgroup(std::string_view text) {
  for (auto line : split(text, '\n')) {
    // "<hierarchy>:<controllers>:<path>"; a v2 line is "0::<path>".
    auto first = line.find(':');
    if (first == std::string_view::npos) continue;
    auto second = line.find(':', first + 1);
    if (second == std::string_view::npos) continue;
    auto path = line.substr(second + 1);
    if (path.find("kubepods") == std::string_view::npos) continue;
    if (auto ref = from_path(path)) return ref;
  }
  return std::nullopt;
}

std::string_view strip_runtime_scheme(std::string_view id) {
  auto at = id.find("://");
  return at == std::string_view::npos ? id : id.substr(at + 3);
}

}  // namespace respool::agent::usage
