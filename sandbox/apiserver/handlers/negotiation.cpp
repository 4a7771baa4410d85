#include "sandbox/apiserver/handlers/negotiation.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace respool::sandbox {
namespace {

std::string trim_lower(std::string_view s, bool lower = true) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b])))
    ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])))
    --e;
  std::string out(s.substr(b, e - b));
  if (lower) {
    for (char& c : out)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace

std::string MediaRange::param(std::string_view name) const {
  for (const auto& [k, v] : params) {
    if (k == name) return v;
  }
  return "";
}

std::vector<MediaRange> parse_media_ranges(std::string_view header) {
  struct Ranked {
    MediaRange range;
    double q;
    std::size_t order;
  };
  std::vector<Ranked> ranked;
  std::size_t start = 0;
  while (start <= header.size()) {
    std::size_t comma = header.find(',', start);
    if (comma == std::string_view::npos) comma = header.size();
    std::string_view item = header.substr(start, comma - start);
    start = comma + 1;
    MediaRange range;
    double q = 1.0;
    std::size_t semi = item.find(';');
    range.type = trim_lower(item.substr(0, semi));
    while (semi != std::string_view::npos) {
      std::size_t next = item.find(';', semi + 1);
      std::string_view p = item.substr(
          semi + 1, next == std::string_view::npos ? std::string_view::npos : next - semi - 1);
      std::size_t eq = p.find('=');
      if (eq != std::string_view::npos) {
        std::string key = trim_lower(p.substr(0, eq));
        std::string value = trim_lower(p.substr(eq + 1), false);
        if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
          value = value.substr(1, value.size() - 2);
        }
        if (key == "q") {
          q = std::strtod(value.c_str(), nullptr);
        } else {
          range.params.emplace_back(std::move(key), std::move(value));
        }
      }
      semi = next;
    }
    if (!range.type.empty()) ranked.push_back({std::move(range), q, ranked.size()});
    if (comma == header.size()) break;
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Ranked& a, const Ranked& b) { return a.q > b.q; });
  std::vector<MediaRange> out;
  for (Ranked& r : ranked) {
    if (r.q > 0) out.push_back(std::move(r.range));
  }
  return out;
}

std::optional<Representation> negotiate(std::string_view accept, bool transformable) {
  if (trim_lower(accept).empty()) return Representation{};
  bool saw_protobuf = false;
  for (const MediaRange& r : parse_media_ranges(accept)) {
    Representation rep;
    if (r.type == "application/json" || r.type == "*/*" || r.type == "application/*") {
      rep.format = Format::Json;
    } else if (r.type == "application/yaml") {
      rep.format = Format::Yaml;
    } else if (r.type == "application/vnd.kubernetes.protobuf") {
      saw_protobuf = true;
      continue;
    } else {
      continue;
    }
    std::string as = r.param("as");
    if (as.empty()) return rep;
    if (!transformable) continue;
    std::string g = r.param("g"), v = r.param("v");
    if (g != "meta.k8s.io" || (v != "v1" && v != "v1beta1")) continue;
    if (as == "Table") {
      rep.shape = Shape::Table;
    } else if (as == "PartialObjectMetadata" || as == "PartialObjectMetadataList") {
      rep.shape = Shape::PartialMetadata;
    } else {
      continue;
    }
    rep.table_version = v;
    return rep;
  }
  if (saw_protobuf) return Representation{};
  return std::nullopt;
}

std::optional<std::string> negotiate_discovery(std::string_view accept) {
  if (trim_lower(accept).empty()) return std::string();
  bool saw_protobuf = false;
  for (const MediaRange& r : parse_media_ranges(accept)) {
    if (r.type == "application/vnd.kubernetes.protobuf") {
      saw_protobuf = true;
      continue;
    }
    if (r.type != "application/json" && r.type != "*/*" && r.type != "application/*") continue;
    std::string as = r.param("as");
    if (as.empty()) return std::string();
    if (as == "APIGroupDiscoveryList" && r.param("g") == "apidiscovery.k8s.io") {
      std::string v = r.param("v");
      if (v == "v2" || v == "v2beta1") return v;
    }
  }
  if (saw_protobuf) return std::string();
  return std::nullopt;
}

std::string media_type(std::string_view content_type) {
  return trim_lower(content_type.substr(0, content_type.find(';')));
}

}  // namespace respool::sandbox
