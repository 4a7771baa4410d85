#include "test/soak/replicas.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace respool::soak {

Replicas::Replicas(ReplicaOptions options, int count)
    : options_(std::move(options)), count_(count) {}

Replicas::~Replicas() {
  for (auto& run : runs_) {
    if (run.ended) continue;
    ::kill(run.pid, SIGKILL);
    reap(run, true);
  }
}

void Replicas::start(int slot) {
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
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 1, run.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&files, 1, 2);
  posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
  const int failed = posix_spawn(&run.pid, argv[0], &files, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  if (failed != 0) throw std::runtime_error("cannot start " + options_.binary.string());
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
