#pragma once
// The query options of a request as apimachinery's metainternalversion/metav1 validation checks
// them before the handler runs: ListOptions (resourceVersionMatch, sendInitialEvents) and the
// fieldManager of CreateOptions, UpdateOptions and PatchOptions, each refused with the real
// server's 422 (`ListOptions.meta.k8s.io "" is invalid: ...`).

#include <optional>
#include <string>

#include "operator/http/message.hpp"
#include "sandbox/apiserver/errors.hpp"

namespace respool::sandbox {

// ValidateListOptions for a list (not a watch).
std::optional<ApiError> check_list_options(const http::Target& target);

// ValidateFieldManager of ?fieldManager= under the options kind of the verb ("CreateOptions",
// "UpdateOptions", "PatchOptions"): at most 128 bytes, printable characters only.
std::optional<ApiError> check_field_manager(const std::string& manager, const char* options_kind);

}  // namespace respool::sandbox
