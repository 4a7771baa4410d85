#include "sandbox/simulator/failure_samples.hpp"

namespace respool::sandbox::sim {
namespace {

const std::vector<FailureSample>& samples() {
  static const std::vector<FailureSample> all = {
      {"cuda-oom",
       1,
       "Error",
       {"Traceback (most recent call last):",
        "  File \"/workspace/train.py\", line 88, in <module>", "    loss.backward()",
        "  File \"/usr/local/lib/python3.10/dist-packages/torch/_tensor.py\", line 522, in "
        "backward",
        "    torch.autograd.backward(",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
        "total capacity of 79.15 GiB of which 1.23 GiB is free. Process 41234 has 77.90 GiB "
        "memory in use."}},
      {"nccl-timeout",
       6,
       "Error",
       {"[rank3]:[E ProcessGroupNCCL.cpp:563] [Rank 3] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=10452, OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, "
        "Timeout(ms)=600000) ran for 600096 milliseconds before timing out.",
        "[rank3]:[E ProcessGroupNCCL.cpp:577] [Rank 3] To avoid data inconsistency, we are "
        "taking the entire process down."}},
      {"traceback",
       1,
       "Error",
       {"Traceback (most recent call last):",
        "  File \"/workspace/train.py\", line 12, in <module>",
        "    from transformers import AutoModelForCausalLM",
        "ModuleNotFoundError: No module named 'transformers'"}},
      {"segfault", 139, "Error", {"Fatal Python error: Segmentation fault"}},
      {"host-oom", 137, "OOMKilled", {}},
  };
  return all;
}

}  // namespace

const FailureSample* find_failure_sample(std::string_view name) {
  for (const FailureSample& s : samples())
    if (s.name == name) return &s;
  return nullptr;
}

}  // namespace respool::sandbox::sim
