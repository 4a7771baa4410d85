#include "reconcilers/policy/types.hpp"

namespace respool::policy {

std::string_view to_string(JobType type) {
  switch (type) {
    case JobType::Training:
      return "Training";
    case JobType::Inference:
      return "Inference";
    case JobType::DevEnviron:
      return "DevEnviron";
  }
  return "";
}

std::string_view label_name(JobType type) {
  switch (type) {
    case JobType::Training:
      return "training";
    case JobType::Inference:
      return "inference";
    case JobType::DevEnviron:
      return "devenviron";
  }
  return "";
}

std::optional<JobType> parse_job_type(std::string_view text) {
  for (JobType type : kJobTypes) {
    if (to_string(type) == text) return type;
  }
  return std::nullopt;
}

std::string_view to_string(PoolType type) {
  return type == PoolType::Logical ? "Logical" : "Physical";
}

std::optional<PoolType> parse_pool_type(std::string_view text) {
  if (text == "Physical") return PoolType::Physical;
  if (text == "Logical") return PoolType::Logical;
  return std::nullopt;
}

std::string_view to_string(AcceleratorType type) {
  switch (type) {
    case AcceleratorType::GPU:
      return "GPU";
    case AcceleratorType::NPU:
      return "NPU";
    case AcceleratorType::None:
      return "None";
  }
  return "";
}

std::optional<AcceleratorType> parse_accelerator_type(std::string_view text) {
  if (text == "GPU") return AcceleratorType::GPU;
  if (text == "NPU") return AcceleratorType::NPU;
  if (text == "None") return AcceleratorType::None;
  return std::nullopt;
}

}  // namespace respool::policy
