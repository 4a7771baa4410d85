#pragma once
// YAML documents as JSON, typed as Kubernetes reads manifests (YAML 1.2 core schema): plain
// scalars true/false, null/~, integers and floats become those types; quoted scalars and
// everything else stay strings.

#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::kube {

// The first document of `text`; null for an empty one. Errors carry yaml-cpp's line and column.
std::expected<nlohmann::json, std::string> yaml_to_json(std::string_view text);
// Every document of a multi-document stream ("---"), empty documents skipped.
std::expected<std::vector<nlohmann::json>, std::string> yaml_documents_to_json(
    std::string_view text);
// A file's first document; errors name the file.
std::expected<nlohmann::json, std::string> yaml_file_to_json(const std::string& path);

}  // namespace respool::kube
