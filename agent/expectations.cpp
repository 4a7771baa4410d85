#include "agent/expectations.hpp"

namespace respool::agent {

namespace {

Expectations from_flavor(const policy::Flavor* flavor) {
  Expectations e;
  if (!flavor) return e;
  e.known = true;
  switch (flavor->accelerator.type) {
    case policy::AcceleratorType::GPU:
      e.accelerator = Expectations::Accelerator::Gpu;
      break;
    case policy::AcceleratorType::NPU:
      e.accelerator = Expectations::Accelerator::Npu;
      break;
    default:
      e.accelerator = Expectations::Accelerator::None;
      break;
  }
  e.accelerator_count = flavor->accelerator.count;
  e.infiniband = flavor->infiniband;
  return e;
}

}  // namespace

Expectations expectations_for(const policy::Catalog& catalog,
                              const std::map<std::string, std::string>& node_labels) {
  auto label = node_labels.find(catalog.flavor_label);
  if (label == node_labels.end()) return {};
  return from_flavor(catalog.flavor_by_label(label->second));
}

Expectations expectations_for_flavor(const policy::Catalog& catalog, const std::string& flavor) {
  return from_flavor(catalog.flavor(flavor));
}

}  // namespace respool::agent
