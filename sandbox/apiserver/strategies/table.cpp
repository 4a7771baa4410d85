// The strategies table: what each kind adds to the engine's generic create and update.

#include "sandbox/apiserver/registry/crd.hpp"
#include "sandbox/apiserver/strategies/kinds.hpp"

namespace respool::sandbox::kinds {

const Strategy& strategy(const ResourceType& type) {
  static const Strategy generic;
  static const std::map<KindId, Strategy> table = {
      {KindId::CustomResourceDefinition,
       {crd_prepare_create, crd_prepare_update, crd_validate, false}},
      {KindId::Service, {nullptr, nullptr, nullptr, true}},
  };
  auto it = table.find(type.id);
  return it == table.end() ? generic : it->second;
}

}  // namespace respool::sandbox::kinds
