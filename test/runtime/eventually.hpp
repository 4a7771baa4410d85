#pragma once
// Waits (in real time, generously) for a condition another thread makes true. Tests assert on
// the condition, never on how long it took: the machine is shared and noisy.

#include <chrono>
#include <thread>

namespace respool::runtime::test {

template <class Condition>
bool eventually(Condition condition, std::chrono::seconds timeout = std::chrono::seconds{30}) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds{1});
  }
  return true;
}

}  // namespace respool::runtime::test
