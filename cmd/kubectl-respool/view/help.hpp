#pragma once
// The help and usage texts, cobra's layout: what it does, Examples, Options, Usage.

#include <string>
#include <vector>

namespace respool::kubectl {

// The help of a command ({"status"}, {"top","job"}, ...); {} or an unknown one: the plugin's.
std::string help_text(const std::vector<std::string>& command);

// The line kubectl ends a usage error with: "See 'kubectl respool status -h' for help and
// examples."
std::string see_help(const std::vector<std::string>& command);

}  // namespace respool::kubectl
