#pragma once
// The thresholds of the node checks (docs/RULES.md H-rules; from table 2-3 of 001 and the
// isolation-code table of RULES.md), and what the node's flavor promises.

#include <chrono>
#include <cstdint>

namespace respool::agent {

// H2: retired pages (single plus double bit) over this many are A050104.
inline constexpr unsigned int kMaxRetiredPages = 64;
// H1: Ampere and later, uncorrectable SRAM errors (aggregate) over this many are A050101.
inline constexpr unsigned long long kMaxSramUncorrectable = 4;
// H8: HBM double-bit isolated pages at or over this many are A050951.
inline constexpr unsigned int kMaxHbmDoubleBitIsolatedPages = 64;
// H9: hccn link-downs in a rolling window: more than this many are A050149.
inline constexpr int kMaxLinkDownsPerWindow = 5;
inline constexpr std::chrono::hours kLinkDownWindow{24};

// What the node's flavor (catalog) promises; unknown when the agent has no catalog or the node
// no flavor label.
struct Expectations {
  bool known = false;
  enum class Accelerator { None, Gpu, Npu } accelerator = Accelerator::None;
  int accelerator_count = 0;
  bool infiniband = false;
};

struct ClockLimits {
  // H11: an estimated error over this is A050146 (as is a clock the kernel calls unsynchronised).
  std::chrono::microseconds max_estimated_error{500'000};
};

}  // namespace respool::agent
