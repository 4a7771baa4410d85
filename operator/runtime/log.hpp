#pragma once
// Structured logs on spdlog: JSON lines (default in a cluster) or readable text (default on a
// terminal). Every line has a message and key/value fields; tokens and keys are never logged
// (callers pass names, never credentials).

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

namespace respool::runtime::log {

enum class Format { Json, Text };
enum class Level { Debug, Info, Warn, Error };

struct Field {
  std::string_view key;
  nlohmann::json value;
};
using Fields = std::initializer_list<Field>;

// Sets up the process's logger: format, level, and the stream (stderr).
void configure(Format format, Level level);
// "json" | "text" | "auto" (text on a terminal, JSON otherwise).
bool parse_format(std::string_view text, Format& out);
bool parse_level(std::string_view text, Level& out);

void write(Level level, std::string_view logger, std::string_view message, Fields fields = {});

inline void debug(std::string_view logger, std::string_view msg, Fields f = {}) {
  write(Level::Debug, logger, msg, f);
}
inline void info(std::string_view logger, std::string_view msg, Fields f = {}) {
  write(Level::Info, logger, msg, f);
}
inline void warn(std::string_view logger, std::string_view msg, Fields f = {}) {
  write(Level::Warn, logger, msg, f);
}
inline void error(std::string_view logger, std::string_view msg, Fields f = {}) {
  write(Level::Error, logger, msg, f);
}

// A dedicated stream of JSON lines (the audit log): one record per line, flushed at once.
// path "" or "-" = stdout.
void open_audit(const std::string& path);
// `record` is one JSON object on one line (as nlohmann::json::dump() writes it); a line break
// in it would split the record, so any is written as a space.
void audit(std::string_view record);

}  // namespace respool::runtime::log
