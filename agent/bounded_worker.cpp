#include "agent/bounded_worker.hpp"

#include <fmt/format.h>

namespace respool::agent {

using Steady = std::chrono::steady_clock;

struct BoundedWorker::Progress::State {
  std::string library;
  std::mutex mu;
  std::condition_variable cv;
  Task task;
  bool has_task = false;
  bool busy = false;
  bool stopping = false;
  std::uint64_t submitted = 0, finished = 0;
  std::string call;
  Steady::time_point call_started;
};

void BoundedWorker::Progress::call(std::string_view name) {
  std::lock_guard lock(state_->mu);
  state_->call = name;
  state_->call_started = Steady::now();
  state_->cv.notify_all();
}

BoundedWorker::BoundedWorker(std::string library) : state_(std::make_shared<Progress::State>()) {
  state_->library = std::move(library);
  // The thread holds the state too: a hung thread outlives this object.
  thread_ = std::thread([state = state_] {
    std::unique_lock lock(state->mu);
    for (;;) {
      state->cv.wait(lock, [&] { return state->has_task || state->stopping; });
      if (state->stopping && !state->has_task) return;
      Task task = std::move(state->task);
      state->has_task = false;
      state->busy = true;
      state->call = "(starting)";
      state->call_started = Steady::now();
      lock.unlock();
      Progress progress(state.get());
      task(progress);
      task = nullptr;  // releases what the task owns before the waiter hears it ended
      lock.lock();
      state->busy = false;
      ++state->finished;
      state->cv.notify_all();
    }
  });
}

BoundedWorker::~BoundedWorker() {
  bool hung_now;
  {
    std::lock_guard lock(state_->mu);
    state_->stopping = true;
    hung_now = state_->busy;
    state_->cv.notify_all();
  }
  if (hung_now) {
    thread_.detach();  // it ends when its call returns, if ever; the state lives as long
  } else {
    thread_.join();
  }
}

bool BoundedWorker::hung() const {
  std::lock_guard lock(state_->mu);
  return state_->busy;
}

std::expected<void, std::string> BoundedWorker::run(Task task, std::chrono::milliseconds timeout) {
  std::unique_lock lock(state_->mu);
  auto& s = *state_;
  if (s.busy || s.has_task) {
    // The same words as when it timed out: a condition's message must not change while
    // nothing does (each change is a write of the node's status).
    return std::unexpected(fmt::format("{} did not return within {}ms", s.call, timeout.count()));
  }
  s.task = std::move(task);
  s.has_task = true;
  const auto mine = ++s.submitted;
  s.call_started = Steady::now();
  s.cv.notify_all();
  for (;;) {
    if (s.finished >= mine) return {};
    auto deadline = s.call_started + timeout;
    if (Steady::now() >= deadline) {
      return std::unexpected(fmt::format("{} did not return within {}ms", s.call, timeout.count()));
    }
    s.cv.wait_until(lock, deadline);
  }
}

}  // namespace respool::agent
