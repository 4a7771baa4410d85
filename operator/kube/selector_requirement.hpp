#pragma once
// Internal to the selector sources: labels.NewRequirement, shared by the string parser and
// metav1.LabelSelector conversion.

#include <expected>
#include <string>
#include <vector>

#include "operator/kube/selector.hpp"

namespace respool::kube {

// Validates key, values and their count for the operator, with the API server's messages
// ("values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty").
std::expected<LabelRequirement, std::string> make_requirement(std::string key,
                                                              LabelRequirement::Op op,
                                                              std::vector<std::string> values);
// strings.Join(errs, "; "), as validation messages are combined into one field error.
std::string join_errors(const std::vector<std::string>& errors);

}  // namespace respool::kube
