#pragma once
// The JSON of the apimachinery types that write their own (MarshalJSON): metav1.Time and
// MicroTime, Duration, GroupVersion, resource.Quantity, intstr.IntOrString, and the raw JSON of
// runtime.RawExtension, runtime.Unknown and metav1.FieldsV1.

#include <string_view>

#include <nlohmann/json.hpp>

#include "sandbox/protobuf/api_table.hpp"

namespace respool::sandbox::protobuf {

using Json = nlohmann::json;

// `fields` is the decoded message `decoded_as` (Timestamp for the times, else `type` itself),
// `data` its bytes. Throws Failure when the raw bytes of a RawExtension are not JSON.
Json custom_json(const MessageDef& type, const MessageDef& decoded_as, const Json& fields,
                 std::string_view data);

}  // namespace respool::sandbox::protobuf
