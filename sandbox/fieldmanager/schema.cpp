// Schema: OpenAPI nodes resolved through "$ref" and allOf, read as structured-merge-diff types.

#include "sandbox/fieldmanager/schema.hpp"

namespace respool::sandbox::fields {

Schema::Schema(Json root, std::shared_ptr<const Json> definitions, std::string metadata)
    : root_(std::move(root)),
      definitions_(std::move(definitions)),
      metadata_(std::move(metadata)) {}

Schema::Node Schema::resolve(Node node) const {
  for (int depth = 0; node && depth < 8; ++depth) {
    if (!node->is_object()) return nullptr;
    const Json* ref = nullptr;
    if (auto it = node->find("$ref"); it != node->end()) ref = &*it;
    if (auto it = node->find("allOf");
        !ref && it != node->end() && it->is_array() && it->size() == 1) {
      if (auto r = (*it)[0].find("$ref"); r != (*it)[0].end()) ref = &*r;
    }
    if (!ref || !ref->is_string()) return node;
    std::string name = ref->get<std::string>();
    name = name.substr(name.rfind('/') + 1);
    auto def = definitions_->find(name);
    if (def == definitions_->end()) return nullptr;
    node = &*def;
  }
  return node;
}

std::string Schema::extension(Node node, const char* name) const {
  for (Node n : {node, resolve(node)}) {
    if (!n || !n->is_object()) continue;
    auto it = n->find(name);
    if (it != n->end() && it->is_string()) return it->get<std::string>();
  }
  return "";
}

Shape Schema::shape(Node node) const {
  Node r = resolve(node);
  if (!r) return Shape::Deduced;
  std::string type = r->value("type", std::string());
  if (r->contains("x-kubernetes-int-or-string")) return Shape::Scalar;
  if (type == "array" || r->contains("items")) {
    std::string list_type = extension(node, "x-kubernetes-list-type");
    if (list_type == "map") return Shape::KeyedList;
    if (list_type == "set") return Shape::SetList;
    if (list_type.empty()) {
      std::string strategy = extension(node, "x-kubernetes-patch-strategy");
      if (strategy.find("merge") != std::string::npos) {
        return extension(node, "x-kubernetes-patch-merge-key").empty() ? Shape::SetList
                                                                       : Shape::KeyedList;
      }
    }
    return Shape::AtomicList;
  }
  bool has_properties =
      r->contains("properties") && (*r)["properties"].is_object() && !(*r)["properties"].empty();
  bool has_additional =
      r->contains("additionalProperties") && !(*r)["additionalProperties"].is_boolean();
  if (type == "object" || has_properties || has_additional) {
    if (extension(node, "x-kubernetes-map-type") == "atomic") return Shape::AtomicMap;
    if (has_properties) return Shape::Struct;
    if (has_additional) return Shape::Map;
    return Shape::Deduced;  // an open object (preserve-unknown-fields, RawExtension)
  }
  if (type.empty()) return Shape::Deduced;
  return Shape::Scalar;
}

Schema::Node Schema::field(Node node, const std::string& name, bool& declared) const {
  declared = false;
  if (node == &root_ && name == "metadata" && !metadata_.empty()) {
    auto def = definitions_->find(metadata_);
    if (def != definitions_->end()) {
      declared = true;
      return &*def;
    }
  }
  Node r = resolve(node);
  if (!r) return nullptr;
  if (auto p = r->find("properties"); p != r->end() && p->is_object()) {
    if (auto f = p->find(name); f != p->end()) {
      declared = true;
      return &*f;
    }
  }
  if (auto a = r->find("additionalProperties"); a != r->end() && a->is_object()) return &*a;
  return nullptr;
}

Schema::Node Schema::items(Node node) const {
  Node r = resolve(node);
  if (!r) return nullptr;
  auto it = r->find("items");
  return it != r->end() && it->is_object() ? &*it : nullptr;
}

std::vector<std::pair<std::string, Json>> Schema::keys(Node node) const {
  std::vector<std::pair<std::string, Json>> out;
  std::vector<std::string> names;
  for (Node n : {node, resolve(node)}) {
    if (!n || !n->is_object()) continue;
    if (auto it = n->find("x-kubernetes-list-map-keys"); it != n->end() && it->is_array()) {
      for (const Json& k : *it)
        if (k.is_string()) names.push_back(k);
      break;
    }
  }
  if (names.empty()) {
    std::string key = extension(node, "x-kubernetes-patch-merge-key");
    if (!key.empty()) names.push_back(key);
  }
  Node item = items(node);
  for (const std::string& name : names) {
    bool declared = false;
    Node f = item ? field(item, name, declared) : nullptr;
    Node rf = resolve(f);
    Json def = rf && rf->contains("default") ? (*rf)["default"] : Json();
    out.emplace_back(name, std::move(def));
  }
  return out;
}

}  // namespace respool::sandbox::fields
