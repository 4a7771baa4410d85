#pragma once
// Runs calls into a vendor library that may hang (a wedged GPU driver blocks NVML calls for
// minutes) on a thread of its own, and stops waiting for a call after a timeout, so that a hung
// driver never hangs the agent (A050103). A hung call keeps its thread: until it returns,
// further tasks fail at once naming it, in the same words. The thread cannot be interrupted, so the
// destructor leaves a hung one detached; everything it touches is owned by the task (shared_ptr).

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <expected>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace respool::agent {

class BoundedWorker {
 public:
  // Handed to a task: it names each library call before making it, which starts that call's
  // timeout.
  class Progress {
   public:
    void call(std::string_view name);

   private:
    friend class BoundedWorker;
    struct State;
    explicit Progress(State* state) : state_(state) {}
    State* state_;
  };
  using Task = std::function<void(Progress&)>;

  explicit BoundedWorker(std::string library);
  ~BoundedWorker();
  BoundedWorker(const BoundedWorker&) = delete;
  BoundedWorker& operator=(const BoundedWorker&) = delete;

  // Runs `task` and waits until it ends, or until one of its calls has run longer than
  // `timeout` ("nvmlDeviceGetTotalEccErrors did not return within 5s"). Anything the task
  // writes must be owned by the task itself (capture shared_ptrs), since a task that timed out
  // goes on running after this returns.
  std::expected<void, std::string> run(Task task, std::chrono::milliseconds timeout);
  // Whether a call that timed out has still not returned.
  bool hung() const;

 private:
  void loop();

  std::shared_ptr<Progress::State> state_;
  std::thread thread_;
};

}  // namespace respool::agent
