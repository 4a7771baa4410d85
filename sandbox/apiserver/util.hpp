#pragma once
// Small helpers shared by the API server's files: identifiers, object accessors.

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::sandbox {

using Json = nlohmann::json;

// A random RFC 4122 version 4 UUID, as metadata.uid.
std::string new_uid();
// Five characters of generateName's alphabet ("bcdfghjklmnpqrstvwxz2456789").
std::string random_suffix();

// metadata fields as strings ("" when absent or not a string).
std::string meta_string(const Json& obj, const char* field);
inline std::string object_name(const Json& obj) {
  return meta_string(obj, "name");
}
inline std::string object_namespace(const Json& obj) {
  return meta_string(obj, "namespace");
}
inline std::string object_uid(const Json& obj) {
  return meta_string(obj, "uid");
}
bool has_deletion_timestamp(const Json& obj);
// obj[key] as a string, "" when obj is no object or it is absent or not a string.
std::string text_of(const Json& obj, const char* key);
std::string lowercase(std::string s);  // ASCII
// metadata.finalizers as written (strings only).
std::vector<std::string> finalizers_of(const Json& obj);

}  // namespace respool::sandbox
