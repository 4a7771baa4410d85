#pragma once
// The vocabulary every policy function shares: job types, pool types, accelerator types, and
// time points (always parameters: no policy function reads a clock).

#include <array>
#include <chrono>
#include <optional>
#include <string_view>

namespace respool::policy {

using TimePoint = std::chrono::system_clock::time_point;

enum class JobType { Training, Inference, DevEnviron };
inline constexpr std::array kJobTypes{JobType::Training, JobType::Inference, JobType::DevEnviron};
// "Training", as written in spec.jobTypes and in the catalog's plugins.
std::string_view to_string(JobType type);
// "training", as used in label keys (respool.io/job-type.training) and object names.
std::string_view label_name(JobType type);
std::optional<JobType> parse_job_type(std::string_view text);

enum class PoolType { Physical, Logical };
std::string_view to_string(PoolType type);
std::optional<PoolType> parse_pool_type(std::string_view text);

enum class AcceleratorType { GPU, NPU, None };
std::string_view to_string(AcceleratorType type);
std::optional<AcceleratorType> parse_accelerator_type(std::string_view text);

}  // namespace respool::policy
