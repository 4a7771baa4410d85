#include "reconcilers/policy/risk.hpp"

#include "reconcilers/policy/enum_words.hpp"

namespace respool::policy {
namespace {

constexpr EnumWords<Risk, 6> kRiskWords{{
    {Risk::Unprotected, "Unprotected"},
    {Risk::NoRisk, "NoRisk"},
    {Risk::Monitoring, "Monitoring"},
    {Risk::Low, "Low"},
    {Risk::Medium, "Medium"},
    {Risk::High, "High"},
}};

}  // namespace

Risk more_severe(Risk a, Risk b) {
  return static_cast<int>(a) >= static_cast<int>(b) ? a : b;
}

std::string_view to_string(Risk risk) {
  return word_of(kRiskWords, risk);
}

std::optional<Risk> parse_risk(std::string_view text) {
  return value_of(kRiskWords, text);
}

bool is_anomaly_level(Risk risk) {
  return risk == Risk::Low || risk == Risk::Medium || risk == Risk::High;
}

Risk grade_risk(const RiskFacts& f) {
  // O1: without respool's fault tolerance nothing is monitored.
  if (!f.protected_job) return Risk::Unprotected;
  Risk level = Risk::NoRisk;
  // O2: fault monitoring.
  if (f.fault_restarts > 0) level = more_severe(level, Risk::Medium);
  if (f.retries_exhausted || f.node_fault_recurred) level = more_severe(level, Risk::High);
  // O3: code-error detection, as the matched entry grades it.
  if (f.code_error && is_anomaly_level(*f.code_error)) level = more_severe(level, *f.code_error);
  // O4: performance monitoring.
  if (f.straggler) level = more_severe(level, Risk::Medium);
  // O5: a level once shown is never lowered while the job exists: its reports stay.
  if (f.recorded && is_anomaly_level(*f.recorded)) level = more_severe(level, *f.recorded);
  // O6: Monitoring only while nothing is found and a check runs.
  if (level == Risk::NoRisk && f.check_running) return Risk::Monitoring;
  return level;
}

}  // namespace respool::policy
