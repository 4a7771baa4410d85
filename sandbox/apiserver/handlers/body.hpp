#pragma once
// Request bodies in (JSON or YAML, as the Content-Type says) and answers out (JSON or YAML).

#include <string>
#include <string_view>

#include "operator/http/message.hpp"
#include "sandbox/apiserver/handlers/negotiation.hpp"
#include "sandbox/apiserver/registry/engine.hpp"

namespace respool::sandbox {

// Decodes an object body for `kind` from JSON, YAML or Kubernetes protobuf (which becomes the
// JSON object a JSON body of the same Go client holds; `api_version` is the endpoint's, the
// default for a protobuf envelope that names none, and says whether protobuf is taken at all):
// 415 for a media type the endpoint does not take, 400 worded as the API server's decoder for a
// malformed body.
Result<Json> decode_object(const http::Request& request, const std::string& kind,
                           std::string_view api_version);
// Decodes a patch document (its media type was checked by the caller): 400 when malformed.
Result<Json> decode_patch(const http::Request& request, const std::string& kind);

// JSON text as YAML (block style, as kubectl and the API server print it).
std::string json_to_yaml(const Json& value);
// YAML (one document) as JSON; false when it is not YAML.
bool yaml_to_json(std::string_view text, Json& out);

// Serialized in the representation's format, with its Content-Type.
struct Encoded {
  std::string body;
  std::string content_type;
};
Encoded encode(const std::string& json_text, Format format);

}  // namespace respool::sandbox
