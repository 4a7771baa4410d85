// FieldSet: set algebra over path trees and the FieldsV1 encoding.

#include "sandbox/fieldmanager/field_set.hpp"

namespace respool::sandbox::fields {

void FieldSet::insert(const Path& path) {
  FieldSet* node = this;
  for (const std::string& pe : path)
    node = &node->children[pe];
  node->member = true;
}

const FieldSet* FieldSet::find(const Path& path) const {
  const FieldSet* node = this;
  for (const std::string& pe : path) {
    auto it = node->children.find(pe);
    if (it == node->children.end()) return nullptr;
    node = &it->second;
  }
  return node;
}

bool FieldSet::has(const Path& path) const {
  const FieldSet* node = find(path);
  return node && node->member;
}

namespace {
void collect(const FieldSet& set, Path& prefix, std::vector<Path>& out) {
  if (set.member && !prefix.empty()) out.push_back(prefix);
  for (const auto& [pe, child] : set.children) {
    prefix.push_back(pe);
    collect(child, prefix, out);
    prefix.pop_back();
  }
}
}  // namespace

std::vector<Path> FieldSet::paths() const {
  std::vector<Path> out;
  Path prefix;
  collect(*this, prefix, out);
  return out;
}

FieldSet FieldSet::united(const FieldSet& other) const {
  FieldSet out = *this;
  out.member = member || other.member;
  for (const auto& [pe, child] : other.children) {
    auto it = out.children.find(pe);
    out.children[pe] = it == out.children.end() ? child : it->second.united(child);
  }
  return out;
}

FieldSet FieldSet::minus(const FieldSet& other) const {
  FieldSet out;
  out.member = member && !other.member;
  for (const auto& [pe, child] : children) {
    auto it = other.children.find(pe);
    FieldSet c = it == other.children.end() ? child : child.minus(it->second);
    if (!c.empty()) out.children.emplace(pe, std::move(c));
  }
  return out;
}

FieldSet FieldSet::intersected(const FieldSet& other) const {
  FieldSet out;
  out.member = member && other.member;
  for (const auto& [pe, child] : children) {
    auto it = other.children.find(pe);
    if (it == other.children.end()) continue;
    FieldSet c = child.intersected(it->second);
    if (!c.empty()) out.children.emplace(pe, std::move(c));
  }
  return out;
}

FieldSet FieldSet::minus_recursive(const FieldSet& prefixes) const {
  if (prefixes.member) return {};
  FieldSet out;
  out.member = member;
  for (const auto& [pe, child] : children) {
    auto it = prefixes.children.find(pe);
    FieldSet c = it == prefixes.children.end() ? child : child.minus_recursive(it->second);
    if (!c.empty()) out.children.emplace(pe, std::move(c));
  }
  return out;
}

Json FieldSet::to_fields_v1() const {
  Json out = Json::object();
  if (member && !children.empty()) out["."] = Json::object();
  for (const auto& [pe, child] : children)
    out[pe] = child.to_fields_v1();
  return out;
}

FieldSet FieldSet::from_fields_v1(const Json& v1) {
  FieldSet out;
  if (!v1.is_object()) return out;
  for (const auto& [pe, child] : v1.items()) {
    if (pe == ".") continue;
    FieldSet c = from_fields_v1(child);
    if (!child.is_object() || child.empty() || child.contains(".")) c.member = true;
    out.children.emplace(pe, std::move(c));
  }
  return out;
}

std::string field_element(const std::string& name) {
  return "f:" + name;
}

std::string key_element(const Json& keys) {
  return "k:" + keys.dump();  // nlohmann's objects are sorted by key, as FieldList.Sort()
}

std::string value_element(const Json& value) {
  return "v:" + value.dump();
}

std::string path_string(const Path& path) {
  std::string out;
  for (const std::string& pe : path) {
    std::string body = pe.size() > 2 ? pe.substr(2) : "";
    if (pe.starts_with("f:")) {
      out += "." + body;
    } else if (pe.starts_with("k:")) {
      Json keys = Json::parse(body, nullptr, false);
      std::string inner;
      if (keys.is_object()) {
        for (const auto& [k, v] : keys.items()) {
          if (!inner.empty()) inner += ",";
          inner += k + "=" + v.dump();
        }
      }
      out += "[" + inner + "]";
    } else if (pe.starts_with("v:")) {
      out += "[=" + body + "]";
    } else if (pe.starts_with("i:")) {
      out += "[" + body + "]";
    }
  }
  return out;
}

}  // namespace respool::sandbox::fields
