#include "reconcilers/policy/failure_catalogue.hpp"

#include <array>
#include <set>
#include <utility>

#include <re2/re2.h>

#include "reconcilers/policy/enum_words.hpp"

namespace respool::policy {
namespace {

using nlohmann::json;
using Error = std::unexpected<std::string>;

constexpr EnumWords<FailureCategory, 5> kCategoryWords{{
    {FailureCategory::Code, "Code"},
    {FailureCategory::Framework, "Framework"},
    {FailureCategory::Communication, "Communication"},
    {FailureCategory::Hardware, "Hardware"},
    {FailureCategory::Environment, "Environment"},
}};

// A pattern's compiled program may use this much memory; RE2 refuses bigger ones (a pattern
// such as (a{1000}){1000}), which then fails the catalog instead of costing every match.
constexpr int64_t kPatternMemory = 1 << 20;

const std::set<std::string> kEntryFields{"name",   "symptom", "category", "component",
                                         "module", "risk",    "solution", "match"};

bool is_entry_name(std::string_view s) {
  if (s.empty() || s.size() > 63 || s.front() == '-' || s.back() == '-') return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  return true;
}

std::optional<std::string> read_text(const json& entry, const char* key, std::string& out,
                                     const std::string& field, bool required) {
  auto it = entry.find(key);
  if (it == entry.end()) {
    if (required) return field + "." + key + ": required";
    return std::nullopt;
  }
  if (!it->is_string() || it->get<std::string>().empty())
    return field + "." + key + ": must be a non-empty string";
  out = it->get<std::string>();
  return std::nullopt;
}

std::expected<std::vector<std::unique_ptr<re2::RE2>>, std::string> compile(
    const json& log, const std::string& field, std::vector<std::string>& sources) {
  std::vector<std::unique_ptr<re2::RE2>> out;
  if (!log.is_array()) return Error(field + ": must be a list of RE2 patterns");
  re2::RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(kPatternMemory);
  for (std::size_t i = 0; i < log.size(); ++i) {
    const std::string at = field + "[" + std::to_string(i) + "]";
    if (!log[i].is_string() || log[i].get<std::string>().empty())
      return Error(at + ": must be a non-empty RE2 pattern");
    auto re = std::make_unique<re2::RE2>(log[i].get<std::string>(), options);
    if (!re->ok()) return Error(at + ": not a valid RE2 pattern: " + re->error());
    sources.push_back(log[i].get<std::string>());
    out.push_back(std::move(re));
  }
  return out;
}

std::optional<std::string> read_match(const json& match, const std::string& field,
                                      FailureEntry& entry,
                                      std::vector<std::unique_ptr<re2::RE2>>& compiled) {
  if (!match.is_object()) return field + ": must be an object with log, exitCodes or reasons";
  for (const auto& [key, _] : match.items())
    if (key != "log" && key != "exitCodes" && key != "reasons")
      return field + "." + key + ": unknown field (log, exitCodes, reasons)";
  if (auto log = match.find("log"); log != match.end()) {
    auto patterns = compile(*log, field + ".log", entry.log_patterns);
    if (!patterns) return patterns.error();
    compiled = std::move(*patterns);
  }
  if (auto codes = match.find("exitCodes"); codes != match.end()) {
    if (!codes->is_array()) return field + ".exitCodes: must be a list of exit codes";
    for (std::size_t i = 0; i < codes->size(); ++i) {
      const auto& c = (*codes)[i];
      if (!c.is_number_integer() || c.get<int64_t>() < 1 || c.get<int64_t>() > 255)
        return field + ".exitCodes[" + std::to_string(i) + "]: must be an exit code from 1 to 255";
      entry.exit_codes.push_back(c.get<int>());
    }
  }
  if (auto reasons = match.find("reasons"); reasons != match.end()) {
    if (!reasons->is_array()) return field + ".reasons: must be a list of container reasons";
    for (std::size_t i = 0; i < reasons->size(); ++i) {
      if (!(*reasons)[i].is_string() || (*reasons)[i].get<std::string>().empty())
        return field + ".reasons[" + std::to_string(i) + "]: must be a non-empty string";
      entry.reasons.push_back((*reasons)[i].get<std::string>());
    }
  }
  if (entry.log_patterns.empty() && entry.exit_codes.empty() && entry.reasons.empty())
    return field + ": must give at least one of log, exitCodes, reasons";
  return std::nullopt;
}

}  // namespace

std::string_view to_string(FailureCategory category) {
  return word_of(kCategoryWords, category);
}

std::optional<FailureCategory> parse_failure_category(std::string_view text) {
  return value_of(kCategoryWords, text);
}

FailureCatalogue::FailureCatalogue() = default;
FailureCatalogue::FailureCatalogue(FailureCatalogue&&) noexcept = default;
FailureCatalogue& FailureCatalogue::operator=(FailureCatalogue&&) noexcept = default;
FailureCatalogue::~FailureCatalogue() = default;

std::expected<FailureCatalogue, std::string> FailureCatalogue::parse(const json& failures) {
  FailureCatalogue out;
  if (failures.is_null()) return out;
  if (!failures.is_array()) return Error("failures: must be a list of entries");
  std::set<std::string> names;
  for (std::size_t i = 0; i < failures.size(); ++i) {
    const std::string field = "failures[" + std::to_string(i) + "]";
    const json& e = failures[i];
    if (!e.is_object()) return Error(field + ": must be an object");
    for (const auto& [key, _] : e.items())
      if (!kEntryFields.contains(key))
        return Error(field + "." + key +
                     ": unknown field (name, symptom, category, component, module, risk, "
                     "solution, match)");
    FailureEntry entry;
    std::string word;
    for (auto [key, target, required] :
         {std::tuple{"name", &entry.name, true}, std::tuple{"symptom", &entry.symptom, true},
          std::tuple{"component", &entry.component, true},
          std::tuple{"module", &entry.module, true},
          std::tuple{"solution", &entry.solution, true}}) {
      if (auto problem = read_text(e, key, *target, field, required)) return Error(*problem);
    }
    if (!is_entry_name(entry.name))
      return Error(field + ".name: must be lower-case letters, digits and '-' (at most 63)");
    if (!names.insert(entry.name).second)
      return Error(field + ".name: \"" + entry.name + "\" appears twice");
    if (auto problem = read_text(e, "category", word, field, true)) return Error(*problem);
    auto category = parse_failure_category(word);
    if (!category)
      return Error(field +
                   ".category: must be Code, Framework, Communication, Hardware or Environment");
    entry.category = *category;
    if (auto problem = read_text(e, "risk", word, field, true)) return Error(*problem);
    auto risk = parse_risk(word);
    if (!risk || !is_anomaly_level(*risk))
      return Error(field + ".risk: must be Low, Medium or High (O3)");
    entry.risk = *risk;
    auto match = e.find("match");
    if (match == e.end()) return Error(field + ".match: required");
    std::vector<std::unique_ptr<re2::RE2>> compiled;
    if (auto problem = read_match(*match, field + ".match", entry, compiled))
      return Error(*problem);
    out.entries_.push_back(std::move(entry));
    out.patterns_.push_back(std::move(compiled));
  }
  return out;
}

bool FailureCatalogue::line_matches(std::size_t index, std::string_view line) const {
  for (const auto& re : patterns_.at(index))
    if (re2::RE2::PartialMatch(line, *re)) return true;
  return false;
}

}  // namespace respool::policy
