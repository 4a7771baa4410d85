#include "sandbox/schema/cel_types.hpp"

#include <set>

#include "apimachinery/base64.hpp"
#include "sandbox/cel/time.hpp"
#include "sandbox/schema/schema_node.hpp"

namespace respool::sandbox::schema::detail {
namespace {

using cel::Value;
using DKind = DeclType::Kind;

const std::set<std::string> kCelKeywords = {
    "true",     "false",   "null",      "in",       "as",  "break",  "const",
    "continue", "else",    "for",       "function", "if",  "import", "let",
    "loop",     "package", "namespace", "return",   "var", "void",   "while"};

TypePtr object_of(std::map<std::string, TypePtr> fields) {
  auto t = std::make_shared<DeclType>();
  t->kind = DKind::Object;
  t->fields = std::move(fields);
  return t;
}

TypePtr container(DKind kind, TypePtr elem) {
  auto t = std::make_shared<DeclType>();
  t->kind = kind;
  t->elem = std::move(elem);
  return t;
}

// A JSON value with no schema to go by (int-or-string, preserved unknown fields).
Value generic_value(const Json& v) {
  if (v.is_null()) return Value();
  if (v.is_boolean()) return Value::boolean(v.get<bool>());
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > INT64_MAX) {
      return Value::dbl(v.get<double>());
    }
    return Value::integer(v.get<std::int64_t>());
  }
  if (v.is_number()) return Value::dbl(v.get<double>());
  if (v.is_string()) return Value::string(v.get<std::string>());
  if (v.is_array()) {
    std::vector<Value> items;
    for (const Json& x : v)
      items.push_back(generic_value(x));
    return Value::list(std::move(items));
  }
  auto data = std::make_shared<cel::MapData>();
  for (auto it = v.begin(); it != v.end(); ++it) {
    data->insert(Value::string(it.key()), generic_value(it.value()));
  }
  return Value::map(std::move(data));
}

const Json kStringSchema = {{"type", "string"}};
const Json kMetadataSchema = {
    {"type", "object"}, {"properties", {{"name", kStringSchema}, {"generateName", kStringSchema}}}};

}  // namespace

TypePtr dyn_type() {
  static const TypePtr t = std::make_shared<DeclType>();
  return t;
}

TypePtr simple_type(DKind kind) {
  auto t = std::make_shared<DeclType>();
  t->kind = kind;
  return t;
}

std::string type_string(const DeclType& t) {
  switch (t.kind) {
    case DKind::Dyn:
      return "dyn";
    case DKind::Bool:
      return "bool";
    case DKind::Int:
      return "int";
    case DKind::Uint:
      return "uint";
    case DKind::Double:
      return "double";
    case DKind::String:
      return "string";
    case DKind::Bytes:
      return "bytes";
    case DKind::Duration:
      return "google.protobuf.Duration";
    case DKind::Timestamp:
      return "google.protobuf.Timestamp";
    case DKind::Null:
      return "null_type";
    case DKind::List:
      return "list(" + type_string(*t.elem) + ")";
    case DKind::Map:
      return "map(string, " + type_string(*t.elem) + ")";
    case DKind::Object:
      return "object";
    case DKind::Type:
      return "type";
  }
  return "dyn";
}

std::optional<std::string> escape_property(const std::string& name) {
  if (name.empty()) return std::nullopt;
  if (kCelKeywords.count(name)) return "__" + name + "__";
  char first = name[0];
  if (!std::isalpha(static_cast<unsigned char>(first)) && first != '_') return std::nullopt;
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c == '_' && i + 1 < name.size() && name[i + 1] == '_') {
      out += "__underscores__";
      ++i;
    } else if (c == '.') {
      out += "__dot__";
    } else if (c == '-') {
      out += "__dash__";
    } else if (c == '/') {
      out += "__slash__";
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      out += c;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

TypePtr schema_type(const Json& schema, bool resource_root) {
  if (int_or_string(schema)) return dyn_type();
  std::string type = type_of(schema);
  if (type == "object") {
    std::map<std::string, TypePtr> fields;
    if (const Json* props = properties_of(schema)) {
      for (auto it = props->begin(); it != props->end(); ++it) {
        auto escaped = escape_property(it.key());
        if (escaped) fields[*escaped] = schema_type(it.value(), embedded(it.value()));
      }
    } else if (Additional add = additional_of(schema); add.schema) {
      return container(DKind::Map, schema_type(*add.schema, embedded(*add.schema)));
    } else if (preserves_unknown(schema) && !resource_root) {
      return dyn_type();
    }
    if (resource_root) {
      fields["apiVersion"] = simple_type(DKind::String);
      fields["kind"] = simple_type(DKind::String);
      fields["metadata"] = schema_type(kMetadataSchema, false);
    }
    return object_of(std::move(fields));
  }
  if (type == "array") {
    const Json* items = items_of(schema);
    return container(DKind::List, items ? schema_type(*items, embedded(*items)) : dyn_type());
  }
  if (type == "string") {
    std::string format = string_member(schema, "format");
    if (format == "byte") return simple_type(DKind::Bytes);
    if (format == "duration") return simple_type(DKind::Duration);
    if (format == "date" || format == "date-time") return simple_type(DKind::Timestamp);
    return simple_type(DKind::String);
  }
  if (type == "integer") return simple_type(DKind::Int);
  if (type == "number") return simple_type(DKind::Double);
  if (type == "boolean") return simple_type(DKind::Bool);
  return dyn_type();
}

Value to_value(const Json& v, const Json& schema, bool resource_root) {
  if (v.is_null()) return Value();
  if (int_or_string(schema)) return generic_value(v);
  std::string type = type_of(schema);
  if (type == "object" && v.is_object()) {
    const Json* props = properties_of(schema);
    Additional add = additional_of(schema);
    if (!props && add.schema) {
      auto data = std::make_shared<cel::MapData>();
      for (auto it = v.begin(); it != v.end(); ++it) {
        data->insert(Value::string(it.key()),
                     to_value(it.value(), *add.schema, embedded(*add.schema)));
      }
      return Value::map(std::move(data));
    }
    if (!props && !resource_root && preserves_unknown(schema)) return generic_value(v);
    auto data = std::make_shared<cel::MapData>();
    data->type_name = "object";
    for (auto it = v.begin(); it != v.end(); ++it) {
      const Json* prop = props ? property(schema, it.key()) : nullptr;
      if (resource_root && it.key() == "metadata") prop = &kMetadataSchema;
      if (resource_root && (it.key() == "apiVersion" || it.key() == "kind")) prop = &kStringSchema;
      auto escaped = escape_property(it.key());
      if (!escaped) continue;
      if (!prop) {
        if (!preserves_unknown(schema)) continue;
        data->insert(Value::string(*escaped), generic_value(it.value()));
        continue;
      }
      data->insert(Value::string(*escaped), to_value(it.value(), *prop, embedded(*prop)));
    }
    return Value::map(std::move(data));
  }
  if (type == "array" && v.is_array()) {
    const Json* items = items_of(schema);
    cel::ListData data;
    for (const Json& x : v) {
      data.items.push_back(items ? to_value(x, *items, embedded(*items)) : generic_value(x));
    }
    std::string list_type = string_member(schema, "x-kubernetes-list-type");
    if (list_type == "set") data.list_type = cel::ListType::Set;
    if (list_type == "map") data.list_type = cel::ListType::Map;
    return Value::list(std::make_shared<const cel::ListData>(std::move(data)));
  }
  if (type == "string" && v.is_string()) {
    std::string s = v.get<std::string>();
    std::string format = string_member(schema, "format");
    if (format == "byte") return Value::bytes(apimachinery::base64_decode(s).value_or(""));
    if (format == "duration") {
      auto nanos = cel::parse_duration(s);
      return nanos ? Value::duration(*nanos) : Value::error("invalid duration " + s);
    }
    if (format == "date-time" || format == "date") {
      auto ts = cel::parse_timestamp(format == "date" ? s + "T00:00:00Z" : s);
      return ts ? Value::timestamp(ts->seconds, ts->nanos) : Value::error("invalid time " + s);
    }
    return Value::string(std::move(s));
  }
  if (type == "number" && v.is_number()) return Value::dbl(v.get<double>());
  return generic_value(v);
}

}  // namespace respool::sandbox::schema::detail
