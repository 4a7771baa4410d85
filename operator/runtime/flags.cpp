#include "operator/runtime/flags.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <sstream>

#include "apimachinery/duration.hpp"

namespace respool::runtime {

FlagSet::FlagSet(std::string program, std::string summary)
    : program_(std::move(program)), summary_(std::move(summary)) {}

void FlagSet::add_string(std::string name, std::string* target, std::string help) {
  flags_.push_back({std::move(name), std::move(help), "string", *target, false, false,
                    [target](const std::string& v) -> std::expected<void, std::string> {
                      *target = v;
                      return {};
                    }});
}

void FlagSet::add_bool(std::string name, bool* target, std::string help) {
  flags_.push_back(
      {std::move(name), std::move(help), "", *target ? "true" : "false", true, false,
       [target](const std::string& v) -> std::expected<void, std::string> {
         // strconv.ParseBool
         if (v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" || v == "True")
           *target = true;
         else if (v == "0" || v == "f" || v == "F" || v == "false" || v == "FALSE" || v == "False")
           *target = false;
         else
           return std::unexpected("strconv.ParseBool: parsing \"" + v + "\": invalid syntax");
         return {};
       }});
}

void FlagSet::add_int(std::string name, int* target, std::string help) {
  flags_.push_back({std::move(name), std::move(help), "int", std::to_string(*target), false, false,
                    [target](const std::string& v) -> std::expected<void, std::string> {
                      int out = 0;
                      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
                      if (ec != std::errc() || p != v.data() + v.size()) {
                        return std::unexpected("strconv.ParseInt: parsing \"" + v +
                                               "\": invalid syntax");
                      }
                      *target = out;
                      return {};
                    }});
}

void FlagSet::add_double(std::string name, double* target, std::string help) {
  std::ostringstream def;
  def << *target;
  flags_.push_back({std::move(name), std::move(help), "float", def.str(), false, false,
                    [target](const std::string& v) -> std::expected<void, std::string> {
                      char* end = nullptr;
                      double out = std::strtod(v.c_str(), &end);
                      if (v.empty() || end != v.c_str() + v.size()) {
                        return std::unexpected("strconv.ParseFloat: parsing \"" + v +
                                               "\": invalid syntax");
                      }
                      *target = out;
                      return {};
                    }});
}

void FlagSet::add_duration(std::string name, std::chrono::nanoseconds* target, std::string help) {
  auto secs = std::chrono::duration<double>(*target).count();
  std::ostringstream def;
  def << secs << "s";
  flags_.push_back({std::move(name), std::move(help), "duration", def.str(), false, false,
                    [target](const std::string& v) -> std::expected<void, std::string> {
                      auto d = apimachinery::parse_duration(v);
                      if (!d) return std::unexpected(d.error());
                      *target = *d;
                      return {};
                    }});
}

FlagSet::Flag* FlagSet::find(const std::string& name) {
  for (auto& f : flags_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

bool FlagSet::changed(const std::string& name) const {
  for (const auto& f : flags_) {
    if (f.name == name) return f.changed;
  }
  return false;
}

std::expected<void, std::string> FlagSet::parse(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") {
      for (++i; i < argc; ++i)
        args_.emplace_back(argv[i]);
      break;
    }
    if (arg == "-h" || arg == "--help" || arg == "-help") {
      help_ = true;
      continue;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      args_.push_back(arg);
      continue;
    }
    std::string body = arg.starts_with("--") ? arg.substr(2) : arg.substr(1);
    std::string name = body;
    std::optional<std::string> value;
    if (auto eq = body.find('='); eq != std::string::npos) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
    }
    Flag* flag = find(name);
    if (!flag) return std::unexpected("unknown flag: --" + name);
    if (!value) {
      if (flag->is_bool) {
        value = "true";
      } else {
        if (i + 1 >= argc) return std::unexpected("flag needs an argument: --" + name);
        value = argv[++i];
      }
    }
    if (auto r = flag->set(*value); !r) {
      return std::unexpected("invalid argument \"" + *value + "\" for \"--" + name +
                             "\" flag: " + r.error());
    }
    flag->changed = true;
  }
  return {};
}

std::string FlagSet::usage() const {
  std::ostringstream out;
  out << summary_ << "\n\nUsage:\n  " << program_ << " [flags]\n\nFlags:\n";
  for (const auto& f : flags_) {
    std::string left = "      --" + f.name + (f.type.empty() ? "" : " " + f.type);
    out << left;
    if (left.size() < 44)
      out << std::string(44 - left.size(), ' ');
    else
      out << "\n" << std::string(44, ' ');
    out << f.help;
    if (!f.default_text.empty() && f.default_text != "false")
      out << " (default " << (f.type == "string" ? "\"" + f.default_text + "\"" : f.default_text)
          << ")";
    out << "\n";
  }
  out << "  -h, --help                                help for " << program_ << "\n";
  return out.str();
}

}  // namespace respool::runtime
