#pragma once
// meta.k8s.io Tables (what kubectl get asks for): column definitions and cells per kind as
// kube-apiserver's printers make them, CRD additionalPrinterColumns, PartialObjectMetadata.

#include <string>
#include <vector>

#include "operator/runtime/clock.hpp"
#include "sandbox/apiserver/registry/registry.hpp"

namespace respool::sandbox {

enum class IncludeObject { None, Metadata, Object };

struct TableRequest {
  std::string version = "v1";  // meta.k8s.io version asked for
  IncludeObject include = IncludeObject::Metadata;
  bool columns = true;  // false: "columnDefinitions": null (later events of a watch)
};

// k8s.io/apimachinery's duration.HumanDuration ("0s", "5m3s", "3h", "2d4h", "3y").
std::string human_duration(std::chrono::seconds d);

// The Table of `objects` (already in the type's representation). `list_meta` holds
// resourceVersion/continue/remainingItemCount.
OJson make_table(const ResourceType& type, const std::vector<const Json*>& objects,
                 const OJson& list_meta, const TableRequest& request, runtime::TimePoint now);

// {"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/VERSION","metadata":...}
OJson partial_metadata(const Json& obj, const std::string& version);

}  // namespace respool::sandbox
