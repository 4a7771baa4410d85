#include "operator/runtime/log.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "apimachinery/time.hpp"

namespace respool::runtime::log {

namespace {

struct State {
  std::mutex mu;
  Format format = Format::Text;
  Level level = Level::Info;
  std::shared_ptr<spdlog::logger> logger;
  std::shared_ptr<spdlog::logger> audit;
};

State& state() {
  static State s;
  return s;
}

std::shared_ptr<spdlog::logger> make_stderr_logger() {
  auto logger = std::make_shared<spdlog::logger>("respool",
                                                 std::make_shared<spdlog::sinks::stderr_sink_mt>());
  logger->set_pattern("%v");  // each line is formatted here, not by spdlog
  logger->set_level(spdlog::level::trace);
  logger->flush_on(spdlog::level::trace);
  return logger;
}

std::string_view level_name(Level l) {
  switch (l) {
    case Level::Debug:
      return "debug";
    case Level::Info:
      return "info";
    case Level::Warn:
      return "warn";
    case Level::Error:
      return "error";
  }
  return "info";
}

std::string now_text() {
  auto now = std::chrono::system_clock::now();
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
  std::string t = apimachinery::format_time(std::chrono::floor<std::chrono::seconds>(now));
  // "...:05Z" → "...:05.123Z"
  char frac[8];
  std::snprintf(frac, sizeof frac, ".%03d", static_cast<int>(ms.count()));
  t.insert(t.size() - 1, frac);
  return t;
}

}  // namespace

void configure(Format format, Level level) {
  auto& s = state();
  std::lock_guard lock(s.mu);
  s.format = format;
  s.level = level;
  if (!s.logger) s.logger = make_stderr_logger();
}

bool parse_format(std::string_view text, Format& out) {
  if (text == "json")
    out = Format::Json;
  else if (text == "text")
    out = Format::Text;
  else if (text == "auto")
    out = isatty(STDERR_FILENO) ? Format::Text : Format::Json;
  else
    return false;
  return true;
}

bool parse_level(std::string_view text, Level& out) {
  if (text == "debug")
    out = Level::Debug;
  else if (text == "info")
    out = Level::Info;
  else if (text == "warn" || text == "warning")
    out = Level::Warn;
  else if (text == "error")
    out = Level::Error;
  else
    return false;
  return true;
}

void write(Level level, std::string_view logger, std::string_view message, Fields fields) {
  auto& s = state();
  std::shared_ptr<spdlog::logger> out;
  Format format;
  {
    std::lock_guard lock(s.mu);
    if (level < s.level) return;
    if (!s.logger) s.logger = make_stderr_logger();
    out = s.logger;
    format = s.format;
  }
  std::string line;
  if (format == Format::Json) {
    nlohmann::json j = {
        {"ts", now_text()}, {"level", level_name(level)}, {"logger", logger}, {"msg", message}};
    for (const auto& f : fields)
      j[std::string(f.key)] = f.value;
    line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } else {
    line = now_text() + " " + std::string(level_name(level)) + " " + std::string(logger) + ": " +
           std::string(message);
    for (const auto& f : fields) {
      line += " " + std::string(f.key) + "=";
      line += f.value.is_string()
                  ? f.value.get<std::string>()
                  : f.value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
  }
  out->info(line);
}

void open_audit(const std::string& path) {
  auto& s = state();
  std::lock_guard lock(s.mu);
  if (path.empty() || path == "-") {
    s.audit = std::make_shared<spdlog::logger>("audit",
                                               std::make_shared<spdlog::sinks::stdout_sink_mt>());
  } else {
    s.audit = std::make_shared<spdlog::logger>(
        "audit", std::make_shared<spdlog::sinks::basic_file_sink_mt>(path, /*truncate=*/false));
  }
  s.audit->set_pattern("%v");
  s.audit->flush_on(spdlog::level::trace);
}

void audit(std::string_view record) {
  auto& s = state();
  std::shared_ptr<spdlog::logger> out;
  {
    std::lock_guard lock(s.mu);
    out = s.audit;
  }
  if (!out) return;
  if (record.find_first_of("\r\n") == std::string_view::npos) {
    out->info(record);
    return;
  }
  std::string one_line(record);
  std::replace_if(
      one_line.begin(), one_line.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  out->info(one_line);
}

}  // namespace respool::runtime::log
