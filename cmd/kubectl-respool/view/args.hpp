#pragma once
// The plugin's command line, parsed as kubectl's cobra/pflag parses it: global flags anywhere,
// "--flag=value", "--flag value", "-n value", "-nvalue", "-ojson"; "--" ends the flags.
// Pure: a usage error is a value, worded as kubectl words it.

#include <expected>
#include <optional>
#include <string>
#include <vector>

namespace respool::kubectl {

enum class Output { Table, Wide, Json, Yaml };

struct Invocation {
  std::vector<std::string> command;  // "status", or "top" "job"
  std::vector<std::string> args;     // what follows the command: POOL, NAME
  std::optional<std::string> kubeconfig;
  std::optional<std::string> context;
  std::optional<std::string> ns;  // -n/--namespace
  Output output = Output::Table;
  std::optional<std::string> prometheus_url;
  bool help = false;
};

struct UsageError {
  std::string message;               // "unknown flag: --x"
  std::vector<std::string> command;  // the command it concerns, for its usage text
};

std::expected<Invocation, UsageError> parse_args(const std::vector<std::string>& argv);

// The commands there are: {"status"}, {"jobs"}, {"nodes"}, {"top", "job"}.
bool is_command(const std::vector<std::string>& command);

}  // namespace respool::kubectl
