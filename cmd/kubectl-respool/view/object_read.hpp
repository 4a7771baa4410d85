#pragma once
// Lenient reads of API objects for display: what is absent or of another type reads as empty
// (a status not written yet, a field an older operator did not set), never as an exception.

#include <chrono>
#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

namespace respool::kubectl {

using Json = nlohmann::json;
using Clock = std::chrono::system_clock;

namespace read {

// The value at a path of object keys; null when any step is missing or not an object.
const Json& at(const Json& j, std::initializer_list<const char*> path);
// A string, or "".
std::string str(const Json& j, std::initializer_list<const char*> path);
// An integer as text; "0" when absent (every number shown is a count).
std::string num(const Json& j, std::initializer_list<const char*> path);
int integer(const Json& j, std::initializer_list<const char*> path);
// A List's items; an empty array when there are none.
const Json& items(const Json& list);

}  // namespace read

// "5m" since an RFC 3339 time, "" when absent or malformed.
std::string age_since(const Json& time, Clock::time_point now);

}  // namespace respool::kubectl
