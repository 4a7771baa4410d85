#include "sandbox/protobuf/unknown_fields.hpp"

namespace respool::sandbox::protobuf {
namespace {

using Json = nlohmann::json;

constexpr std::size_t kMaxReported = 100;  // sigs.k8s.io/json's saveStrictError keeps 100

// The field whose JSON name is `key`, looking into inline structs as encoding/json flattens
// them (a field of the struct itself wins over one of an inline struct).
const FieldDef* field_named(const MessageDef& type, const std::string& key) {
  for (const FieldDef& f : type.fields) {
    if (!f.inline_struct && f.json == key) return &f;
  }
  for (const FieldDef& f : type.fields) {
    if (!f.inline_struct || f.type.message == nullptr) continue;
    if (const FieldDef* inner = field_named(*f.type.message, key)) return inner;
  }
  return nullptr;
}

class Walker {
 public:
  std::vector<std::string> unknown;

  void message(Json& value, const MessageDef& type, const std::string& path) {
    if (type.custom != CustomJson::None) return;  // its own UnmarshalJSON takes anything
    if (type.wrap) {
      // A Go slice type: the JSON is the array of its one repeated field's items.
      if (!type.fields.empty()) items(value, type.fields.front(), path);
      return;
    }
    if (!value.is_object()) return;
    for (auto it = value.begin(); it != value.end();) {
      const std::string& key = it.key();
      std::string at = path.empty() ? key : path + "." + key;
      if (type.type_meta && (key == "apiVersion" || key == "kind")) {
        ++it;
        continue;
      }
      const FieldDef* f = field_named(type, key);
      if (f == nullptr) {
        if (unknown.size() < kMaxReported) unknown.push_back(std::move(at));
        it = value.erase(it);
        continue;
      }
      field(it.value(), *f, at);
      ++it;
    }
  }

 private:
  void field(Json& value, const FieldDef& f, const std::string& path) {
    if (f.is_map()) {
      if (!value.is_object()) return;
      for (auto& [key, item] : value.items())
        one(item, f.type, path + "." + key);
    } else if (f.repeated) {
      items(value, f, path);
    } else {
      one(value, f.type, path);
    }
  }

  void items(Json& value, const FieldDef& f, const std::string& path) {
    if (!value.is_array()) return;
    for (std::size_t i = 0; i < value.size(); ++i)
      one(value[i], f.type, path + "[" + std::to_string(i) + "]");
  }

  void one(Json& value, const TypeRef& type, const std::string& path) {
    if (type.scalar == Scalar::Message && type.message != nullptr)
      message(value, *type.message, path);
  }
};

}  // namespace

std::vector<std::string> drop_unknown_fields(Json& object, const MessageDef& type) {
  Walker w;
  w.message(object, type, "");
  return std::move(w.unknown);
}

}  // namespace respool::sandbox::protobuf
