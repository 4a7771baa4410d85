#pragma once
// Content negotiation: which representation an Accept header asks for (JSON or YAML; plain
// objects, Tables or PartialObjectMetadata), and what a Content-Type says a body is.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace respool::sandbox {

struct MediaRange {
  std::string type;  // "application/json", "*/*"
  std::vector<std::pair<std::string, std::string>> params;
  std::string param(std::string_view name) const;
};

// Splits an Accept (or Content-Type) header into media ranges, most preferred first (by q,
// then by order).
std::vector<MediaRange> parse_media_ranges(std::string_view header);

enum class Format { Json, Yaml };
enum class Shape { Object, Table, PartialMetadata };

struct Representation {
  Format format = Format::Json;
  Shape shape = Shape::Object;
  std::string table_version = "v1";  // meta.k8s.io version of Table / PartialObjectMetadata
};

// The representation for a resource request's answer. protobuf is answered as JSON. nullopt:
// nothing acceptable (406). `transformable`: Table/PartialObjectMetadata may be offered.
std::optional<Representation> negotiate(std::string_view accept, bool transformable);

// What aggregated discovery (/api, /apis) answers: "v2", "v2beta1", or "" for the legacy form.
// nullopt: nothing acceptable.
std::optional<std::string> negotiate_discovery(std::string_view accept);

// The media type of a Content-Type header without parameters, lower-case ("" when absent).
std::string media_type(std::string_view content_type);

}  // namespace respool::sandbox
