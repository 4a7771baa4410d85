#pragma once
// What the test libraries share: the readings file named by an environment variable, read
// again on every call (so that a test flips a reading while the agent runs), and a call that
// blocks while the file names it under "hang" (a wedged driver).

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

namespace respool::testlibs {

// The file's JSON; a JSON null when the variable is unset or the file unreadable or garbage.
inline nlohmann::json read_readings(const char* env) {
  const char* path = std::getenv(env);
  if (!path) return nullptr;
  std::ifstream in(path);
  if (!in) return nullptr;
  std::stringstream text;
  text << in.rdbuf();
  auto j = nlohmann::json::parse(text.str(), nullptr, false);
  return j.is_discarded() || !j.is_object() ? nlohmann::json(nullptr) : j;
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
