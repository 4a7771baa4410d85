#pragma once
// The operator as its own process (build/respool-operator), for a benchmark that measures what
// the operator alone costs: its RSS and CPU time from /proc, its readiness (/readyz once every
// cache synced), and its reconcile-time histogram from a plain /metrics. It dies with the
// benchmark (PR_SET_PDEATHSIG). Not a program.

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/harness.hpp"
#include "operator/http/client.hpp"

namespace respool::bench {

// A port nobody listens on now (bound to 0, read, closed: good enough on loopback).
inline std::uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    die("no free port");
  ::close(fd);
  return ntohs(addr.sin_port);
}

// Cumulative counts by upper bound (le), summed over every series of one histogram.
struct Histogram {
  std::map<double, double> buckets;
  // The q-quantile by linear interpolation inside its bucket, as histogram_quantile does.
  double quantile(double q) const {
    if (buckets.empty() || buckets.rbegin()->second <= 0) return 0;
    const double rank = q * buckets.rbegin()->second;
    double lower = 0, below = 0;
    for (const auto& [le, count] : buckets) {
      if (count >= rank) {
        if (std::isinf(le)) return lower;
        return lower + (le - lower) * (count > below ? (rank - below) / (count - below) : 0);
      }
      lower = le;
      below = count;
    }
    return lower;
  }
  Histogram minus(const Histogram& earlier) const {
    Histogram out = *this;
    for (auto& [le, count] : out.buckets) {
      if (auto it = earlier.buckets.find(le); it != earlier.buckets.end()) count -= it->second;
    }
    return out;
  }
};

class OperatorProcess {
 public:
  // binary: this build's operator unless another is named (an A/B of two builds on one cluster).
  OperatorProcess(const std::string& kubeconfig, const std::string& catalog, const std::string& log,
                  const std::string& binary = RESPOOL_OPERATOR_BINARY)
      : metrics_port_(free_port()), health_port_(free_port()) {
    std::vector<std::string> args = {
        binary,
        "--kubeconfig=" + kubeconfig,
        "--catalog=" + catalog,
        "--namespace=respool-system",
        "--training-jobs=false",
        "--kube-api-qps=0",
        "--metrics-secure=false",
        "--metrics-bind-address=127.0.0.1:" + std::to_string(metrics_port_),
        "--health-probe-bind-address=127.0.0.1:" + std::to_string(health_port_),
        "--audit-log=/dev/null",
        "--log-format=json",
        "--log-level=warn"};
    // RESPOOL_BENCH_OPERATOR_WRAP, words run before the operator (e.g. "/usr/bin/heaptrack -o
    // /tmp/op"): for a profile only, as the RSS and CPU read are then the wrapper's.
    if (const char* wrap = std::getenv("RESPOOL_BENCH_OPERATOR_WRAP")) {
      std::istringstream words(wrap);
      std::vector<std::string> before{std::istream_iterator<std::string>(words), {}};
      args.insert(args.begin(), before.begin(), before.end());
    }
    std::vector<char*> argv;
    for (auto& a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) die("cannot write " + log);
    const pid_t parent = ::getpid();
    started_ = Steady::now();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      ::setpgid(0, 0);  // its own group, which the destructor ends whole (a wrapper's child too)
      ::dup2(out, 1);
      ::dup2(out, 2);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::close(out);
    if (pid_ < 0) die("cannot start " + binary);
    ::setpgid(pid_, pid_);  // as the child does: whichever runs first
  }
  ~OperatorProcess() {
    if (::kill(-pid_, SIGKILL) != 0) ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  OperatorProcess(const OperatorProcess&) = delete;
  OperatorProcess& operator=(const OperatorProcess&) = delete;

  // Seconds from the start until /readyz answers 200 (every cache synced).
  double wait_ready(std::chrono::seconds limit) {
    const auto deadline = Steady::now() + limit;
    while (get(health_port_, "/readyz").status != 200) {
      if (int status = 0; ::waitpid(pid_, &status, WNOHANG) == pid_)
        die("the operator exited (status " + std::to_string(status) + ")");
      if (Steady::now() > deadline) die("the operator was not ready in time");
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return std::chrono::duration<double>(Steady::now() - started_).count();
  }
  long rss_kib() const { return status_kib("VmRSS:"); }
  long peak_rss_kib() const { return status_kib("VmHWM:"); }
  // User plus system CPU seconds so far.
  double cpu_s() const {
    std::ifstream in("/proc/" + std::to_string(pid_) + "/stat");
    std::string all((std::istreambuf_iterator<char>(in)), {});
    std::istringstream fields(all.substr(all.rfind(')') + 2));
    std::string skip;
    for (int i = 3; i < 14; ++i)
      fields >> skip;  // state .. cmajflt: fields 3 to 13
    double utime = 0, stime = 0;
    fields >> utime >> stime;
    return (utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
  }
  // controller_runtime_reconcile_time_seconds over every controller.
  Histogram reconcile_time() {
    const http::Response r = get(metrics_port_, "/metrics");
    if (r.status != 200) die("the operator's /metrics answered " + std::to_string(r.status));
    Histogram h;
    std::istringstream lines(r.body);
    const std::string name = "controller_runtime_reconcile_time_seconds_bucket{";
    for (std::string line; std::getline(lines, line);) {
      if (!line.starts_with(name)) continue;
      const auto le = line.find("le=\"");
      const auto value = line.rfind(' ');
      if (le == std::string::npos || value == std::string::npos) continue;
      const std::string bound = line.substr(le + 4, line.find('"', le + 4) - le - 4);
      h.buckets[bound == "+Inf" ? INFINITY : std::stod(bound)] += std::stod(line.substr(value));
    }
    return h;
  }

 private:
  static http::Response get(std::uint16_t port, const std::string& path) {
    http::ClientOptions options;
    options.endpoint = {"http", "127.0.0.1", port, ""};
    options.connect_timeout = std::chrono::milliseconds(1000);
    http::Client client(options);
    auto r = client.send(http::Request{"GET", path, {}, ""}, std::chrono::seconds(30));
    return r ? *r : http::Response{};
  }
  long status_kib(const std::string& field) const {
    std::ifstream status("/proc/" + std::to_string(pid_) + "/status");
    for (std::string line; std::getline(status, line);) {
      if (line.rfind(field, 0) == 0) return std::stol(line.substr(field.size()));
    }
    return 0;
  }

  std::uint16_t metrics_port_, health_port_;
  pid_t pid_ = -1;
  Steady::time_point started_;
};

}  // namespace respool::bench
