#include "operator/kube/decode.hpp"

#include <algorithm>

#include <simdjson.h>

namespace respool::kube {

namespace sj = simdjson::ondemand;

namespace {

// Each thread keeps its parser: allocating one per page would cost more than the parse.
sj::parser& thread_parser() {
  thread_local sj::parser parser;
  return parser;
}

std::string_view string_or_empty(sj::value v) {
  if (v.is_null()) return {};
  return v.get_string();
}

bool keep_annotation(std::string_view key, const std::vector<std::string>& keep) {
  for (const auto& k : keep) {
    if (!k.empty() && k.back() == '/' ? key.starts_with(k) : key == k) return true;
  }
  return false;
}

void decode_string_map(sj::value v, StringMap& out, const std::vector<std::string>* filter) {
  if (v.is_null()) return;
  StringMap::Items items;
  for (auto field : v.get_object()) {
    std::string_view key = field.unescaped_key();
    if (filter && !keep_annotation(key, *filter)) continue;
    items.emplace_back(Atom(key), Atom(string_or_empty(field.value())));
  }
  out = StringMap(std::move(items));
}

void decode_owner_references(sj::value v, OwnerReferences& out) {
  if (v.is_null()) return;
  OwnerReferences::Items refs;
  for (auto item : v.get_array()) {
    OwnerReference ref;
    for (auto field : item.get_object()) {
      std::string_view key = field.unescaped_key();
      if (key == "apiVersion")
        ref.api_version = Atom(string_or_empty(field.value()));
      else if (key == "kind")
        ref.kind = Atom(string_or_empty(field.value()));
      else if (key == "name")
        ref.name = Atom(string_or_empty(field.value()));
      else if (key == "uid")
        ref.uid = Atom(string_or_empty(field.value()));
      else if (key == "controller")
        ref.controller = !field.value().is_null() && field.value().get_bool();
    }
    refs.push_back(std::move(ref));
  }
  out = OwnerReferences(std::move(refs));
}

std::optional<TimePoint> time_or_none(sj::value v) {
  if (v.is_null()) return std::nullopt;
  return apimachinery::parse_time(v.get_string());
}

// `annotations`: nullptr keeps every annotation, else only those listed (an empty list: none).
void decode_meta(sj::value v, ObjectMeta& m, const std::vector<std::string>* annotations) {
  for (auto field : v.get_object()) {
    std::string_view key = field.unescaped_key();
    if (key == "name")
      m.name = string_or_empty(field.value());
    else if (key == "namespace")
      m.namespace_ = Atom(string_or_empty(field.value()));
    else if (key == "uid")
      m.uid = string_or_empty(field.value());
    else if (key == "resourceVersion")
      m.resource_version = string_or_empty(field.value());
    else if (key == "generation")
      m.generation = field.value().get_int64();
    else if (key == "labels")
      decode_string_map(field.value(), m.labels, nullptr);
    else if (key == "annotations") {
      if (annotations == nullptr || !annotations->empty()) {
        decode_string_map(field.value(), m.annotations, annotations);
      }
    } else if (key == "creationTimestamp") {
      m.creation_timestamp = time_or_none(field.value()).value_or(TimePoint{});
    } else if (key == "deletionTimestamp") {
      m.deletion_timestamp = time_or_none(field.value());
    } else if (key == "finalizers") {
      sj::value list = field.value();
      if (!list.is_null()) {
        for (auto f : list.get_array())
          m.finalizers.emplace_back(std::string_view(f.get_string()));
      }
    } else if (key == "ownerReferences") {
      decode_owner_references(field.value(), m.owner_references);
    }
  }
}

void decode_resource_list(sj::value v, ResourceList::Items& out) {
  if (v.is_null()) return;
  for (auto field : v.get_object()) {
    std::string_view name = field.unescaped_key();
    sj::value q = field.value();
    // Quantities are strings; a number is accepted too, as the API server does on input.
    std::string_view text;
    if (q.type() == sj::json_type::string)
      text = q.get_string();
    else
      text = q.raw_json_token();
    if (auto parsed = apimachinery::Quantity::parse(text)) ResourceList::set_in(out, name, *parsed);
  }
}

ResourceList resource_list(sj::value v) {
  ResourceList::Items items;
  decode_resource_list(v, items);
  return ResourceList(std::move(items));
}

bool listed(std::string_view value, const std::vector<std::string>& list) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// A node's Ready condition, and the conditions of the types `keep` names.
void decode_node_conditions(sj::value conditions, Node& node,
                            const std::vector<std::string>& keep) {
  if (conditions.is_null()) return;
  for (auto c : conditions.get_array()) {
    NodeCondition kept;
    std::string_view type, status;
    for (auto field : c.get_object()) {
      std::string_view key = field.unescaped_key();
      if (key == "type")
        type = field.value().get_string();
      else if (key == "status")
        status = field.value().get_string();
      else if (keep.empty())
        continue;
      else if (key == "reason")
        kept.reason = Atom(string_or_empty(field.value()));
      else if (key == "message")
        kept.message = string_or_empty(field.value());
      else if (key == "lastHeartbeatTime")
        kept.heartbeat = time_or_none(field.value());
    }
    if (type == "Ready") {
      node.ready = status == "True"    ? ConditionStatus::True
                   : status == "False" ? ConditionStatus::False
                                       : ConditionStatus::Unknown;
    }
    if (!keep.empty() && listed(type, keep)) {
      kept.type = Atom(type);
      kept.status = Atom(status);
      node.conditions.push_back(std::move(kept));
    }
  }
}

// A pod's conditions: Ready, and the reason of a DisruptionTarget that is True.
void decode_pod_conditions(sj::value conditions, Pod& pod) {
  if (conditions.is_null()) return;
  for (auto c : conditions.get_array()) {
    std::string_view type, status, reason;
    for (auto field : c.get_object()) {
      std::string_view key = field.unescaped_key();
      if (key == "type")
        type = field.value().get_string();
      else if (key == "status")
        status = field.value().get_string();
      else if (key == "reason")
        reason = string_or_empty(field.value());
    }
    if (type == "Ready")
      pod.ready = status == "True";
    else if (type == "DisruptionTarget" && status == "True")
      pod.disruption = Atom(reason.empty() ? type : reason);
  }
}

// containerStatuses: restarts summed, the latest start of a running container, and the exit
// code of the first container that terminated with a failure.
void decode_container_statuses(sj::value statuses, Pod& pod) {
  if (statuses.is_null()) return;
  for (auto c : statuses.get_array()) {
    for (auto field : c.get_object()) {
      std::string_view key = field.unescaped_key();
      if (key == "restartCount") {
        pod.restart_count += static_cast<std::int32_t>(field.value().get_int64());
      } else if (key == "state") {
        for (auto state : field.value().get_object()) {
          std::string_view kind = state.unescaped_key();
          if (kind != "running" && kind != "terminated") continue;
          for (auto f : state.value().get_object()) {
            std::string_view fk = f.unescaped_key();
            if (kind == "running" && fk == "startedAt") {
              if (auto at = time_or_none(f.value()); at && *at > pod.started_at)
                pod.started_at = *at;
            } else if (kind == "terminated" && fk == "exitCode") {
              auto code = static_cast<std::int32_t>(f.value().get_int64());
              if (code != 0 && !pod.exit_code) pod.exit_code = code;
            }
          }
        }
      }
    }
  }
}

void decode(sj::value v, Node& node, const DecodeOptions& options) {
  const auto* filter = options.keep_annotations.empty() ? nullptr : &options.keep_annotations;
  for (auto field : v.get_object()) {
    std::string_view key = field.unescaped_key();
    if (key == "metadata") {
      decode_meta(field.value(), node.meta, filter);
    } else if (key == "spec") {
      for (auto s : field.value().get_object()) {
        std::string_view sk = s.unescaped_key();
        if (sk == "unschedulable") {
          node.unschedulable = !s.value().is_null() && s.value().get_bool();
        } else if (sk == "taints") {
          sj::value taints = s.value();
          if (taints.is_null()) continue;
          for (auto t : taints.get_array()) {
            Taint taint;
            for (auto tf : t.get_object()) {
              std::string_view tk = tf.unescaped_key();
              if (tk == "key")
                taint.key = Atom(string_or_empty(tf.value()));
              else if (tk == "value")
                taint.value = Atom(string_or_empty(tf.value()));
              else if (tk == "effect")
                taint.effect = Atom(string_or_empty(tf.value()));
              else if (tk == "timeAdded")
                taint.time_added = string_or_empty(tf.value());
            }
            node.taints.push_back(taint);
          }
        }
      }
    } else if (key == "status") {
      for (auto s : field.value().get_object()) {
        std::string_view sk = s.unescaped_key();
        if (sk == "conditions")
          decode_node_conditions(s.value(), node, options.keep_condition_types);
        else if (sk == "capacity")
          node.capacity = resource_list(s.value());
        else if (sk == "allocatable")
          node.allocatable = resource_list(s.value());
      }
    }
  }
}

// Requests of a list of containers: summed (containers) or the largest (init containers).
void container_requests(sj::value containers, ResourceList::Items& out, bool sum) {
  if (containers.is_null()) return;
  for (auto c : containers.get_array()) {
    for (auto field : c.get_object()) {
      if (std::string_view(field.unescaped_key()) != "resources") continue;
      for (auto r : field.value().get_object()) {
        if (std::string_view(r.unescaped_key()) != "requests") continue;
        ResourceList::Items one;
        decode_resource_list(r.value(), one);
        for (const auto& [name, q] : one) {
          auto had = ResourceList::get_in(out, name.view());
          if (sum)
            ResourceList::set_in(out, name.view(), had + q);
          else if (q > had)
            ResourceList::set_in(out, name.view(), q);
        }
      }
    }
  }
}

// nodeSelector entries of the kept keys.
void decode_node_selector(sj::value v, Pod& pod, const std::vector<std::string>& keys) {
  if (v.is_null()) return;
  for (auto field : v.get_object()) {
    std::string_view key = field.unescaped_key();
    if (keep_annotation(key, keys)) pod.node_selector.set(key, string_or_empty(field.value()));
  }
}

// One matchExpression of a required node-selector term: `key In [value]` of a kept key.
void decode_match_expression(sj::value e, Pod& pod, const std::vector<std::string>& keys) {
  std::string key, op;
  std::vector<std::string> values;
  for (auto f : e.get_object()) {
    std::string_view fk = f.unescaped_key();
    if (fk == "key")
      key = string_or_empty(f.value());
    else if (fk == "operator")
      op = string_or_empty(f.value());
    else if (fk == "values" && !f.value().is_null())
      for (auto item : f.value().get_array())
        values.emplace_back(string_or_empty(item.value()));
  }
  if (op == "In" && values.size() == 1 && keep_annotation(key, keys))
    pod.node_selector.set(key, values[0]);
}

// affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution's terms: a pod that
// requires one value of a kept key (in any term) is recorded as selecting it.
void decode_affinity(sj::value v, Pod& pod, const std::vector<std::string>& keys) {
  if (v.is_null()) return;
  for (auto a : v.get_object()) {
    if (std::string_view(a.unescaped_key()) != "nodeAffinity" || a.value().is_null()) continue;
    for (auto n : a.value().get_object()) {
      if (std::string_view(n.unescaped_key()) != "requiredDuringSchedulingIgnoredDuringExecution" ||
          n.value().is_null())
        continue;
      for (auto r : n.value().get_object()) {
        if (std::string_view(r.unescaped_key()) != "nodeSelectorTerms" || r.value().is_null())
          continue;
        for (auto term : r.value().get_array())
          for (auto t : term.get_object())
            if (std::string_view(t.unescaped_key()) == "matchExpressions" && !t.value().is_null())
              for (auto e : t.value().get_array())
                decode_match_expression(e.value(), pod, keys);
      }
    }
  }
}

// Tolerations of a kept key with operator Equal (the default): key → value.
void decode_tolerations(sj::value v, Pod& pod, const std::vector<std::string>& keys) {
  if (v.is_null()) return;
  for (auto t : v.get_array()) {
    std::string key, value, op = "Equal";
    for (auto f : t.get_object()) {
      std::string_view fk = f.unescaped_key();
      if (fk == "key")
        key = string_or_empty(f.value());
      else if (fk == "value")
        value = string_or_empty(f.value());
      else if (fk == "operator")
        op = string_or_empty(f.value());
    }
    if (op == "Equal" && keep_annotation(key, keys)) pod.tolerations.set(key, value);
  }
}

// The parts of a pod's spec the cache keeps.
void decode_pod_spec(sj::value spec, Pod& pod, ResourceList::Items& requests,
                     ResourceList::Items& init, const DecodeOptions& options) {
  const auto& keys = options.keep_scheduling_keys;
  for (auto s : spec.get_object()) {
    std::string_view sk = s.unescaped_key();
    if (sk == "nodeName")
      pod.node_name = Atom(string_or_empty(s.value()));
    else if (sk == "containers")
      container_requests(s.value(), requests, true);
    else if (sk == "initContainers")
      container_requests(s.value(), init, false);
    else if (sk == "restartPolicy")
      pod.restart_policy = Atom(string_or_empty(s.value()));
    else if (sk == "priority" && !s.value().is_null())
      pod.priority = static_cast<std::int32_t>(s.value().get_int64());
    else if (keys.empty())
      continue;
    else if (sk == "nodeSelector")
      decode_node_selector(s.value(), pod, keys);
    else if (sk == "affinity")
      decode_affinity(s.value(), pod, keys);
    else if (sk == "tolerations")
      decode_tolerations(s.value(), pod, keys);
  }
}

void decode(sj::value v, Pod& pod, const DecodeOptions& options) {
  ResourceList::Items requests, init;
  for (auto field : v.get_object()) {
    std::string_view key = field.unescaped_key();
    if (key == "metadata") {
      decode_meta(field.value(), pod.meta, &options.keep_annotations);
    } else if (key == "spec") {
      decode_pod_spec(field.value(), pod, requests, init, options);
    } else if (key == "status") {
      for (auto s : field.value().get_object()) {
        std::string_view sk = s.unescaped_key();
        if (sk == "phase")
          pod.phase = Atom(string_or_empty(s.value()));
        else if (sk == "conditions")
          decode_pod_conditions(s.value(), pod);
        else if (sk == "containerStatuses")
          decode_container_statuses(s.value(), pod);
      }
    }
  }
  for (const auto& [name, q] : init) {
    if (q > ResourceList::get_in(requests, name.view()))
      ResourceList::set_in(requests, name.view(), q);
  }
  pod.requests = ResourceList(std::move(requests));
}

void decode(sj::value v, Unstructured& u, const DecodeOptions& options) {
  sj::object obj = v.get_object();
  std::string_view raw = obj.raw_json();
  u.object = nlohmann::json::parse(raw);
  u.meta = meta_from_json(u.object);
  if (!options.keep_annotations.empty()) {
    StringMap kept;
    for (const auto& [k, val] : u.meta.annotations.items()) {
      if (keep_annotation(k.view(), options.keep_annotations)) kept.set(k.view(), val.view());
    }
    u.meta.annotations = std::move(kept);
  }
}

template <class T>
Result<T> decode_in(const char* data, std::size_t len, std::size_t capacity,
                    const DecodeOptions& options) {
  T out;
  auto doc = thread_parser().iterate(data, len, capacity);
  decode(doc.get_value(), out, options);
  return out;
}

Error decode_error(std::string_view what, const std::exception& e) {
  Error err;
  err.kind = Error::Kind::Decode;
  err.message = std::string(what) + ": " + e.what();
  return err;
}

}  // namespace

template <class T>
Result<PageInfo> decode_list_page(std::string_view page, const DecodeOptions& options,
                                  const std::function<void(T&&)>& on_item) {
  try {
    simdjson::padded_string padded(page);
    auto doc = thread_parser().iterate(padded);
    PageInfo info;
    for (auto field : doc.get_object()) {
      std::string_view key = field.unescaped_key();
      if (key == "metadata") {
        for (auto m : field.value().get_object()) {
          std::string_view mk = m.unescaped_key();
          if (mk == "resourceVersion")
            info.resource_version = string_or_empty(m.value());
          else if (mk == "continue")
            info.continue_token = string_or_empty(m.value());
        }
      } else if (key == "items") {
        sj::value items = field.value();
        if (items.is_null()) continue;
        for (auto item : items.get_array()) {
          T out;
          decode(item.value(), out, options);
          on_item(std::move(out));
        }
      }
    }
    return info;
  } catch (const std::exception& e) {
    return std::unexpected(decode_error("list page", e));
  }
}

template <class T>
Result<WatchEvent<T>> decode_watch_event(std::string_view line, const DecodeOptions& options) {
  try {
    simdjson::padded_string padded(line);
    auto doc = thread_parser().iterate(padded);
    std::string type;
    std::string_view raw_object;
    for (auto field : doc.get_object()) {
      std::string_view key = field.unescaped_key();
      if (key == "type")
        type = std::string_view(field.value().get_string());
      else if (key == "object") {
        sj::object obj = field.value().get_object();
        raw_object = obj.raw_json();
      }
    }
    if (raw_object.empty()) {
      return fail(Error::Kind::Decode, "watch event without an object");
    }
    WatchEvent<T> event;
    if (type == "ERROR") {
      event.type = WatchEvent<T>::Type::Error;
      auto status = nlohmann::json::parse(raw_object);
      event.error = error_from_response(status.value("code", 500), raw_object);
      return event;
    }
    // raw_object lies inside `padded`, whose padding follows the line: parse it in place.
    const std::size_t offset = static_cast<std::size_t>(raw_object.data() - padded.data());
    const std::size_t capacity = padded.size() + simdjson::SIMDJSON_PADDING - offset;
    if (type == "BOOKMARK") {
      event.type = WatchEvent<T>::Type::Bookmark;
      auto meta = nlohmann::json::parse(raw_object).value("metadata", nlohmann::json::object());
      event.resource_version = meta.value("resourceVersion", "");
      auto annotations = meta.value("annotations", nlohmann::json::object());
      event.initial_events_end = annotations.value("k8s.io/initial-events-end", "") == "true";
      return event;
    }
    if (type == "ADDED")
      event.type = WatchEvent<T>::Type::Added;
    else if (type == "MODIFIED")
      event.type = WatchEvent<T>::Type::Modified;
    else if (type == "DELETED")
      event.type = WatchEvent<T>::Type::Deleted;
    else
      return fail(Error::Kind::Decode, "unknown watch event type \"" + type + "\"");
    auto object = decode_in<T>(raw_object.data(), raw_object.size(), capacity, options);
    if (!object) return std::unexpected(object.error());
    event.resource_version = object->meta.resource_version;
    event.object = std::move(*object);
    return event;
  } catch (const std::exception& e) {
    return std::unexpected(decode_error("watch event", e));
  }
}

template <class T>
Result<T> decode_object(std::string_view json, const DecodeOptions& options) {
  try {
    simdjson::padded_string padded(json);
    return decode_in<T>(padded.data(), padded.size(), padded.size() + simdjson::SIMDJSON_PADDING,
                        options);
  } catch (const std::exception& e) {
    return std::unexpected(decode_error("object", e));
  }
}

#define RESPOOL_DECODE_INSTANTIATE(T)                                                           \
  template Result<PageInfo> decode_list_page<T>(std::string_view, const DecodeOptions&,         \
                                                const std::function<void(T &&)>&);              \
  template Result<WatchEvent<T>> decode_watch_event<T>(std::string_view, const DecodeOptions&); \
  template Result<T> decode_object<T>(std::string_view, const DecodeOptions&);

RESPOOL_DECODE_INSTANTIATE(Node)
RESPOOL_DECODE_INSTANTIATE(Pod)
RESPOOL_DECODE_INSTANTIATE(Unstructured)

}  // namespace respool::kube
