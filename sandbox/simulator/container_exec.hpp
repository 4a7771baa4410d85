#pragma once
// What a command run in a simulated container (pods/exec) does. A simulated container has one
// process, PID 1, the training process: its name is the first word of the container's command
// (else the container's name), its command line the command and args joined.
//
// The commands it knows (by the executable's base name):
// - `kill [-SIGNAL | -s SIGNAL] PID...`: PID 1 stops the training process with the signal
//   (default TERM): the container ends with 128+signal and the kubelet restarts it
//   (restartPolicy Always/OnFailure) or it stays terminated (Never). Other PIDs: "No such
//   process", exit 1.
// - `pkill [-SIGNAL] [-f] PATTERN`: the same when PATTERN occurs in the process name (with -f:
//   in its command line); else exit 1, as pkill does when nothing matched.
// - `sh|bash -c SCRIPT`: the SCRIPT's commands (split at `;`, `&&`, `||`, newlines; words split
//   at blanks, quotes removed) in order, as the shell runs them; the exit code is the last one's.
// - `echo`, `true`, `false`, `hostname`, `sleep` (returns at once).
// Anything else is missing, as in a minimal image: `sh: X: not found` with 127 in a shell,
// `exec: "X": executable file not found in $PATH` with 127 when run directly.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::sandbox::sim {

struct ExecOutcome {
  std::string out;      // stdout
  std::string err;      // stderr
  int exit_code = 0;    // the command's
  int kill_signal = 0;  // > 0: the training process was stopped with this signal
};

ExecOutcome run_exec(const std::vector<std::string>& command, const nlohmann::json& pod,
                     const std::string& container);

}  // namespace respool::sandbox::sim
