#pragma once
// What server-side apply needs to know of a type: for each position of an object, whether it is
// a struct (declared fields), a map, a list and which kind of list (associative by keys, a set,
// atomic), or atomic as a whole. Read from OpenAPI schemas as kube-openapi's schemaconv reads
// them (built-in kinds: x-kubernetes-list-type, else the patch strategy and merge key) and as
// the apiextensions server reads a CRD's structural schema (lists atomic unless typed).

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::sandbox::fields {

using Json = nlohmann::json;

enum class Shape {
  Scalar,      // a leaf
  Struct,      // declared fields (properties)
  Map,         // granular map: every key its own field
  AtomicMap,   // owned whole (x-kubernetes-map-type: atomic)
  KeyedList,   // associative list (list-type map, or merge strategy with a merge key)
  SetList,     // list-type set: items by value
  AtomicList,  // owned whole
  Deduced,     // no schema: objects are granular maps, lists atomic
};

class Schema {
 public:
  // A position in the schema; null: deduced from the value.
  using Node = const Json*;

  // `root`: the object's schema; `definitions`: what "$ref"s name (components/schemas or
  // definitions, by name); `metadata`: the name of ObjectMeta's definition, used for the root's
  // "metadata" (a CRD schema leaves it open).
  Schema(Json root, std::shared_ptr<const Json> definitions, std::string metadata);

  Node root() const { return &root_; }
  Shape shape(Node node) const;
  // A struct's or map's field; `declared` says whether the struct names it.
  Node field(Node node, const std::string& name, bool& declared) const;
  Node items(Node node) const;
  // An associative list's key fields and, for each, the schema's default (null when none).
  std::vector<std::pair<std::string, Json>> keys(Node node) const;

 private:
  Node resolve(Node node) const;
  std::string extension(Node node, const char* name) const;

  Json root_;
  std::shared_ptr<const Json> definitions_;
  std::string metadata_;
};

}  // namespace respool::sandbox::fields
