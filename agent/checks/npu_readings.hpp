#pragma once
// One period's DCMI readings of a node (dcmi_reader.cpp), and the hccn link-down history that
// outlives the agent (link_down_window.hpp).

#include <string>
#include <vector>

#include "agent/dcmi/dcmi_api.hpp"

namespace respool::agent {

template <class T>
struct DcmiReading {
  int rc = dcmi::kNotRead;
  T value{};
  bool ok() const { return rc == dcmi::kOk; }
};

struct NpuDeviceReading {
  int card = 0;
  int device = 0;
  DcmiReading<unsigned int> health;
  DcmiReading<int> network;  // enum dcmi_rdfx_detect_result
  DcmiReading<dcmi::EccInfo> hbm_ecc;
  DcmiReading<std::vector<unsigned int>> error_codes;
  // Usage, for the metrics only (percent): AI Core, and HBM in use.
  DcmiReading<unsigned int> ai_core_util;
  DcmiReading<unsigned int> hbm_util;
  // HBM in MB, and each process on the device with its memory: the usage metrics' too.
  DcmiReading<dcmi::HbmInfo> hbm;
  DcmiReading<std::vector<dcmi::ProcMemInfo>> processes;
};

struct NpuReadings {
  enum class Library { Loaded, Missing, InitFailed, BadLibrary, TimedOut };
  Library library = Library::Missing;
  std::string detail;
  int init_rc = dcmi::kNotRead;
  DcmiReading<unsigned int> driver_health;
  DcmiReading<std::vector<int>> cards;
  std::vector<NpuDeviceReading> devices;
  std::vector<std::string> missing_symbols;
};

}  // namespace respool::agent
