#include "test/soak/replicas.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <stdexcept>
#include <thread>

namespace respool::soak {

Replicas::Replicas(ReplicaOptions options, int count)
    : options_(std::move(options)), count_(count), spawner_([this] { spawner(); }) {}

Replicas::~Replicas() {
  {
    std::lock_guard lock(spawn_mu_);
    spawn_stopping_ = true;
  }
  spawn_cv_.notify_all();
  spawner_.join();
  for (auto& run : runs_) {
    if (run.ended) continue;
    ::kill(run.pid, SIGKILL);
    reap(run, true);
  }
}

void Replicas::start(int slot) {
  std::unique_lock lock(spawn_mu_);
  spawn_requests_.push_back(slot);
  spawn_cv_.notify_all();
  spawn_cv_.wait(lock, [&] { return spawn_requests_.empty() && !spawning_; });
  if (!spawn_error_.empty()) throw std::runtime_error(spawn_error_);
}

// Every replica is forked by this one thread, which lives as long as the Replicas: a child's
// PR_SET_PDEATHSIG fires when the thread that forked it ends, and it must fire only with the soak.
void Replicas::spawner() {
  std::unique_lock lock(spawn_mu_);
  for (;;) {
    spawn_cv_.wait(lock, [&] { return spawn_stopping_ || !spawn_requests_.empty(); });
    if (spawn_requests_.empty()) return;
    const int slot = spawn_requests_.front();
    spawn_requests_.erase(spawn_requests_.begin());
    spawning_ = true;
    lock.unlock();
    std::string error;
    try {
      spawn(slot);
    } catch (const std::exception& e) {
      error = e.what();
    }
    lock.lock();
    spawn_error_ = error;
    spawning_ = false;
    spawn_cv_.notify_all();
  }
}

void Replicas::spawn(int slot) {
  ReplicaRun run;
  run.slot = slot;
  const std::string tag = "replica-" + std::to_string(slot) + "-" + std::to_string(runs_.size());
  run.log = options_.dir / (tag + ".log");
  run.audit = options_.dir / (tag + ".audit.jsonl");
  std::vector<std::string> args = {options_.binary.string(),
                                   "--kubeconfig=" + options_.kubeconfig.string(),
                                   "--catalog=" + options_.catalog.string(),
                                   "--audit-log=" + run.audit.string(), "--log-format=json"};
  args.insert(args.end(), options_.args.begin(), options_.args.end());
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  const int log = ::open(run.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log < 0) throw std::runtime_error("cannot write " + run.log.string());
  const pid_t soak = ::getpid();
  run.pid = ::fork();
  if (run.pid == 0) {
    // The replica dies with the soak, whatever ends it: no operator is left running after a
    // crashed or killed soak (CI runs other tests after it).
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != soak) ::_exit(127);
    ::dup2(log, 1);
    ::dup2(log, 2);
    const int null = ::open("/dev/null", O_RDONLY);
    ::dup2(null, 0);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(log);
  if (run.pid < 0) throw std::runtime_error("cannot start " + options_.binary.string());
  runs_.push_back(std::move(run));
}

ReplicaRun* Replicas::current(int slot) {
  for (auto it = runs_.rbegin(); it != runs_.rend(); ++it) {
    if (it->slot != slot) continue;
    reap(*it, false);
    return it->ended ? nullptr : &*it;
  }
  return nullptr;
}

bool Replicas::running(int slot) {
  return current(slot) != nullptr;
}

void Replicas::kill(int slot) {
  ReplicaRun* run = current(slot);
  if (!run) return;
  read_identity(*run);
  run->killed = true;
  ::kill(run->pid, SIGKILL);
  reap(*run, true);
  ++kills_;
}

void Replicas::stop_all() {
  for (auto& run : runs_) {
    if (run.ended) continue;
    read_identity(run);
    run.killed = true;  // asked to stop: whatever it exits with is the soak's doing
    ::kill(run.pid, SIGTERM);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  for (auto& run : runs_) {
    while (!run.ended && std::chrono::steady_clock::now() < deadline) {
      reap(run, false);
      if (!run.ended) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (!run.ended) {
      ::kill(run.pid, SIGKILL);
      reap(run, true);
    }
  }
}

void Replicas::reap(ReplicaRun& run, bool wait) {
  if (run.ended) return;
  int status = 0;
  const pid_t done = waitpid(run.pid, &status, wait ? 0 : WNOHANG);
  if (done == run.pid) {
    run.ended = true;
    run.exit_status = status;
  }
}

void Replicas::read_identity(ReplicaRun& run) {
  if (!run.identity.empty()) return;
  std::ifstream in(run.log);
  const std::string key = "\"identity\":\"";
  for (std::string line; std::getline(in, line);) {
    if (line.find("\"starting\"") == std::string::npos) continue;
    auto at = line.find(key);
    if (at == std::string::npos) continue;
    at += key.size();
    run.identity = line.substr(at, line.find('"', at) - at);
    return;
  }
}

std::optional<int> Replicas::slot_of(const std::string& identity) {
  for (auto& run : runs_) {
    read_identity(run);
    reap(run, false);
    if (run.identity == identity && !run.ended) return run.slot;
  }
  return std::nullopt;
}

const std::vector<ReplicaRun>& Replicas::runs() {
  for (auto& run : runs_) {
    read_identity(run);
    reap(run, false);
  }
  return runs_;
}

std::vector<std::string> Replicas::crashes() {
  std::vector<std::string> out;
  for (auto& run : runs()) {
    if (!run.ended || run.killed) continue;
    const int s = run.exit_status;
    if (WIFEXITED(s) && (WEXITSTATUS(s) == 0 || WEXITSTATUS(s) == 1)) continue;
    out.push_back(run.log.filename().string() + " (" + run.identity + ") ended by itself: " +
                  (WIFSIGNALED(s) ? "signal " + std::to_string(WTERMSIG(s))
                                  : "exit " + std::to_string(WEXITSTATUS(s))));
  }
  return out;
}

}  // namespace respool::soak
