#pragma once
// Kubernetes protobuf bodies (application/vnd.kubernetes.protobuf) as the JSON object a JSON
// body from the same Go client holds: the `k8s\0` magic, the runtime.Unknown envelope
// (typeMeta, raw, contentEncoding, contentType), then the object's message, decoded as the
// gogo-generated Unmarshal of the Go type does and written as encoding/json writes that Go
// value (json names, omitempty, nil pointers, custom encodings of Time, Quantity, ...).
// Errors carry the wording of the Go decoder ("unexpected EOF", "proto: wrong wireType = 0 for
// field ObjectMeta", ...).

#include <expected>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sandbox/protobuf/api_table.hpp"

namespace respool::sandbox::protobuf {

using Json = nlohmann::json;

struct GroupVersionKind {
  std::string group, version, kind;
  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
};

struct DecodeError {
  std::string message;
  // The group-version-kind the envelope named (with the defaults applied), when decoding got
  // that far: the API server words the two cases differently.
  std::optional<GroupVersionKind> gvk;
};

// The media type of Kubernetes' protobuf encoding.
inline constexpr std::string_view kMediaType = "application/vnd.kubernetes.protobuf";

// Decodes a whole body; `defaults` fills what the envelope leaves out (the endpoint's kind and
// group-version, as the API server's decoder does). The object has apiVersion and kind.
std::expected<Json, DecodeError> decode_body(std::string_view body,
                                             const GroupVersionKind& defaults,
                                             const ApiTable& table = ApiTable::get());

// Decodes one message's bytes (no envelope) as the JSON of its Go type.
std::expected<Json, std::string> decode_message(std::string_view bytes, const MessageDef& type);

}  // namespace respool::sandbox::protobuf
