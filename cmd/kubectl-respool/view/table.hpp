#pragma once
// Columns as kubectl's printers lay them out (text/tabwriter: cells padded to the widest, three
// spaces between columns, the last column unpadded; upper-case headers; "<none>" for an empty
// cell), and kubectl's ages (k8s.io/apimachinery duration.HumanDuration).

#include <chrono>
#include <string>
#include <vector>

namespace respool::kubectl {

struct Table {
  std::vector<std::string> headers;            // upper case already
  std::vector<std::vector<std::string>> rows;  // a row shorter than headers is padded with ""
};

// Empty cells print as "<none>". Without rows: "" (the caller says "No resources found").
std::string render(const Table& table);

// "0s", "119s", "5m3s", "10m", "3h", "2d4h", "3y"; "<invalid>" far in the future (clock skew).
std::string human_duration(std::chrono::seconds d);

// Comma-joined, "" for none (which render shows as "<none>").
std::string join(const std::vector<std::string>& items, const std::string& sep = ",");

}  // namespace respool::kubectl
