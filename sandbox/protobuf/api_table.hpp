#pragma once
// The Kubernetes API's types as data: every message of k8s.io/api's and k8s.io/apimachinery's
// generated.proto (field numbers and wire types), with what the Go types add (JSON names,
// omitempty, pointers, inline structs, enums, custom JSON encodings) and the descriptions the
// OpenAPI documents show. The protobuf decoder and the OpenAPI documents both read it.
//
// It is loaded from k8s-api.table (embedded in the binary), which
// scripts/k8s-api/regenerate.sh writes from the Debian packages of those sources. One record a
// line, fields separated by tabs; descriptions escape \n, \t and backslash:
//   P  proto-package  group ("-": not an API group)  version
//   M  message  flags  description
//   F  number  json-name ("-": not in JSON)  go-name  type  flags  description
//   V  enum value of the F line before
// A type is a scalar (int32, int64, bool, string, bytes, double, ...), a message's full name,
// or map<key,value>. Field flags: rep (repeated), ptr (a Go pointer: present when sent),
// omitempty, inline (the struct's fields are the parent's in JSON), optional, enum, and the
// OpenAPI markers listType=, listMapKey=, patchStrategy=, patchMergeKey=, mapType=. Message
// flags: custom (its own JSON encoding), wrap (a Go slice type: JSON is the array of its one
// repeated field), typeMeta (the Go struct embeds TypeMeta, which protobuf leaves out: its JSON
// also has apiVersion and kind), structType=, openapiType=, openapiFormat=, openapiOneOf=.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace respool::sandbox::protobuf {

enum class Scalar {
  Double,
  Float,
  Int64,
  UInt64,
  Int32,
  UInt32,
  SInt32,
  SInt64,
  Fixed64,
  Fixed32,
  SFixed32,
  SFixed64,
  Bool,
  String,
  Bytes,
  Message,
};

struct MessageDef;

// One side of a field: its scalar type, or the message it holds.
struct TypeRef {
  Scalar scalar = Scalar::Message;
  const MessageDef* message = nullptr;  // when scalar == Message
  std::string name;                     // as written in the table (resolved to `message`)
};

struct FieldDef {
  int number = 0;
  std::string json;  // "-": not in JSON
  std::string go;    // the Go field name (the decoder's error messages use it)
  TypeRef type;      // a map's value type for maps
  std::optional<TypeRef> map_key;
  bool repeated = false, pointer = false, omitempty = false, inline_struct = false;
  bool optional = false;
  std::vector<std::string> markers;      // "listType=map", "patchMergeKey=name", ...
  std::vector<std::string> enum_values;  // sorted, as openapi-gen lists them
  std::string description;

  bool is_map() const { return map_key.has_value(); }
  // The value of marker `key=` ("" when absent).
  std::string marker(std::string_view key) const;
};

enum class CustomJson {
  None,
  Time,
  MicroTime,
  Duration,
  Quantity,
  IntOrString,
  RawExtension,
  FieldsV1,
  GroupVersion,
  Unknown
};

struct MessageDef {
  std::string name;     // "k8s.io.api.core.v1.Pod"
  std::string go_name;  // "Pod"
  CustomJson custom = CustomJson::None;
  bool wrap = false;
  bool type_meta = false;  // JSON also has apiVersion and kind (kinds, options)
  std::vector<std::string> markers;
  std::string description;
  std::vector<FieldDef> fields;  // in .proto order
  std::map<int, std::size_t> by_number;

  const FieldDef* field(int number) const;
  std::string marker(std::string_view key) const;
  // "io.k8s.api.core.v1.Pod": the name OpenAPI documents give the definition.
  std::string openapi_name() const;
};

struct ApiPackage {
  std::string proto_package;  // "k8s.io.api.apps.v1"
  std::string group;          // "apps", "" for core
  std::string version;        // "v1"
};

class ApiTable {
 public:
  // The embedded table, parsed once on first use.
  static const ApiTable& get();
  // Parses a table's text (tests load broken ones); throws std::runtime_error when malformed.
  static ApiTable parse(std::string_view text);

  const MessageDef* message(std::string_view full_name) const;
  // The message of an API kind: "apps", "v1", "Deployment" -> k8s.io.api.apps.v1.Deployment.
  // The option kinds every group-version registers (DeleteOptions, ...) come from meta/v1.
  const MessageDef* kind(std::string_view group, std::string_view version,
                         std::string_view kind) const;
  const std::vector<ApiPackage>& packages() const { return packages_; }
  const std::map<std::string, MessageDef, std::less<>>& messages() const { return messages_; }

 private:
  std::vector<ApiPackage> packages_;
  std::map<std::string, MessageDef, std::less<>> messages_;
};

}  // namespace respool::sandbox::protobuf
