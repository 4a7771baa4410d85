#pragma once
// Code-error detection (O3, O8): a failed worker's exit and the end of its log matched against
// the failure catalogue. The log is read once per failed pod, bounded by the caller
// (kLogTailLines, kLogTailBytes); the matcher bounds itself again, so that a huge or binary log
// costs a bounded time and yields printable UTF-8 lines for the report.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reconcilers/policy/failure_catalogue.hpp"

namespace respool::policy {

inline constexpr int kLogTailLines = 200;                // pods/log tailLines
inline constexpr std::size_t kLogTailBytes = 64 * 1024;  // pods/log limitBytes, and the cap here
inline constexpr std::size_t kLineBytes = 4096;          // longer lines are cut for matching
inline constexpr std::size_t kKeyLines = 5, kKeyLineBytes = 512;

struct WorkerFailure {
  std::optional<int> exit_code;  // of the failed container
  std::string reason;            // its terminated reason ("OOMKilled", "Error")
};

struct LogLine {
  std::string time;  // the line's timestamp (pods/log `timestamps=true`), "" without one
  std::string text;  // printable UTF-8, at most kLineBytes
  bool operator==(const LogLine&) const = default;
};

// The last Python traceback of the log: the exception and the user's frame (the innermost one
// outside site-packages, dist-packages and the standard library).
struct Traceback {
  std::string exception;  // "ModuleNotFoundError"
  std::string message;    // "No module named 'transformers'"
  std::string file;       // "/workspace/train.py"
  int line = 0;
  std::string function;
  bool operator==(const Traceback&) const = default;
};

struct FailureFinding {
  std::size_t entry = 0;           // the catalogue entry (its index)
  std::string matched_by;          // "log", "exit code 139", "reason OOMKilled"
  std::vector<LogLine> key_lines;  // at most kKeyLines, in log order, each at most kKeyLineBytes
  std::optional<Traceback> traceback;
};

// The log's lines, oldest first: the last kLogTailBytes only, each cut to kLineBytes, its
// timestamp split off, bytes that are not printable UTF-8 replaced by '?'.
std::vector<LogLine> split_log(std::string_view tail);

std::optional<Traceback> last_traceback(const std::vector<LogLine>& lines);

// The first catalogue entry that matches, or nullopt (an unrecognised failure: no report).
std::optional<FailureFinding> match_failure(const FailureCatalogue& catalogue,
                                            const WorkerFailure& worker, std::string_view tail);

}  // namespace respool::policy
