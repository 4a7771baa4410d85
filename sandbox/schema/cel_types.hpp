#pragma once
// The bridge between a CRD's structural schema and CEL (apiextensions' model package and
// UnstructuredToVal): the CEL type of each schema node, and a JSON value as a CEL value of it.

#include <map>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sandbox/cel/value.hpp"

namespace respool::sandbox::schema::detail {

using Json = nlohmann::json;

struct DeclType {
  enum class Kind {
    Dyn,
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    Duration,
    Timestamp,
    Null,
    List,
    Map,
    Object,
    Type
  };
  Kind kind = Kind::Dyn;
  std::map<std::string, std::shared_ptr<const DeclType>> fields;  // Object, by escaped name
  std::shared_ptr<const DeclType> elem;                           // List item, Map value
};
using TypePtr = std::shared_ptr<const DeclType>;

TypePtr dyn_type();
TypePtr simple_type(DeclType::Kind kind);
// cel-go's name of a type in messages: "int", "list(string)", "map(string, int)", "dyn".
std::string type_string(const DeclType& type);

// The CEL type of a schema node; `resource_root` adds apiVersion, kind and metadata (name,
// generateName) as the real server does at the root and in embedded resources.
TypePtr schema_type(const Json& schema, bool resource_root);

// A property name as CEL sees it ("x-y" -> "x__dash__y", "if" -> "__if__"), or nullopt when
// it has characters CEL cannot spell (the property is then left out).
std::optional<std::string> escape_property(const std::string& name);

// The JSON value (valid against `schema`) as a CEL value.
cel::Value to_value(const Json& value, const Json& schema, bool resource_root);

}  // namespace respool::sandbox::schema::detail
