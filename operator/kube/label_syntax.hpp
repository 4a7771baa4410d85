#pragma once
// Kubernetes name syntax (k8s.io/apimachinery/pkg/util/validation): qualified names (label and
// annotation keys), label values and DNS-1123 names, with the API server's wording, plus the
// Go-style quoting its field errors use. Each check returns the messages the Go function
// returns: an empty vector means valid.

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace respool::kube {

// IsQualifiedName: [prefix/]name, prefix a DNS-1123 subdomain, name <= 63 characters.
std::vector<std::string> qualified_name_errors(std::string_view value);
// IsValidLabelValue: empty, or <= 63 characters of [-A-Za-z0-9_.] starting and ending alphanumeric.
std::vector<std::string> label_value_errors(std::string_view value);
// IsDNS1123Subdomain (object names of most kinds): <= 253 characters.
std::vector<std::string> dns1123_subdomain_errors(std::string_view value);
// IsDNS1123Label (namespace names): <= 63 characters, no dots.
std::vector<std::string> dns1123_label_errors(std::string_view value);

// Go's %q of a string: "a\"b".
std::string go_quote(std::string_view text);
// Go's %#v of a []string: []string{"a", "b"}.
std::string go_string_slice(std::span<const std::string> values);
// field.Invalid(path, value, detail).Error(): `path: Invalid value: "value": detail`.
std::string invalid_value_error(std::string_view path, std::string_view quoted_value,
                                std::string_view detail);
// utilerrors.Aggregate.Error(): one message as is, several as "[a, b]" (duplicates dropped).
std::string aggregate_errors(const std::vector<std::string>& messages);

}  // namespace respool::kube
