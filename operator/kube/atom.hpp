#pragma once
// Interned strings for the cache. Namespaces, node names, label keys and values, phases and
// resource names repeat across thousands of cached objects: each distinct value is stored once
// for the life of the process and an Atom is one pointer to it.

#include <functional>
#include <string>
#include <string_view>

namespace respool::kube {

class Atom {
 public:
  Atom();                                // the empty string
  explicit Atom(std::string_view text);  // interns text (thread-safe)

  std::string_view view() const { return *text_; }
  const std::string& str() const { return *text_; }
  bool empty() const { return text_->empty(); }
  // Interned: the address identifies the text (for hashing values made of atoms).
  const void* id() const noexcept { return text_; }
  // Interned: equal text means the same pointer.
  friend bool operator==(Atom a, Atom b) { return a.text_ == b.text_; }
  friend bool operator==(Atom a, std::string_view b) { return a.view() == b; }

 private:
  const std::string* text_;
};

// How many distinct strings are interned (for benchmarks and tests).
std::size_t interned_count();

}  // namespace respool::kube
