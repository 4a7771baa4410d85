#include "operator/kube/atom.hpp"

#include <mutex>
#include <unordered_set>

namespace respool::kube {

namespace {

struct Hash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// Elements of an unordered_set keep their address when it rehashes, so a pointer to the
// interned string stays valid for the life of the process.
struct Pool {
  std::mutex mu;
  std::unordered_set<std::string, Hash, std::equal_to<>> strings;

  const std::string* intern(std::string_view text) {
    std::lock_guard lock(mu);
    auto it = strings.find(text);
    if (it == strings.end()) it = strings.emplace(text).first;
    return &*it;
  }
};

Pool& pool() {
  static Pool instance;
  return instance;
}

const std::string* empty_string() {
  static const std::string* empty = pool().intern({});
  return empty;
}

}  // namespace

Atom::Atom() : text_(empty_string()) {}
Atom::Atom(std::string_view text) : text_(text.empty() ? empty_string() : pool().intern(text)) {}

std::size_t interned_count() {
  std::lock_guard lock(pool().mu);
  return pool().strings.size();
}

}  // namespace respool::kube
