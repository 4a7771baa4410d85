#include "sandbox/apiserver/registry/registry.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <set>
#include <tuple>

#include "sandbox/apiserver/registry/builtin_types.hpp"

namespace respool::sandbox {

bool ResourceType::has_subresource(std::string_view name) const {
  return std::any_of(subresources.begin(), subresources.end(),
                     [&](const SubresourceInfo& s) { return s.name == name; });
}

std::string storage_version_hash(const std::string& group, const std::string& version,
                                 const std::string& kind) {
  std::string gvk = group + "/" + version + "/" + kind;
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(gvk.data(), gvk.size(), digest, &len, EVP_sha256(), nullptr);
  unsigned char out[16] = {};
  EVP_EncodeBlock(out, digest, 8);
  return reinterpret_cast<const char*>(out);
}

Registry::Registry() {
  for (ResourceType& t : builtin_types())
    builtin_.push_back(std::make_shared<ResourceType>(t));
  builtin_groups_ = builtin_groups();
}

TypePtr Registry::find(std::string_view group, std::string_view version,
                       std::string_view plural) const {
  std::shared_lock lock(mu_);
  for (const TypePtr& t : builtin_) {
    if (t->group == group && t->version == version && t->plural == plural) return t;
  }
  for (const auto& [name, types] : custom_) {
    for (const TypePtr& t : types) {
      if (t->group == group && t->version == version && t->plural == plural) return t;
    }
  }
  return nullptr;
}

std::vector<TypePtr> Registry::by_storage(std::string_view storage) const {
  std::shared_lock lock(mu_);
  std::vector<TypePtr> out;
  for (const TypePtr& t : builtin_) {
    if (t->storage == storage) out.push_back(t);
  }
  for (const auto& [name, types] : custom_) {
    for (const TypePtr& t : types) {
      if (t->storage == storage) out.push_back(t);
    }
  }
  return out;
}

bool Registry::serves_group_version(std::string_view group, std::string_view version) const {
  for (const GroupVersions& g : groups()) {
    if (g.name != group) continue;
    return std::find(g.versions.begin(), g.versions.end(), version) != g.versions.end();
  }
  return false;
}

namespace {

// Kubernetes version priority: GA > beta > alpha, higher numbers first, others by name.
std::tuple<int, int, int, std::string> version_rank(const std::string& v) {
  int major = 0, minor = 0, level = 3;
  std::size_t i = 0;
  if (v.size() > 1 && v[0] == 'v' && std::isdigit(static_cast<unsigned char>(v[1]))) {
    i = 1;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) {
      major = major * 10 + (v[i] - '0');
      if (major > 100000) break;
      ++i;
    }
    std::string rest = v.substr(i);
    if (rest.empty()) {
      level = 0;
    } else if (rest.rfind("beta", 0) == 0 || rest.rfind("alpha", 0) == 0) {
      level = rest[0] == 'b' ? 1 : 2;
      std::size_t j = level == 1 ? 4 : 5;
      for (; j < rest.size() && std::isdigit(static_cast<unsigned char>(rest[j])); ++j) {
        minor = minor * 10 + (rest[j] - '0');
        if (minor > 100000) break;
      }
    }
  }
  return {level, -major, -minor, v};
}

}  // namespace

std::vector<GroupVersions> Registry::groups() const {
  std::shared_lock lock(mu_);
  std::vector<GroupVersions> out = builtin_groups_;
  std::map<std::string, std::set<std::string>> custom_groups;
  for (const auto& [name, types] : custom_) {
    for (const TypePtr& t : types)
      custom_groups[t->group].insert(t->version);
  }
  for (auto& [group, versions] : custom_groups) {
    auto existing = std::find_if(out.begin(), out.end(),
                                 [&](const GroupVersions& g) { return g.name == group; });
    std::vector<std::string> list(versions.begin(), versions.end());
    if (existing != out.end()) {
      for (const std::string& v : existing->versions) {
        if (!versions.count(v)) list.push_back(v);
      }
    }
    std::sort(list.begin(), list.end(), [](const std::string& a, const std::string& b) {
      return version_rank(a) < version_rank(b);
    });
    if (existing != out.end()) {
      existing->versions = list;
    } else {
      out.push_back({group, list});
    }
  }
  return out;
}

std::vector<TypePtr> Registry::resources(std::string_view group, std::string_view version) const {
  std::shared_lock lock(mu_);
  std::vector<TypePtr> out;
  for (const TypePtr& t : builtin_) {
    if (t->group == group && t->version == version) out.push_back(t);
  }
  std::vector<TypePtr> custom;
  for (const auto& [name, types] : custom_) {
    for (const TypePtr& t : types) {
      if (t->group == group && t->version == version) custom.push_back(t);
    }
  }
  std::sort(custom.begin(), custom.end(),
            [](const TypePtr& a, const TypePtr& b) { return a->plural < b->plural; });
  out.insert(out.end(), custom.begin(), custom.end());
  return out;
}

std::vector<TypePtr> Registry::all() const {
  std::shared_lock lock(mu_);
  std::vector<TypePtr> out = builtin_;
  for (const auto& [name, types] : custom_)
    out.insert(out.end(), types.begin(), types.end());
  return out;
}

void Registry::set_custom(const std::string& crd_name, std::vector<ResourceType> versions) {
  std::unique_lock lock(mu_);
  std::vector<TypePtr> types;
  for (ResourceType& t : versions)
    types.push_back(std::make_shared<ResourceType>(std::move(t)));
  custom_[crd_name] = std::move(types);
  ++generation_;
}

void Registry::remove_custom(const std::string& crd_name) {
  std::unique_lock lock(mu_);
  custom_.erase(crd_name);
  ++generation_;
}

void Registry::mark_terminating(const std::string& crd_name) {
  std::unique_lock lock(mu_);
  auto it = custom_.find(crd_name);
  if (it == custom_.end()) return;
  for (TypePtr& t : it->second) {
    auto copy = std::make_shared<ResourceType>(*t);
    copy->terminating = true;
    t = copy;
  }
  ++generation_;
}

std::uint64_t Registry::generation() const {
  std::shared_lock lock(mu_);
  return generation_;
}

}  // namespace respool::sandbox
