#pragma once
// What the test libraries share: the readings file named by an environment variable, looked at
// on every call (so that a test flips a reading while the agent runs), and a call that blocks
// while the file names it under "hang" (a wedged driver).

#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

namespace respool::testlibs {

// The file's JSON; a JSON null when the variable is unset or the file unreadable or garbage.
// Parsed again only when the file changed (another inode, size or modification time: a test
// replaces it by a rename), so that a period's hundred calls cost one stat each.
inline nlohmann::json read_readings(const char* env) {
  const char* path = std::getenv(env);
  struct stat st {};
  if (!path || stat(path, &st) != 0) return nullptr;
  static std::mutex mu;
  static std::string cached_path;
  static struct stat cached_stat {};
  static nlohmann::json cached;
  std::lock_guard lock(mu);
  if (cached_path == path && cached_stat.st_ino == st.st_ino && cached_stat.st_size == st.st_size &&
      cached_stat.st_mtim.tv_sec == st.st_mtim.tv_sec &&
      cached_stat.st_mtim.tv_nsec == st.st_mtim.tv_nsec) {
    return cached;
  }
  std::ifstream in(path);
  if (!in) return nullptr;
  std::stringstream text;
  text << in.rdbuf();
  auto j = nlohmann::json::parse(text.str(), nullptr, false);
  cached = j.is_discarded() || !j.is_object() ? nlohmann::json(nullptr) : j;
  cached_path = path;
  cached_stat = st;
  return cached;
}

// Blocks while the readings file says {"hang": "<call>"} (at most ten minutes).
inline void maybe_hang(const char* env, const char* call) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(10);
  while (std::chrono::steady_clock::now() < deadline) {
    auto j = read_readings(env);
    if (!j.is_object() || j.value("hang", "") != call) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// A forced return code for `call`: {"returns": {"nvmlDeviceGetFanSpeed": 999}} on the device
// (or the top level); 0 when none.
inline int forced_return(const nlohmann::json& where, const char* call) {
  if (!where.is_object()) return 0;
  auto r = where.find("returns");
  if (r == where.end() || !r->is_object()) return 0;
  auto c = r->find(call);
  return c != r->end() && c->is_number_integer() ? c->get<int>() : 0;
}

}  // namespace respool::testlibs
