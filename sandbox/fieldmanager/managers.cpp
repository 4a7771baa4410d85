// The field manager: managedFields entries, updates, applies and their conflicts.

#include "sandbox/fieldmanager/managers.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "sandbox/fieldmanager/typed.hpp"

namespace respool::sandbox::fields {
namespace {

// What nobody owns (stripMeta): the type, the object's identity and server-set metadata.
FieldSet strip(FieldSet set) {
  static const std::vector<Path> stripped = {
      {"f:apiVersion"},
      {"f:kind"},
      {"f:metadata"},
      {"f:metadata", "f:name"},
      {"f:metadata", "f:namespace"},
      {"f:metadata", "f:creationTimestamp"},
      {"f:metadata", "f:selfLink"},
      {"f:metadata", "f:uid"},
      {"f:metadata", "f:clusterName"},
      {"f:metadata", "f:generation"},
      {"f:metadata", "f:managedFields"},
      {"f:metadata", "f:resourceVersion"},
  };
  FieldSet drop;
  for (const Path& p : stripped)
    drop.insert(p);
  return set.minus(drop);
}

// Records the write in the other managers' sets: what it changed is taken from them (or is a
// conflict), what it removed goes. Returns the conflicts when not forced (nothing changed then).
std::vector<Conflict> take_from_others(const Schema& schema, std::vector<ManagedEntry>& managers,
                                       const Json* live, const Json& updated, const Writer& writer,
                                       bool force, Comparison& cmp) {
  cmp = compare(schema, live, &updated);
  cmp.added = strip(cmp.added).minus_recursive(writer.ignored);
  cmp.modified = strip(cmp.modified).minus_recursive(writer.ignored);
  cmp.removed = strip(cmp.removed).minus_recursive(writer.ignored);
  FieldSet changed = cmp.added.united(cmp.modified);
  std::vector<Conflict> conflicts;
  std::vector<FieldSet> lost(managers.size());
  for (std::size_t i = 0; i < managers.size(); ++i) {
    if (managers[i].same_manager(writer.entry)) continue;
    lost[i] = managers[i].fields.intersected(changed);
    for (const Path& p : lost[i].paths())
      conflicts.push_back({managers[i].describe(), p});
  }
  if (!force && !conflicts.empty()) return conflicts;
  for (std::size_t i = 0; i < managers.size(); ++i) {
    if (managers[i].same_manager(writer.entry)) continue;
    managers[i].fields = managers[i].fields.minus(lost[i]).minus(cmp.removed);
  }
  std::erase_if(managers, [&](const ManagedEntry& m) {
    return m.fields.empty() && !m.same_manager(writer.entry);
  });
  return {};
}

// Puts the writer's entry with `fields` (removing it when empty); the time moves only when the
// fields do, so a write that changes nothing stays a no-op.
void set_entry(std::vector<ManagedEntry>& managers, const Writer& writer, FieldSet fields) {
  auto it = std::find_if(managers.begin(), managers.end(),
                         [&](const ManagedEntry& m) { return m.same_manager(writer.entry); });
  if (fields.empty()) {
    if (it != managers.end()) managers.erase(it);
    return;
  }
  ManagedEntry entry = writer.entry;
  if (it != managers.end() && it->fields == fields && it->api_version == entry.api_version) {
    entry.time = it->time;
  }
  entry.fields = std::move(fields);
  if (it != managers.end()) {
    *it = std::move(entry);
  } else {
    managers.push_back(std::move(entry));
  }
}

const ManagedEntry* find_entry(const std::vector<ManagedEntry>& managers, const Writer& writer) {
  for (const ManagedEntry& m : managers)
    if (m.same_manager(writer.entry)) return &m;
  return nullptr;
}

}  // namespace

bool ManagedEntry::same_manager(const ManagedEntry& other) const {
  if (manager != other.manager || operation != other.operation ||
      subresource != other.subresource) {
    return false;
  }
  return operation == "Apply" || api_version == other.api_version;
}

std::string ManagedEntry::describe() const {
  std::string out = Json(manager).dump();
  if (!subresource.empty()) out += " with subresource " + Json(subresource).dump();
  if (operation == "Update") out += " using " + api_version;
  return out;
}

std::vector<ManagedEntry> decode_managed_fields(const Json& managed_fields) {
  std::vector<ManagedEntry> out;
  if (!managed_fields.is_array()) return out;
  for (const Json& e : managed_fields) {
    if (!e.is_object()) continue;
    ManagedEntry m;
    m.manager = e.value("manager", std::string());
    m.operation = e.value("operation", std::string());
    m.api_version = e.value("apiVersion", std::string());
    m.time = e.value("time", std::string());
    m.subresource = e.value("subresource", std::string());
    if (auto f = e.find("fieldsV1"); f != e.end()) m.fields = FieldSet::from_fields_v1(*f);
    out.push_back(std::move(m));
  }
  return out;
}

Json encode_managed_fields(std::vector<ManagedEntry> entries) {
  std::stable_sort(entries.begin(), entries.end(), [](const auto& p, const auto& q) {
    return std::tie(p.operation, p.time, p.manager, p.api_version, p.subresource) <
           std::tie(q.operation, q.time, q.manager, q.api_version, q.subresource);
  });
  Json out = Json::array();
  for (const ManagedEntry& m : entries) {
    Json e = {{"manager", m.manager},        {"operation", m.operation},
              {"apiVersion", m.api_version}, {"time", m.time},
              {"fieldsType", "FieldsV1"},    {"fieldsV1", m.fields.to_fields_v1()}};
    if (!m.subresource.empty()) e["subresource"] = m.subresource;
    out.push_back(std::move(e));
  }
  return out;
}

void record_update(const Schema& schema, std::vector<ManagedEntry>& managers, const Json* live,
                   const Json& updated, const Writer& writer) {
  Comparison cmp;
  take_from_others(schema, managers, live, updated, writer, true, cmp);
  const ManagedEntry* mine = find_entry(managers, writer);
  FieldSet fields = mine ? mine->fields : FieldSet{};
  fields = fields.minus(cmp.removed).united(cmp.modified).united(cmp.added);
  set_entry(managers, writer, strip(fields).minus_recursive(writer.ignored));
}

ApplyOutcome apply(const Schema& schema, std::vector<ManagedEntry>& managers, const Json* live,
                   const Json& config, const Writer& writer, bool force) {
  static const Json nothing = Json::object();
  const Json& base = live ? *live : nothing;
  ApplyOutcome out;
  out.object = merge(schema, base, config);
  FieldSet applied = strip(to_field_set(schema, config)).minus_recursive(writer.ignored);
  const ManagedEntry* before = find_entry(managers, writer);
  FieldSet last = before ? before->fields : FieldSet{};
  Comparison cmp;
  out.conflicts = take_from_others(schema, managers, live, out.object, writer, force, cmp);
  if (!out.conflicts.empty()) return out;
  set_entry(managers, writer, applied);
  FieldSet stale = last.minus(applied);
  if (!stale.empty()) {
    FieldSet owned;
    for (const ManagedEntry& m : managers)
      owned = owned.united(m.fields);
    out.object = remove_fields(schema, out.object, stale, owned);
    // What the removal took away is no longer anyone's.
    take_from_others(schema, managers, live, out.object, writer, true, cmp);
  }
  return out;
}

std::string conflict_message(const std::vector<Conflict>& conflicts) {
  if (conflicts.size() == 1) {
    return "Apply failed with 1 conflict: conflict with " + conflicts[0].manager + ": " +
           path_string(conflicts[0].path);
  }
  std::map<std::string, std::vector<std::string>> by_manager;
  for (const Conflict& c : conflicts)
    by_manager[c.manager].push_back(path_string(c.path));
  std::string out = "Apply failed with " + std::to_string(conflicts.size()) + " conflicts: ";
  bool first = true;
  for (const auto& [manager, paths] : by_manager) {
    if (!first) out += "\n";
    first = false;
    out += "conflicts with " + manager + ":";
    for (const std::string& p : paths)
      out += "\n- " + p;
  }
  return out;
}

}  // namespace respool::sandbox::fields
