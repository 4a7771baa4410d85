// Printers of discovery.k8s.io kinds (EndpointSlice).

#include "sandbox/apiserver/printers/printers.hpp"

namespace respool::sandbox::printers {
namespace {

std::string more_list(const std::vector<std::string>& list, std::size_t count, std::size_t max) {
  std::string out = join(list, ",");
  if (count > max) return out + std::string(" + ") + std::to_string(count - max) + " more...";
  return out.empty() ? "<unset>" : out;
}

OJson endpoint_slice_row(const Json& o, runtime::TimePoint now) {
  std::vector<std::string> ports, addrs;
  std::size_t nports = 0, naddrs = 0, max = 3;
  const Json& p = at(o, {"ports"});
  if (p.is_array()) {
    for (const Json& port : p) {
      if (ports.size() < max) {
        const Json& n = at(port, {"port"});
        ports.push_back(n.is_number_integer() ? std::to_string(n.get<long long>())
                                              : text(at(port, {"name"}), "*"));
      }
      ++nports;
    }
  }
  const Json& e = at(o, {"endpoints"});
  if (e.is_array()) {
    for (const Json& ep : e) {
      const Json& a = at(ep, {"addresses"});
      if (!a.is_array()) continue;
      for (const Json& addr : a) {
        if (addrs.size() < max) addrs.push_back(text(addr));
        ++naddrs;
      }
    }
  }
  return {name_of(o), text(at(o, {"addressType"})), more_list(ports, nports, max),
          more_list(addrs, naddrs, max), age(o, now)};
}

}  // namespace

const PrinterDef endpoint_slice{
    {{"AddressType", "string",
      "addressType specifies the type of address carried by this "
      "EndpointSlice."},
     {"Ports", "string",
      "ports specifies the list of network ports exposed by each endpoint in "
      "this slice."},
     {"Endpoints", "string", "endpoints is a list of unique endpoints in this slice."},
     {"Age", "string", kAgeDesc}},
    endpoint_slice_row};

}  // namespace respool::sandbox::printers
