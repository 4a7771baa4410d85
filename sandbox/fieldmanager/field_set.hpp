#pragma once
// Sets of field paths as server-side apply keeps them (structured-merge-diff's fieldpath.Set):
// a tree whose edges are path elements written as FieldsV1 writes them ("f:name" a field,
// "k:{...}" a list item by its keys, "v:..." a set item by its value, "i:N" an index), and
// whose nodes say whether the path itself is in the set (FieldsV1's ".").

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::sandbox::fields {

using Json = nlohmann::json;
using Path = std::vector<std::string>;

struct FieldSet {
  bool member = false;                       // the path leading here is in the set
  std::map<std::string, FieldSet> children;  // by path element

  bool empty() const { return !member && children.empty(); }
  void insert(const Path& path);
  bool has(const Path& path) const;
  // The subtree under `path` (nullptr when none).
  const FieldSet* find(const Path& path) const;
  // Every member path, in FieldsV1 order.
  std::vector<Path> paths() const;

  FieldSet united(const FieldSet& other) const;
  FieldSet minus(const FieldSet& other) const;        // member by member
  FieldSet intersected(const FieldSet& other) const;  // member by member
  // Drops every path under (and at) a member of `prefixes` (RecursiveDifference).
  FieldSet minus_recursive(const FieldSet& prefixes) const;

  // FieldsV1: {"f:a": {".": {}, "f:b": {}}}. from_fields_v1 ignores what it cannot read.
  Json to_fields_v1() const;
  static FieldSet from_fields_v1(const Json& v1);

  bool operator==(const FieldSet&) const = default;
};

// Path elements.
std::string field_element(const std::string& name);
std::string key_element(const Json& keys);  // keys: an object of the key fields
std::string value_element(const Json& value);
// fieldpath.Path.String(): .spec.taints[key="a",effect="NoSchedule"].value, .finalizers[="x"].
std::string path_string(const Path& path);

}  // namespace respool::sandbox::fields
