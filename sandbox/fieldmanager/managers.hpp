#pragma once
// metadata.managedFields as kube-apiserver's field manager keeps them: one entry per manager,
// operation (Apply or Update), API version (Update) and subresource; an Update records what a
// write added or changed and takes it from the others; an Apply merges the applied configuration,
// refuses to change what others own unless forced, and removes what the same manager applied
// before and applies no more when nobody else owns it.

#include <string>
#include <vector>

#include "sandbox/fieldmanager/field_set.hpp"
#include "sandbox/fieldmanager/schema.hpp"

namespace respool::sandbox::fields {

struct ManagedEntry {
  std::string manager;
  std::string operation;  // "Apply" or "Update"
  std::string api_version;
  std::string time;  // RFC 3339 seconds
  std::string subresource;
  FieldSet fields;

  // The manager identifier: Apply entries are one per manager whatever the version.
  bool same_manager(const ManagedEntry& other) const;
  // printManager: "kubectl" or "kubectl-edit" using v1 (with subresource "status").
  std::string describe() const;
};

std::vector<ManagedEntry> decode_managed_fields(const Json& managed_fields);
// In the API server's order: Apply before Update, then by time, manager, version, subresource.
Json encode_managed_fields(std::vector<ManagedEntry> entries);

// Who writes: manager, operation, version and subresource of the entry to update; `time` now.
struct Writer {
  ManagedEntry entry;  // fields unused
  FieldSet ignored;    // reset by the endpoint (status on the main resource, spec on /status)
};

// An ordinary write (create, update, patch) of `updated` over `live` (null: a create).
void record_update(const Schema& schema, std::vector<ManagedEntry>& managers, const Json* live,
                   const Json& updated, const Writer& writer);

struct Conflict {
  std::string manager;  // describe() of the owner
  Path path;
};

struct ApplyOutcome {
  Json object;  // the live object with the configuration merged in and stale fields removed
  std::vector<Conflict> conflicts;  // non-empty: refused (not forced)
};
// An apply of `config` over `live` (null: the object does not exist yet).
ApplyOutcome apply(const Schema& schema, std::vector<ManagedEntry>& managers, const Json* live,
                   const Json& config, const Writer& writer, bool force);

// "Apply failed with 1 conflict: conflict with \"a\": .spec.x" / "... 2 conflicts: ...".
std::string conflict_message(const std::vector<Conflict>& conflicts);

}  // namespace respool::sandbox::fields
