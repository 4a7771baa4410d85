#include "cmd/kubectl-respool/view/object_read.hpp"

#include "apimachinery/time.hpp"
#include "cmd/kubectl-respool/view/table.hpp"

namespace respool::kubectl {
namespace read {

const Json& at(const Json& j, std::initializer_list<const char*> path) {
  static const Json kNull;
  const Json* cur = &j;
  for (const char* key : path) {
    if (!cur->is_object()) return kNull;
    auto it = cur->find(key);
    if (it == cur->end()) return kNull;
    cur = &*it;
  }
  return *cur;
}
std::string str(const Json& j, std::initializer_list<const char*> path) {
  const Json& v = at(j, path);
  return v.is_string() ? v.get<std::string>() : std::string();
}
std::string num(const Json& j, std::initializer_list<const char*> path) {
  const Json& v = at(j, path);
  return v.is_number_integer() ? std::to_string(v.get<long long>()) : "0";
}
const Json& items(const Json& list) {
  static const Json kEmpty = Json::array();
  const Json& v = at(list, {"items"});
  return v.is_array() ? v : kEmpty;
}

int integer(const Json& j, std::initializer_list<const char*> path) {
  const Json& v = at(j, path);
  return v.is_number_integer() ? v.get<int>() : 0;
}

}  // namespace read

std::string age_since(const Json& time, Clock::time_point now) {
  if (!time.is_string()) return "";
  auto t = apimachinery::parse_time(time.get<std::string>());
  if (!t) return "";
  return human_duration(std::chrono::duration_cast<std::chrono::seconds>(now - *t));
}

}  // namespace respool::kubectl
