#pragma once
// The operator's replicas as processes of the built respool-operator, with leader election, so
// that the soak can SIGKILL them: each start is a run with its own log and audit log, and its
// identity (a new one per start, as a restarted pod's) read from its "starting" line.

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace respool::soak {

struct ReplicaOptions {
  std::filesystem::path binary;  // respool-operator
  std::filesystem::path kubeconfig;
  std::filesystem::path catalog;
  std::filesystem::path dir;      // logs and audit logs go here
  std::vector<std::string> args;  // leader election and the rest
};

struct ReplicaRun {
  int slot = 0;
  pid_t pid = -1;
  std::filesystem::path log;
  std::filesystem::path audit;
  std::string identity;  // "" until its log says
  bool killed = false;   // by the soak
  int exit_status = -1;  // waitpid's status once it ended
  bool ended = false;
};

class Replicas {
 public:
  Replicas(ReplicaOptions options, int count);
  ~Replicas();  // stops every run still going
  Replicas(const Replicas&) = delete;
  Replicas& operator=(const Replicas&) = delete;

  void start(int slot);
  void kill(int slot);  // SIGKILL, reaped
  void stop_all();      // SIGTERM (the graceful stop), SIGKILL after 15 s
  bool running(int slot);
  int count() const { return count_; }
  int kills() const { return kills_; }
  // The slot whose current run holds `identity`, if any (reads the runs' logs as needed).
  std::optional<int> slot_of(const std::string& identity);
  // Every run so far, identities read.
  const std::vector<ReplicaRun>& runs();
  // Runs that ended without the soak asking: a crash (signal, sanitizer) or an exit other than
  // 0 and 1 (1 is a lost Lease, by design). Text for each.
  std::vector<std::string> crashes();

 private:
  void spawner();
  void spawn(int slot);
  void reap(ReplicaRun& run, bool wait);
  void read_identity(ReplicaRun& run);
  ReplicaRun* current(int slot);

  ReplicaOptions options_;
  int count_;
  int kills_ = 0;
  // One thread at a time uses a Replicas (the chaos thread during the schedule, the main thread
  // after it); the spawner appends to runs_ for a caller of start() that waits meanwhile.
  std::vector<ReplicaRun> runs_;
  std::mutex spawn_mu_;
  std::condition_variable spawn_cv_;
  std::vector<int> spawn_requests_;
  bool spawning_ = false;
  bool spawn_stopping_ = false;
  std::string spawn_error_;
  std::thread spawner_;  // last: it starts in the constructor, after everything it uses
};

}  // namespace respool::soak
