#pragma once
// Kubernetes name syntax (k8s.io/apimachinery/pkg/util/validation): qualified names (label and
// annotation keys), label values and DNS-1123 and DNS-1035 names, with the API server's wording.
// Each check returns the messages the Go function returns: an empty vector means valid.

#include <string>
#include <string_view>
#include <vector>

namespace respool::apimachinery {

// IsQualifiedName: [prefix/]name, prefix a DNS-1123 subdomain, name <= 63 characters.
std::vector<std::string> qualified_name_errors(std::string_view value);
// IsValidLabelValue: empty, or <= 63 characters of [-A-Za-z0-9_.] starting and ending alphanumeric.
std::vector<std::string> label_value_errors(std::string_view value);
// IsDNS1123Subdomain (object names of most kinds): <= 253 characters.
std::vector<std::string> dns1123_subdomain_errors(std::string_view value);
// IsDNS1123Label (namespace names): <= 63 characters, no dots.
std::vector<std::string> dns1123_label_errors(std::string_view value);
// IsDNS1035Label (service names): <= 63 characters, starting with a letter.
std::vector<std::string> dns1035_label_errors(std::string_view value);

// The same checks as booleans: whether the list above would be empty.
bool is_qualified_name(std::string_view value);
bool is_label_value(std::string_view value);
bool is_dns1123_subdomain(std::string_view value);
bool is_dns1123_label(std::string_view value);

}  // namespace respool::apimachinery
