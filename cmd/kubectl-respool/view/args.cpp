#include "cmd/kubectl-respool/view/args.hpp"

#include <algorithm>
#include <array>
#include <string_view>

namespace respool::kubectl {
namespace {

struct FlagSpec {
  std::string_view long_name;
  char short_name;  // 0 = none
};
constexpr std::array kValueFlags{
    FlagSpec{"kubeconfig", 0}, FlagSpec{"context", 0},        FlagSpec{"namespace", 'n'},
    FlagSpec{"output", 'o'},   FlagSpec{"prometheus-url", 0},
};

const FlagSpec* find_long(std::string_view name) {
  auto it = std::ranges::find(kValueFlags, name, &FlagSpec::long_name);
  return it == kValueFlags.end() ? nullptr : &*it;
}
const FlagSpec* find_short(char c) {
  auto it = std::ranges::find(kValueFlags, c, &FlagSpec::short_name);
  return it == kValueFlags.end() ? nullptr : &*it;
}

std::expected<void, std::string> set_flag(Invocation& inv, std::string_view name,
                                          const std::string& value) {
  if (name == "kubeconfig") inv.kubeconfig = value;
  if (name == "context") inv.context = value;
  if (name == "namespace") inv.ns = value;
  if (name == "prometheus-url") inv.prometheus_url = value;
  if (name != "output") return {};
  // kubectl's message for a format it has no printer for.
  if (value == "json")
    inv.output = Output::Json;
  else if (value == "yaml")
    inv.output = Output::Yaml;
  else if (value == "wide")
    inv.output = Output::Wide;
  else
    return std::unexpected("unable to match a printer suitable for the output format \"" + value +
                           "\", allowed formats are: json,wide,yaml");
  return {};
}

// The words before the first argument that is not a command word.
std::vector<std::string> take_command(std::vector<std::string>& words) {
  std::vector<std::string> command;
  if (words.empty()) return command;
  command.push_back(words.front());
  if (words.front() == "top" && words.size() > 1) command.push_back(words[1]);
  words.erase(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(command.size()));
  return command;
}

// The flag at argv[i] (and its value, which may be the next word) into `inv`: the index of the
// last word it took, or the usage error.
std::expected<std::size_t, std::string> read_flag(const std::vector<std::string>& argv,
                                                  std::size_t i, Invocation& inv) {
  const std::string& a = argv[i];
  const FlagSpec* spec = nullptr;
  std::optional<std::string> value;
  if (a[1] == '-') {
    auto eq = a.find('=');
    std::string name = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    spec = find_long(name);
    if (!spec) return std::unexpected("unknown flag: --" + name);
    if (eq != std::string::npos) value = a.substr(eq + 1);
  } else {
    spec = find_short(a[1]);
    if (!spec)
      return std::unexpected("unknown shorthand flag: '" + std::string(1, a[1]) + "' in " + a);
    if (a.size() > 2) value = a.substr(a[2] == '=' ? 3 : 2);
  }
  if (!value) {
    if (i + 1 >= argv.size())
      return std::unexpected("flag needs an argument: --" + std::string(spec->long_name));
    value = argv[++i];
  }
  if (auto set = set_flag(inv, spec->long_name, *value); !set) return std::unexpected(set.error());
  return i;
}

}  // namespace

bool is_command(const std::vector<std::string>& command) {
  static const std::vector<std::vector<std::string>> kCommands{
      {"status"}, {"jobs"}, {"nodes"}, {"top", "job"}};
  return std::ranges::find(kCommands, command) != kCommands.end();
}

std::expected<Invocation, UsageError> parse_args(const std::vector<std::string>& argv) {
  Invocation inv;
  std::vector<std::string> words;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "--") {
      words.insert(words.end(), argv.begin() + static_cast<std::ptrdiff_t>(i) + 1, argv.end());
      break;
    }
    if (a == "-h" || a == "--help") {
      inv.help = true;
    } else if (a.size() < 2 || a[0] != '-') {
      words.push_back(a);
    } else if (auto next = read_flag(argv, i, inv); next) {
      i = *next;
    } else {
      return std::unexpected(UsageError{next.error(), take_command(words)});
    }
  }
  inv.command = take_command(words);
  inv.args = std::move(words);
  return inv;
}

}  // namespace respool::kubectl
