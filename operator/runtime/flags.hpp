#pragma once
// Command-line flags as Kubernetes components take them (Go pflag conventions): `--name value`
// and `--name=value` alike; a boolean as `--name`, `--name=true` or `--name=false`; durations
// in Go syntax ("15s", "1m30s", "500ms"; apimachinery::parse_duration).

#include <chrono>
#include <expected>
#include <functional>
#include <string>
#include <vector>

namespace respool::runtime {

class FlagSet {
 public:
  explicit FlagSet(std::string program, std::string summary);

  void add_string(std::string name, std::string* target, std::string help);
  void add_bool(std::string name, bool* target, std::string help);
  void add_int(std::string name, int* target, std::string help);
  void add_double(std::string name, double* target, std::string help);
  void add_duration(std::string name, std::chrono::nanoseconds* target, std::string help);

  // Parses argv[1..]. Errors name the flag ("unknown flag: --x", "invalid argument \"abc\" for
  // \"--workers\" flag: not an integer"). --help/-h sets help_requested().
  std::expected<void, std::string> parse(int argc, const char* const* argv);
  bool help_requested() const { return help_; }
  // Operands that are not flags.
  const std::vector<std::string>& args() const { return args_; }
  // Whether the flag was given on the command line.
  bool changed(const std::string& name) const;
  std::string usage() const;

 private:
  struct Flag {
    std::string name;
    std::string help;
    std::string type;  // "string", "bool", ...
    std::string default_text;
    bool is_bool = false;
    bool changed = false;
    std::function<std::expected<void, std::string>(const std::string&)> set;
  };
  Flag* find(const std::string& name);

  std::string program_, summary_;
  std::vector<Flag> flags_;
  std::vector<std::string> args_;
  bool help_ = false;
};

}  // namespace respool::runtime
