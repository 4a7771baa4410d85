#pragma once
// The regular expressions of CEL (RE2 syntax, as Go's regexp): checking a pattern.

#include <string>

namespace respool::sandbox::cel {

// "error parsing regexp: ..." for a pattern that does not compile, else "".
std::string regex_error(const std::string& pattern);

}  // namespace respool::sandbox::cel
