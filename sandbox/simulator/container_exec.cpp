#include "sandbox/simulator/container_exec.hpp"

#include <charconv>
#include <map>
#include <optional>

#include "sandbox/simulator/fit.hpp"

namespace respool::sandbox::sim {
namespace {

using Json = nlohmann::json;

const std::map<std::string, int, std::less<>> kSignals = {
    {"HUP", 1}, {"INT", 2}, {"QUIT", 3}, {"KILL", 9}, {"USR1", 10}, {"USR2", 12}, {"TERM", 15}};

std::string base_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::optional<int> number(std::string_view text) {
  int v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

// "9", "KILL", "SIGKILL".
std::optional<int> signal_of(std::string_view name) {
  if (auto n = number(name)) return n;
  if (name.starts_with("SIG")) name.remove_prefix(3);
  auto it = kSignals.find(name);
  return it == kSignals.end() ? std::nullopt : std::optional<int>(it->second);
}

struct Process {
  std::string name;
  std::string command_line;
};

Process main_process(const Json& pod, const std::string& container) {
  Process p{container, container};
  const Json& containers = at_path(pod, {"spec", "containers"});
  if (!containers.is_array()) return p;
  for (const auto& c : containers) {
    if (!c.is_object() || c.value("name", std::string()) != container) continue;
    std::vector<std::string> words;
    for (const char* key : {"command", "args"})
      if (c.contains(key) && c[key].is_array())
        for (const auto& w : c[key])
          if (w.is_string()) words.push_back(w.get<std::string>());
    if (words.empty()) return p;
    p.name = base_name(words[0]);
    p.command_line.clear();
    for (const auto& w : words)
      p.command_line += (p.command_line.empty() ? "" : " ") + w;
  }
  return p;
}

// Words of a shell command: blanks separate them, quotes group them and go.
std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> out;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) out.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) out.push_back(std::move(word));
  return out;
}

// A script's commands, split at ; && || and newlines outside quotes.
std::vector<std::string> split_script(std::string_view script) {
  std::vector<std::string> out;
  std::string current;
  char quote = 0;
  for (std::size_t i = 0; i < script.size(); ++i) {
    const char c = script[i];
    if (quote) {
      if (c == quote) quote = 0;
      current += c;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    const bool pair =
        i + 1 < script.size() && (script.substr(i, 2) == "&&" || script.substr(i, 2) == "||");
    if (c == ';' || c == '\n' || pair) {
      out.push_back(std::move(current));
      current.clear();
      if (pair) ++i;
      continue;
    }
    current += c;
  }
  out.push_back(std::move(current));
  return out;
}

ExecOutcome run(const std::vector<std::string>& argv, const Json& pod, const std::string& container,
                bool in_shell, const std::string& shell);

ExecOutcome kill_command(const std::vector<std::string>& argv, bool pkill, const Json& pod,
                         const std::string& container) {
  ExecOutcome o;
  int signal = 15;
  bool full = false;
  std::vector<std::string> targets;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "-s" && i + 1 < argv.size()) {
      if (auto s = signal_of(argv[++i])) signal = *s;
    } else if (pkill && a == "-f") {
      full = true;
    } else if (a.size() > 1 && a[0] == '-' && signal_of(std::string_view(a).substr(1))) {
      signal = *signal_of(std::string_view(a).substr(1));
    } else {
      targets.push_back(a);
    }
  }
  if (targets.empty()) {
    o.err = pkill ? "pkill: no matching criteria specified\n"
                  : "kill: usage: kill [-s sigspec | -n signum | -sigspec] pid\n";
    o.exit_code = 2;
    return o;
  }
  const Process main = main_process(pod, container);
  bool hit = false;
  for (const auto& t : targets) {
    if (pkill) {
      hit = hit || (full ? main.command_line : main.name).find(t) != std::string::npos;
    } else if (t == "1") {
      hit = true;
    } else {
      o.err += "kill: can't kill pid " + t + ": No such process\n";
      o.exit_code = 1;
    }
  }
  if (hit) o.kill_signal = signal;
  if (pkill && !hit) o.exit_code = 1;
  return o;
}

ExecOutcome run(const std::vector<std::string>& argv, const Json& pod, const std::string& container,
                bool in_shell, const std::string& shell) {
  ExecOutcome o;
  if (argv.empty()) return o;
  const std::string cmd = base_name(argv[0]);
  if (cmd == "kill" || cmd == "pkill") return kill_command(argv, cmd == "pkill", pod, container);
  if ((cmd == "sh" || cmd == "bash") && argv.size() >= 3 && argv[1] == "-c") {
    for (const auto& part : split_script(argv[2])) {
      ExecOutcome step = run(split_words(part), pod, container, true, cmd);
      o.out += step.out;
      o.err += step.err;
      o.exit_code = step.exit_code;
      if (step.kill_signal) o.kill_signal = step.kill_signal;
      if (o.kill_signal) break;  // the container's processes stop with it
    }
    return o;
  }
  if (cmd == "echo") {
    for (std::size_t i = 1; i < argv.size(); ++i)
      o.out += (i > 1 ? " " : "") + argv[i];
    o.out += '\n';
    return o;
  }
  if (cmd == "true" || cmd == "sleep") return o;
  if (cmd == "false") {
    o.exit_code = 1;
    return o;
  }
  if (cmd == "hostname") {
    std::string host = string_at(pod, {"spec", "hostname"});
    o.out = (host.empty() ? string_at(pod, {"metadata", "name"}) : host) + "\n";
    return o;
  }
  o.exit_code = 127;
  o.err = in_shell ? shell + ": " + argv[0] + ": not found\n"
                   : "exec: \"" + argv[0] + "\": executable file not found in $PATH\n";
  return o;
}

}  // namespace

ExecOutcome run_exec(const std::vector<std::string>& command, const Json& pod,
                     const std::string& container) {
  return run(command, pod, container, false, "sh");
}

}  // namespace respool::sandbox::sim
