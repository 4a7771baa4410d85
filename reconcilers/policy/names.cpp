#include "reconcilers/policy/names.hpp"

namespace respool::policy {

bool is_pool_name(std::string_view name) {
  return is_dns_label(name) && name.front() >= 'a' && name.front() <= 'z';
}

}  // namespace respool::policy
