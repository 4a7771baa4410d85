#include "sandbox/apiserver/openapi/schemas.hpp"

#include <vector>

namespace respool::sandbox {
namespace {

using protobuf::CustomJson;
using protobuf::FieldDef;
using protobuf::MessageDef;
using protobuf::Scalar;

Json scalar_schema(Scalar s) {
  switch (s) {
    case Scalar::String:
      return {{"type", "string"}};
    case Scalar::Bytes:
      return {{"type", "string"}, {"format", "byte"}};
    case Scalar::Bool:
      return {{"type", "boolean"}};
    case Scalar::Double:
      return {{"type", "number"}, {"format", "double"}};
    case Scalar::Float:
      return {{"type", "number"}, {"format", "float"}};
    case Scalar::Int32:
    case Scalar::SInt32:
    case Scalar::SFixed32:
      return {{"type", "integer"}, {"format", "int32"}};
    default:
      return {{"type", "integer"}, {"format", "int64"}};
  }
}

Json zero_default(Scalar s) {
  if (s == Scalar::String) return "";
  if (s == Scalar::Bool) return false;
  return 0;
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size() && !s.empty()) {
    std::size_t comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

class Builder {
 public:
  Builder(OpenApiVersion v, Json& definitions) : v_(v), defs_(definitions) {}

  void add(const MessageDef& m) {
    std::string name = m.openapi_name();
    if (defs_.contains(name)) return;
    defs_[name] = Json::object();  // reserved first: types may reach themselves
    defs_[name] = definition(m);
  }

 private:
  Json definition(const MessageDef& m) {
    Json d = Json::object();
    if (!m.description.empty()) d["description"] = m.description;
    if (m.custom != CustomJson::None) {
      std::string type = m.marker("openapiType"), format = m.marker("openapiFormat");
      std::string one_of = m.marker("openapiOneOf");
      if (v_ == OpenApiVersion::V3 && !one_of.empty()) {
        d["oneOf"] = Json::array();
        for (const std::string& t : split_commas(one_of))
          d["oneOf"].push_back({{"type", t}});
      } else {
        d["type"] = type.empty() ? "object" : type;
      }
      if (!format.empty()) d["format"] = format;
      return d;
    }
    Json properties = Json::object();
    Json required = Json::array();
    add_properties(m, properties, required);
    if (!properties.empty()) d["properties"] = std::move(properties);
    if (!required.empty()) d["required"] = std::move(required);
    d["type"] = "object";
    if (m.marker("structType") == "atomic") d["x-kubernetes-map-type"] = "atomic";
    return d;
  }

  void add_properties(const MessageDef& m, Json& properties, Json& required) {
    for (const FieldDef& f : m.fields) {
      if (f.json == "-") continue;
      if (f.inline_struct && f.type.message && f.type.message->custom == CustomJson::None) {
        add_properties(*f.type.message, properties, required);
        continue;
      }
      properties[f.json] = property(f);
      if (!f.omitempty && !f.optional) required.push_back(f.json);
    }
  }

  // A reference to a message's definition, with `extra` beside it: v3 wraps it in allOf (a
  // $ref has no siblings there), v2 writes them next to the $ref.
  Json ref(const MessageDef& m, Json extra) {
    add(m);
    Json r = {{"$ref", openapi_ref(v_, m.openapi_name())}};
    if (extra.empty()) return r;
    if (v_ == OpenApiVersion::V3) {
      extra["allOf"] = Json::array({r});
      return extra;
    }
    extra.update(r);
    return extra;
  }

  // The schema of one value of the field's type (a list's item, a map's value).
  Json value_schema(const protobuf::TypeRef& t, Json extra, bool element) {
    if (!extra.is_object()) extra = Json::object();  // callers pass {} (null) for "nothing"
    if (t.scalar != Scalar::Message) {
      Json s = scalar_schema(t.scalar);
      if (element && t.scalar != Scalar::Bytes) s["default"] = zero_default(t.scalar);
      s.update(extra);
      return s;
    }
    const MessageDef& m = *t.message;
    if (m.wrap && !m.fields.empty()) {
      Json s = {{"type", "array"}, {"items", value_schema(m.fields[0].type, {}, true)}};
      s.update(extra);
      return s;
    }
    if (element && m.custom == CustomJson::None && v_ == OpenApiVersion::V3) {
      extra["default"] = Json::object();
    }
    return ref(m, std::move(extra));
  }

  Json property(const FieldDef& f) {
    Json extra = Json::object();
    if (!f.description.empty()) extra["description"] = f.description;
    Json s;
    if (f.is_map()) {
      s = {{"type", "object"}, {"additionalProperties", value_schema(f.type, {}, true)}};
      s.update(extra);
    } else if (f.repeated) {
      Json item = value_schema(f.type, {}, true);
      if (!f.enum_values.empty()) item["enum"] = f.enum_values;
      s = {{"type", "array"}, {"items", std::move(item)}};
      s.update(extra);
    } else {
      bool plain_struct =
          f.type.message && f.type.message->custom == CustomJson::None && !f.type.message->wrap;
      if (!f.pointer && v_ == OpenApiVersion::V3) {
        if (plain_struct) {
          extra["default"] = Json::object();
        } else if (f.type.scalar != Scalar::Message && f.type.scalar != Scalar::Bytes &&
                   !f.omitempty) {
          extra["default"] = zero_default(f.type.scalar);
        }
      }
      if (!f.enum_values.empty()) extra["enum"] = f.enum_values;
      s = value_schema(f.type, std::move(extra), false);
    }
    extensions(f, s);
    return s;
  }

  static void extensions(const FieldDef& f, Json& s) {
    std::vector<std::string> keys;
    for (const std::string& m : f.markers) {
      if (m.rfind("listMapKey=", 0) == 0) keys.push_back(m.substr(11));
    }
    if (!keys.empty()) s["x-kubernetes-list-map-keys"] = keys;
    if (auto t = f.marker("listType"); !t.empty()) s["x-kubernetes-list-type"] = t;
    if (auto t = f.marker("mapType"); !t.empty()) s["x-kubernetes-map-type"] = t;
    if (auto k = f.marker("patchMergeKey"); !k.empty()) s["x-kubernetes-patch-merge-key"] = k;
    if (auto p = f.marker("patchStrategy"); !p.empty()) s["x-kubernetes-patch-strategy"] = p;
  }

  OpenApiVersion v_;
  Json& defs_;
};

}  // namespace

std::string openapi_ref(OpenApiVersion v, const std::string& name) {
  return (v == OpenApiVersion::V3 ? "#/components/schemas/" : "#/definitions/") + name;
}

void add_definitions(const MessageDef& message, OpenApiVersion v, Json& definitions) {
  Builder(v, definitions).add(message);
}

}  // namespace respool::sandbox
