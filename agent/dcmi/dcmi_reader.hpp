#pragma once
// Reads a node's Ascend NPUs through DCMI: libdcmi.so loaded at run time, initialised once,
// every device read each period on a BoundedWorker (a hung call costs at most the timeout).

#include <chrono>
#include <memory>
#include <string>

#include "agent/bounded_worker.hpp"
#include "agent/checks/npu_readings.hpp"

namespace respool::agent {

class DcmiReader {
 public:
  DcmiReader(std::string library_path, std::chrono::milliseconds timeout);
  NpuReadings read();

  struct Session;

 private:
  std::shared_ptr<Session> session_;
  std::chrono::milliseconds timeout_;
  BoundedWorker worker_;
};

}  // namespace respool::agent
