// Event validation (pkg/apis/core/validation/events.go) on the stored core/v1 form: the legacy
// rules every Event meets, and the strict ones of events.k8s.io/v1 (required reporting fields,
// eventTime, the deprecated fields unset, most fields immutable). Field paths are the internal
// type's (reportingController, message, involvedObject), as the real server names them for
// both APIs.

#include <optional>

#include "apimachinery/time.hpp"
#include "sandbox/apiserver/validation/rules.hpp"

namespace respool::sandbox::kinds {
namespace {

constexpr std::size_t kReportingInstanceLimit = 128;
constexpr std::size_t kActionLimit = 128;
constexpr std::size_t kReasonLimit = 128;
constexpr std::size_t kNoteLimit = 1024;

bool time_set(const Json& event, const char* key) {
  return event.contains(key) && event[key].is_string() && !event[key].get<std::string>().empty();
}

Json object_at(const Json& event, const char* key) {
  if (event.contains(key) && event[key].is_object()) return event[key];
  return Json::object();
}

std::string limit_detail(std::size_t limit) {
  return "can have at most " + std::to_string(limit) + " characters";
}

// legacyValidateEvent: the rules of every Event, whichever API wrote it.
void legacy_rules(const Json& event, std::vector<Cause>& out) {
  const std::string ns = event.value("metadata", Json::object()).value("namespace", "");
  const std::string involved_ns = text_of(object_at(event, "involvedObject"), "namespace");
  auto mismatch = [&] {
    out.push_back(
        field_invalid("involvedObject.namespace", involved_ns, "does not match event.namespace"));
  };
  if (!time_set(event, "eventTime")) {
    // An old-style Event: its namespace and its object's agree (or "default" for a
    // cluster-scoped object, as old clients wrote them).
    if (involved_ns.empty() ? (!ns.empty() && ns != "default") : ns != involved_ns) mismatch();
    return;
  }
  if (involved_ns.empty() && ns != "default" && ns != "kube-system") mismatch();
  const std::string controller = text_of(event, "reportingComponent");
  if (controller.empty()) out.push_back(field_required("reportingController"));
  for (const std::string& msg : check_qualified_name(controller)) {
    out.push_back(field_invalid("reportingController", controller, msg));
  }
  const std::string instance = text_of(event, "reportingInstance");
  if (instance.empty()) out.push_back(field_required("reportingInstance"));
  if (instance.size() > kReportingInstanceLimit) {
    out.push_back(field_invalid("reportingInstance", "", limit_detail(kReportingInstanceLimit)));
  }
  const std::string action = text_of(event, "action");
  if (action.empty()) out.push_back(field_required("action"));
  if (action.size() > kActionLimit) {
    out.push_back(field_invalid("action", "", limit_detail(kActionLimit)));
  }
  const std::string reason = text_of(event, "reason");
  if (reason.empty()) out.push_back(field_required("reason"));
  if (reason.size() > kReasonLimit) {
    out.push_back(field_invalid("reason", "", limit_detail(kReasonLimit)));
  }
  if (text_of(event, "message").size() > kNoteLimit) {
    out.push_back(field_invalid("message", "", limit_detail(kNoteLimit)));
  }
}

void series_rules(const Json& event, std::vector<Cause>& out) {
  if (!event.contains("series") || !event["series"].is_object()) return;
  const Json& series = event["series"];
  const Json count = series.value("count", Json(0));
  if (!count.is_number_integer() || count.get<long long>() < 2) {
    out.push_back(field_invalid("series.count", "", "should be at least 2"));
  }
  if (!time_set(series, "lastObservedTime"))
    out.push_back(field_required("series.lastObservedTime"));
}

// time.Time.String() of a metav1.Time / MicroTime ("2026-01-01 10:00:00.5 +0000 UTC"); the zero
// time when unset.
std::string go_time(const Json& v) {
  if (!v.is_string() || v.get<std::string>().empty()) return "0001-01-01 00:00:00 +0000 UTC";
  std::string text = v.get<std::string>();
  if (text.back() != 'Z') {
    if (auto t = apimachinery::parse_time(text)) text = apimachinery::format_micro_time(*t);
  }
  std::string out = text.substr(0, 10) + " " + text.substr(11, 8);
  std::string frac = text.size() > 20 && text[19] == '.' ? text.substr(20, text.size() - 21) : "";
  while (!frac.empty() && frac.back() == '0')
    frac.pop_back();
  if (!frac.empty()) out += "." + frac;
  return out + " +0000 UTC";
}

std::string go_quote(const Json& obj, const char* key) {
  return render_value(text_of(obj, key));
}

// %#v of a core.ObjectReference (involvedObject, related).
std::string go_reference(const Json& ref) {
  if (!ref.is_object()) return "null";
  return "core.ObjectReference{Kind:" + go_quote(ref, "kind") +
         ", Namespace:" + go_quote(ref, "namespace") + ", Name:" + go_quote(ref, "name") +
         ", UID:" + go_quote(ref, "uid") + ", APIVersion:" + go_quote(ref, "apiVersion") +
         ", ResourceVersion:" + go_quote(ref, "resourceVersion") +
         ", FieldPath:" + go_quote(ref, "fieldPath") + "}";
}

std::string go_source(const Json& source) {
  Json s = source.is_object() ? source : Json::object();
  return "core.EventSource{Component:" + go_quote(s, "component") +
         ", Host:" + go_quote(s, "host") + "}";
}

// An empty object, null and a missing field are one Go zero value.
Json normalized(const Json& obj, const char* key) {
  if (!obj.contains(key) || obj[key].is_null()) return Json();
  if (obj[key].is_object() && obj[key].empty()) return Json();
  if (obj[key].is_string() && obj[key].get<std::string>().empty()) return Json();
  if (obj[key].is_number_integer() && obj[key].get<long long>() == 0) return Json();
  return obj[key];
}

bool times_equal(const Json& a, const Json& b) {
  if (a.is_string() && b.is_string()) {
    auto ta = apimachinery::parse_time(a.get<std::string>());
    auto tb = apimachinery::parse_time(b.get<std::string>());
    if (ta && tb) return *ta == *tb;
  }
  return a == b;
}

// ValidateEventUpdate's immutable fields, in its order ("reason" is checked twice there, and
// the aggregate drops the repeated message).
void immutable_rules(const Json& event, const Json& old, std::vector<Cause>& out) {
  struct Field {
    const char* stored;
    const char* path;
    enum { Text, Reference, Source, Time, Count } shape;
  };
  static const Field kFields[] = {
      {"involvedObject", "involvedObject", Field::Reference},
      {"reason", "reason", Field::Text},
      {"message", "message", Field::Text},
      {"source", "source", Field::Source},
      {"firstTimestamp", "firstTimestamp", Field::Time},
      {"lastTimestamp", "lastTimestamp", Field::Time},
      {"count", "count", Field::Count},
      {"reason", "reason", Field::Text},
      {"type", "type", Field::Text},
      {"eventTime", "eventTime", Field::Time},
      {"action", "action", Field::Text},
      {"related", "related", Field::Reference},
      {"reportingComponent", "reportingController", Field::Text},
      {"reportingInstance", "reportingInstance", Field::Text},
  };
  for (const Field& f : kFields) {
    Json now = normalized(event, f.stored);
    Json before = normalized(old, f.stored);
    bool same = f.shape == Field::Time ? times_equal(now, before) : now == before;
    if (same) continue;
    std::string shown;
    switch (f.shape) {
      case Field::Text:
        shown = render_value(text_of(event, f.stored));
        break;
      case Field::Reference:
        shown = f.stored == std::string("related") && now.is_null()
                    ? "null"
                    : go_reference(now.is_null() ? Json::object() : now);
        break;
      case Field::Source:
        shown = go_source(now);
        break;
      case Field::Time:
        shown = go_time(now);
        break;
      case Field::Count:
        shown = std::to_string(now.is_number_integer() ? now.get<long long>() : 0);
        break;
    }
    out.push_back(field_invalid_raw(f.path, shown, "field is immutable"));
  }
}

// ValidateEventCreate's strict part (events.k8s.io/v1).
void strict_create_rules(const Json& event, std::vector<Cause>& out) {
  series_rules(event, out);
  if (!time_set(event, "eventTime")) out.push_back(field_required("eventTime"));
  const std::string type = text_of(event, "type");
  if (type != "Normal" && type != "Warning") {
    out.push_back(field_invalid("type", "", "has invalid value: " + type));
  }
  if (time_set(event, "firstTimestamp")) {
    out.push_back(field_invalid("firstTimestamp", "", "needs to be unset"));
  }
  if (time_set(event, "lastTimestamp")) {
    out.push_back(field_invalid("lastTimestamp", "", "needs to be unset"));
  }
  if (!normalized(event, "count").is_null()) {
    out.push_back(field_invalid("count", "", "needs to be unset"));
  }
  const Json source = object_at(event, "source");
  if (!text_of(source, "component").empty() || !text_of(source, "host").empty()) {
    out.push_back(field_invalid("source", "", "needs to be unset"));
  }
}

}  // namespace

void validate_event(const Json& event, const Json* old, bool events_v1, std::vector<Cause>& out) {
  legacy_rules(event, out);
  if (!events_v1) return;
  if (!old) {
    strict_create_rules(event, out);
    return;
  }
  if (event.value("series", Json()) != old->value("series", Json())) series_rules(event, out);
  immutable_rules(event, *old, out);
}

}  // namespace respool::sandbox::kinds
