#include "reconcilers/policy/failure_match.hpp"

#include <algorithm>
#include <cctype>

namespace respool::policy {
namespace {

// Length of the valid UTF-8 sequence starting at s[i] (1-4), or 0 when it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  std::size_t n = 0;
  if (b < 0x80) return 1;
  if (b >= 0xC2 && b <= 0xDF)
    n = 2;
  else if (b >= 0xE0 && b <= 0xEF)
    n = 3;
  else if (b >= 0xF0 && b <= 0xF4)
    n = 4;
  else
    return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  const auto b1 = static_cast<unsigned char>(s[i + 1]);
  if (b == 0xE0 && b1 < 0xA0) return 0;   // overlong
  if (b == 0xED && b1 >= 0xA0) return 0;  // surrogates
  if (b == 0xF0 && b1 < 0x90) return 0;   // overlong
  if (b == 0xF4 && b1 >= 0x90) return 0;  // above U+10FFFF
  return n;
}

// Printable UTF-8 of at most `limit` bytes: control bytes and broken sequences become '?', and a
// cut never splits a character.
std::string printable(std::string_view s, std::size_t limit) {
  std::string out;
  out.reserve(std::min(s.size(), limit));
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_length(s, i);
    const std::size_t take = n == 0 ? 1 : n;
    if (out.size() + take > limit) break;
    const auto b = static_cast<unsigned char>(s[i]);
    if (n == 0 || (n == 1 && ((b < 0x20 && b != '\t') || b == 0x7F)))
      out += '?';
    else
      out.append(s.substr(i, n));
    i += take;
  }
  return out;
}

bool digits(std::string_view s, std::size_t from, std::size_t count) {
  if (from + count > s.size()) return false;
  for (std::size_t i = from; i < from + count; ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

// "2026-11-27T23:46:44.180123456Z rest": the RFC 3339 timestamp kubelet puts first with
// timestamps=true; its length, or 0 when the line does not start with one.
std::size_t timestamp_length(std::string_view line) {
  if (!(digits(line, 0, 4) && line.size() > 19 && line[4] == '-' && digits(line, 5, 2) &&
        line[7] == '-' && digits(line, 8, 2) && line[10] == 'T' && digits(line, 11, 2) &&
        line[13] == ':' && digits(line, 14, 2) && line[16] == ':' && digits(line, 17, 2)))
    return 0;
  const std::size_t space = line.find(' ', 19);
  if (space == std::string_view::npos || space > 40) return line.size() <= 40 ? line.size() : 0;
  return space;
}

std::string_view trim_left(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  return s;
}

// `File "/workspace/train.py", line 42, in main`
std::optional<Traceback> parse_frame(std::string_view text) {
  text = trim_left(text);
  if (!text.starts_with("File \"")) return std::nullopt;
  text.remove_prefix(6);
  const std::size_t quote = text.find("\", line ");
  if (quote == std::string_view::npos) return std::nullopt;
  Traceback frame;
  frame.file = std::string(text.substr(0, quote));
  text.remove_prefix(quote + 8);
  std::size_t n = 0;
  while (n < text.size() && n < 9 && std::isdigit(static_cast<unsigned char>(text[n])))
    ++n;
  if (n == 0) return std::nullopt;
  frame.line = std::stoi(std::string(text.substr(0, n)));
  text.remove_prefix(n);
  if (text.starts_with(", in ")) frame.function = std::string(text.substr(5));
  return frame;
}

bool library_file(std::string_view file) {
  return file.find("/site-packages/") != std::string_view::npos ||
         file.find("/dist-packages/") != std::string_view::npos ||
         file.find("/lib/python") != std::string_view::npos || file.starts_with("<");
}

// "torch.OutOfMemoryError: CUDA out of memory." -> {"torch.OutOfMemoryError", "CUDA out ..."}
bool parse_exception(std::string_view text, Traceback& out) {
  if (text.empty() || text.front() == ' ' || text.front() == '\t') return false;
  std::size_t n = 0;
  while (n < text.size() &&
         (std::isalnum(static_cast<unsigned char>(text[n])) || text[n] == '_' || text[n] == '.'))
    ++n;
  if (n == 0 || std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  if (n < text.size() && text[n] != ':') return false;
  out.exception = std::string(text.substr(0, n));
  out.message = n < text.size() ? std::string(trim_left(text.substr(n + 1))) : "";
  return true;
}

constexpr std::string_view kTracebackHead = "Traceback (most recent call last):";

}  // namespace

std::vector<LogLine> split_log(std::string_view tail) {
  if (tail.size() > kLogTailBytes) {
    tail.remove_prefix(tail.size() - kLogTailBytes);
    // The first line is cut: it starts mid-way.
    const std::size_t newline = tail.find('\n');
    tail.remove_prefix(newline == std::string_view::npos ? tail.size() : newline + 1);
  }
  std::vector<LogLine> lines;
  while (!tail.empty()) {
    const std::size_t end = tail.find('\n');
    std::string_view raw = tail.substr(0, end);
    tail.remove_prefix(end == std::string_view::npos ? tail.size() : end + 1);
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    LogLine line;
    if (const std::size_t t = timestamp_length(raw)) {
      line.time = printable(raw.substr(0, t), 64);
      raw.remove_prefix(std::min(raw.size(), t + 1));
    }
    line.text = printable(raw, kLineBytes);
    lines.push_back(std::move(line));
  }
  return lines;
}

std::optional<Traceback> last_traceback(const std::vector<LogLine>& lines) {
  std::size_t head = lines.size();
  for (std::size_t i = lines.size(); i-- > 0;) {
    if (lines[i].text.find(kTracebackHead) != std::string::npos) {
      head = i;
      break;
    }
  }
  if (head == lines.size()) return std::nullopt;
  // torchrun and others prefix every line of a rank ("[rank3]: "): what precedes the head.
  const std::string prefix = lines[head].text.substr(0, lines[head].text.find(kTracebackHead));
  std::optional<Traceback> user, innermost;
  Traceback result;
  bool have_exception = false;
  for (std::size_t i = head + 1; i < lines.size() && !have_exception; ++i) {
    std::string_view text = lines[i].text;
    if (!prefix.empty() && text.starts_with(prefix)) text.remove_prefix(prefix.size());
    if (auto frame = parse_frame(text)) {
      innermost = frame;
      if (!library_file(frame->file)) user = frame;
      continue;
    }
    if (innermost) have_exception = parse_exception(text, result);
  }
  if (!innermost) return std::nullopt;
  const Traceback& frame = user ? *user : *innermost;
  result.file = frame.file;
  result.line = frame.line;
  result.function = frame.function;
  return result;
}

std::optional<FailureFinding> match_failure(const FailureCatalogue& catalogue,
                                            const WorkerFailure& worker, std::string_view tail) {
  const std::vector<LogLine> lines = split_log(tail);
  const auto& entries = catalogue.entries();
  for (std::size_t e = 0; e < entries.size(); ++e) {
    const FailureEntry& entry = entries[e];
    FailureFinding finding;
    finding.entry = e;
    std::vector<std::size_t> hits;
    if (!entry.log_patterns.empty()) {
      for (std::size_t i = 0; i < lines.size(); ++i)
        if (catalogue.line_matches(e, lines[i].text)) hits.push_back(i);
    }
    if (!hits.empty()) {
      finding.matched_by = "log";
    } else if (worker.exit_code &&
               std::ranges::find(entry.exit_codes, *worker.exit_code) != entry.exit_codes.end()) {
      finding.matched_by = "exit code " + std::to_string(*worker.exit_code);
    } else if (!worker.reason.empty() &&
               std::ranges::find(entry.reasons, worker.reason) != entry.reasons.end()) {
      finding.matched_by = "reason " + worker.reason;
    } else {
      continue;
    }
    finding.traceback = last_traceback(lines);
    // Key lines: the last lines that matched (or, matched by exit, the log's last words), and
    // the traceback's exception, in log order.
    std::vector<std::size_t> keys;
    if (hits.empty()) {
      for (std::size_t i = lines.size(); i-- > 0 && keys.size() < 3;)
        if (!trim_left(lines[i].text).empty()) keys.push_back(i);
    } else {
      for (std::size_t k = hits.size(); k-- > 0 && keys.size() < 3;)
        keys.push_back(hits[k]);
    }
    if (finding.traceback && !finding.traceback->exception.empty()) {
      for (std::size_t i = lines.size(); i-- > 0;) {
        if (lines[i].text.find(finding.traceback->exception) != std::string::npos) {
          if (std::ranges::find(keys, i) == keys.end()) keys.push_back(i);
          break;
        }
      }
    }
    std::ranges::sort(keys);
    if (keys.size() > kKeyLines) keys.erase(keys.begin(), keys.end() - kKeyLines);
    for (std::size_t i : keys)
      finding.key_lines.push_back({lines[i].time, printable(lines[i].text, kKeyLineBytes)});
    return finding;
  }
  return std::nullopt;
}

}  // namespace respool::policy
