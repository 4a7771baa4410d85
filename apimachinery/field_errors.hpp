#pragma once
// How k8s.io/apimachinery prints field errors and their aggregates, and the %#v of the values
// they carry, so that messages match the API server's and kubectl's byte for byte.

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace respool::apimachinery {

// Go's %#v of a []string: []string{"a", "b"}.
std::string go_string_slice(std::span<const std::string> values);
// field.Invalid(path, value, detail).Error(): `path: Invalid value: "value": detail`.
std::string invalid_value_error(std::string_view path, std::string_view quoted_value,
                                std::string_view detail);
// utilerrors.Aggregate.Error(): one message as is, several as "[a, b]" (duplicates dropped).
std::string aggregate_errors(const std::vector<std::string>& messages);

}  // namespace respool::apimachinery
