#include "sandbox/apiserver/util.hpp"

#include <cctype>
#include <random>

namespace respool::sandbox {
namespace {

std::mt19937_64& rng() {
  static thread_local std::mt19937_64 engine{std::random_device{}()};
  return engine;
}

}  // namespace

std::string new_uid() {
  std::uniform_int_distribution<int> nibble(0, 15);
  const char* hex = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 32; ++i) {
    if (i == 8 || i == 12 || i == 16 || i == 20) out += '-';
    int v = nibble(rng());
    if (i == 12) v = 4;
    if (i == 16) v = 8 + (v & 3);
    out += hex[v];
  }
  return out;
}

std::string random_suffix() {
  static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::uniform_int_distribution<std::size_t> pick(0, sizeof(alphabet) - 2);
  std::string out;
  for (int i = 0; i < 5; ++i)
    out += alphabet[pick(rng())];
  return out;
}

std::string meta_string(const Json& obj, const char* field) {
  if (!obj.is_object()) return "";
  auto m = obj.find("metadata");
  if (m == obj.end() || !m->is_object()) return "";
  auto f = m->find(field);
  if (f == m->end() || !f->is_string()) return "";
  return f->get<std::string>();
}

bool has_deletion_timestamp(const Json& obj) {
  if (!obj.is_object()) return false;
  auto m = obj.find("metadata");
  if (m == obj.end() || !m->is_object()) return false;
  auto f = m->find("deletionTimestamp");
  return f != m->end() && !f->is_null();
}

std::vector<std::string> finalizers_of(const Json& obj) {
  std::vector<std::string> out;
  if (!obj.is_object() || !obj.contains("metadata") || !obj["metadata"].is_object()) return out;
  const Json& m = obj["metadata"];
  if (!m.contains("finalizers") || !m["finalizers"].is_array()) return out;
  for (const Json& f : m["finalizers"]) {
    if (f.is_string()) out.push_back(f.get<std::string>());
  }
  return out;
}

std::string text_of(const Json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_string()) return "";
  return obj[key].get<std::string>();
}

std::string lowercase(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace respool::sandbox
