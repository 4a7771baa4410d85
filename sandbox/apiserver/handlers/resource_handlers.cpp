// The verbs on resource paths, one function each (get, list, watch, create, update, patch,
// delete, deletecollection), and the table of subresources served by handlers of their own.

#include <charconv>

#include "sandbox/apiserver/handlers/body.hpp"
#include "sandbox/apiserver/handlers/dispatcher.hpp"
#include "sandbox/apiserver/handlers/pod_attach.hpp"
#include "sandbox/apiserver/handlers/pod_exec.hpp"
#include "sandbox/apiserver/handlers/pod_log.hpp"
#include "sandbox/apiserver/handlers/request_options.hpp"
#include "sandbox/apiserver/handlers/responses.hpp"
#include "sandbox/apiserver/handlers/virtual_kinds.hpp"
#include "sandbox/apiserver/handlers/watch.hpp"
#include "sandbox/apiserver/printers/tables.hpp"
#include "sandbox/apiserver/rbac/token_request.hpp"

namespace respool::sandbox {
namespace {

struct Context {
  const http::ServerRequest& request;
  const http::Target& target;
  const RequestInfo& info;
  const ResourceType& type;
  Representation rep;
  http::Responder& responder;
};

std::string param(const http::Target& t, std::string_view name) {
  auto v = t.param(name);
  return v ? std::string(*v) : std::string();
}

Result<std::optional<long long>> int_param(const http::Target& t, std::string_view name) {
  auto v = t.param(name);
  if (!v || v->empty()) return std::optional<long long>{};
  long long n = 0;
  auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
  if (ec != std::errc() || p != v->data() + v->size()) {
    return std::unexpected(bad_request("invalid value for " + std::string(name) + ": " +
                                       Json(std::string(*v)).dump()));
  }
  return std::optional<long long>{n};
}

// The options kind of a write verb, as its 422s name it.
const char* options_kind(const std::string& verb) {
  if (verb == "update") return "UpdateOptions";
  if (verb == "patch") return "PatchOptions";
  if (verb == "delete" || verb == "deletecollection") return "DeleteOptions";
  return "CreateOptions";
}

Result<WriteOptions> write_options(const http::Target& t, const std::string& verb) {
  WriteOptions o;
  for (const auto& [k, v] : t.query) {
    if (k != "dryRun") continue;
    if (v != "All") {
      return std::unexpected(invalid("meta.k8s.io", options_kind(verb), "",
                                     {field_not_supported("dryRun", v, {"All"})}));
    }
    o.dry_run = true;
  }
  o.field_validation = param(t, "fieldValidation");
  if (!o.field_validation.empty() && o.field_validation != "Ignore" &&
      o.field_validation != "Warn" && o.field_validation != "Strict") {
    return std::unexpected(
        bad_request("fieldValidation: Unsupported value: " + Json(o.field_validation).dump() +
                    ": supported values: \"Ignore\", \"Warn\", \"Strict\""));
  }
  return o;
}

void respond_text(Context& c, int status, const std::string& json_text,
                  const std::vector<std::string>& warnings = {}) {
  Encoded e = encode(json_text, c.rep.format);
  http::Response r = json_response(status, std::move(e.body), e.content_type);
  for (const std::string& w : warnings) {
    r.headers.add("Warning", "299 - " + Json(w).dump());
  }
  c.responder.respond(std::move(r));
}

void respond_error(Context& c, const ApiError& e) {
  c.responder.respond(error_response(e));
}

TableRequest table_request(const Context& c) {
  TableRequest tr;
  tr.version = c.rep.table_version;
  std::string include = param(c.target, "includeObject");
  if (include == "None") tr.include = IncludeObject::None;
  if (include == "Object") tr.include = IncludeObject::Object;
  return tr;
}

OJson list_meta(std::uint64_t rv, const std::string& cont, std::optional<std::size_t> remaining,
                bool always_continue) {
  OJson m;
  m["resourceVersion"] = std::to_string(rv);
  if (!cont.empty() || always_continue) m["continue"] = cont;
  if (remaining) m["remainingItemCount"] = *remaining;
  return m;
}

void respond_object(Context& c, int status, const StoredObject& obj, runtime::TimePoint now,
                    const std::vector<std::string>& warnings = {}) {
  if (c.rep.shape == Shape::Table) {
    OJson meta = {{"resourceVersion", std::to_string(obj.rv)}};
    const auto object = obj.obj();
    std::vector<const Json*> one{object.get()};
    respond_text(c, status, make_table(c.type, one, meta, table_request(c), now).dump(), warnings);
  } else if (c.rep.shape == Shape::PartialMetadata) {
    respond_text(c, status, partial_metadata(*obj.obj(), c.rep.table_version).dump(), warnings);
  } else {
    respond_text(c, status, *obj.text, warnings);
  }
}

Result<Json> object_body(Context& c) {
  return decode_object(c.request, c.type.kind, c.type.api_version());
}

Result<Selectors> selectors_of(const Context& c) {
  return parse_selectors(c.type, param(c.target, "labelSelector"),
                         param(c.target, "fieldSelector"));
}

Result<DeleteOptions> delete_options(const Context& c) {
  DeleteOptions o;
  if (!c.request.body.empty()) {
    auto body = decode_object(c.request, "DeleteOptions", c.type.api_version());
    if (!body) return std::unexpected(body.error());
    const Json& b = *body;
    if (!b.is_object()) return std::unexpected(bad_request("DeleteOptions must be an object"));
    if (b.contains("gracePeriodSeconds") && b["gracePeriodSeconds"].is_number_integer()) {
      o.grace_period_seconds = b["gracePeriodSeconds"].get<std::int64_t>();
    }
    if (b.contains("propagationPolicy") && b["propagationPolicy"].is_string()) {
      o.propagation = b["propagationPolicy"];
    }
    if (b.contains("orphanDependents") && b["orphanDependents"] == true) o.propagation = "Orphan";
    if (b.contains("preconditions") && b["preconditions"].is_object()) {
      const Json& p = b["preconditions"];
      if (p.contains("uid") && p["uid"].is_string()) o.precondition_uid = p["uid"];
      if (p.contains("resourceVersion") && p["resourceVersion"].is_string()) {
        o.precondition_resource_version = p["resourceVersion"];
      }
    }
    if (b.contains("dryRun") && b["dryRun"].is_array() && !b["dryRun"].empty()) o.dry_run = true;
  }
  auto grace = int_param(c.target, "gracePeriodSeconds");
  if (!grace) return std::unexpected(grace.error());
  if (*grace) o.grace_period_seconds = **grace;
  if (auto p = c.target.param("propagationPolicy")) o.propagation = std::string(*p);
  if (param(c.target, "orphanDependents") == "true") o.propagation = "Orphan";
  if (param(c.target, "dryRun") == "All") o.dry_run = true;
  return o;
}

void handle_list(Context& c, Engine& engine) {
  if (auto bad = check_list_options(c.target)) return respond_error(c, *bad);
  auto sel = selectors_of(c);
  if (!sel) return respond_error(c, sel.error());
  auto limit = int_param(c.target, "limit");
  if (!limit) return respond_error(c, limit.error());
  ListOptions options;
  options.selectors = std::move(*sel);
  options.limit = *limit && **limit > 0 ? static_cast<std::size_t>(**limit) : 0;
  options.continue_token = param(c.target, "continue");
  auto result = engine.list(c.type, c.info.ns, options);
  if (!result) return respond_error(c, result.error());
  OJson meta = list_meta(result->rv, result->continue_token, result->remaining, c.type.custom());
  if (c.rep.shape == Shape::Table) {
    std::vector<Json> presented;
    presented.reserve(result->items.size());
    for (const StoredObject& s : result->items)
      presented.push_back(engine.present(c.type, *s.obj()));
    std::vector<const Json*> ptrs;
    for (const Json& j : presented)
      ptrs.push_back(&j);
    respond_text(c, 200,
                 make_table(c.type, ptrs, meta, table_request(c), engine.clock().now()).dump());
    return;
  }
  std::string body;
  if (c.rep.shape == Shape::PartialMetadata) {
    OJson list = {{"kind", "PartialObjectMetadataList"},
                  {"apiVersion", "meta.k8s.io/" + c.rep.table_version},
                  {"metadata", meta}};
    OJson items = OJson::array();
    for (const StoredObject& s : result->items) {
      items.push_back(partial_metadata(*s.obj(), c.rep.table_version));
    }
    list["items"] = std::move(items);
    body = list.dump();
  } else {
    std::size_t size = 128;
    std::vector<std::shared_ptr<const std::string>> texts;
    texts.reserve(result->items.size());
    for (const StoredObject& s : result->items) {
      texts.push_back(engine.present_text(c.type, s));
      size += texts.back()->size() + 1;
    }
    body.reserve(size);
    body += "{\"kind\":\"" + c.type.list_kind + "\",\"apiVersion\":\"" + c.type.api_version() +
            "\",\"metadata\":" + meta.dump() + ",\"items\":[";
    for (std::size_t i = 0; i < texts.size(); ++i) {
      if (i) body += ',';
      body += *texts[i];
    }
    body += "]}";
  }
  respond_text(c, 200, body);
}

void handle_watch(Context& c, Engine& engine, FaultInjector& faults,
                  const std::atomic<bool>& stopping, std::chrono::seconds default_timeout) {
  auto sel = selectors_of(c);
  if (!sel) return respond_error(c, sel.error());
  auto timeout = int_param(c.target, "timeoutSeconds");
  if (!timeout) return respond_error(c, timeout.error());
  WatchRequest w;
  w.type = engine.registry().find(c.type.group, c.type.version, c.type.plural);
  if (!w.type) return c.responder.respond(page_not_found());
  w.ns = c.info.ns;
  w.selectors = std::move(*sel);
  w.resource_version = param(c.target, "resourceVersion");
  std::string initial = param(c.target, "sendInitialEvents");
  if (initial == "true") w.send_initial_events = true;
  if (initial == "false") w.send_initial_events = false;
  w.allow_bookmarks = param(c.target, "allowWatchBookmarks") == "true";
  w.timeout = *timeout && **timeout > 0 ? std::chrono::seconds(**timeout) : default_timeout;
  w.table = c.rep.shape == Shape::Table;
  w.table_request = table_request(c);
  serve_watch(engine, faults, stopping, w, c.responder);
}

void handle_delete(Context& c, Engine& engine) {
  auto options = delete_options(c);
  if (!options) return respond_error(c, options.error());
  auto result = engine.remove(c.type, c.info.ns, c.info.name, *options);
  if (!result) return respond_error(c, result.error());
  if (c.type.returns_deleted_object || !result->removed) {
    return respond_text(c, 200, *engine.present_text(c.type, result->object));
  }
  OJson details = {{"name", c.info.name}};
  if (!c.type.group.empty()) details["group"] = c.type.group;
  details["kind"] = c.type.plural;
  details["uid"] = object_uid(*result->object.obj());
  OJson status = {{"kind", "Status"},
                  {"apiVersion", "v1"},
                  {"metadata", OJson::object()},
                  {"status", "Success"},
                  {"details", details}};
  respond_text(c, 200, status.dump());
}

void respond_success(Context& c, int code) {
  OJson status = {{"kind", "Status"},
                  {"apiVersion", "v1"},
                  {"metadata", OJson::object()},
                  {"status", "Success"},
                  {"code", code}};
  respond_text(c, code, status.dump());
}

std::string patch_type_of(const Context& c) {
  return media_type(c.request.headers.get("Content-Type").value_or(""));
}

// 415 as the API server answers a PATCH it cannot take; "" when the type is fine.
std::optional<ApiError> check_patch_type(const Context& c, const std::string& type) {
  bool known = type == "application/json-patch+json" || type == "application/merge-patch+json" ||
               type == "application/strategic-merge-patch+json" ||
               type == "application/apply-patch+yaml";
  if (!known) return unsupported_media_type();
  if (type == "application/strategic-merge-patch+json" && c.type.custom()) {
    return unsupported_patch_type(false);
  }
  return std::nullopt;
}

// The manager of a write: ?fieldManager=, else the User-Agent's first word (prefixFromUserAgent),
// "unknown" without one.
std::string field_manager_of(const http::ServerRequest& request, const http::Target& target) {
  std::string manager = param(target, "fieldManager");
  if (!manager.empty()) return manager;
  std::string agent(request.headers.get("User-Agent").value_or(""));
  manager = agent.substr(0, agent.find('/'));
  return manager.empty() ? "unknown" : manager;
}

// PatchOptions as ValidatePatchOptions checks them: apply needs a fieldManager, only apply
// takes force.
std::optional<ApiError> check_patch_options(const Context& c, bool apply) {
  if (!apply && c.target.param("force")) {
    return invalid("meta.k8s.io", "PatchOptions", "",
                   {field_forbidden("force", "may not be specified for non-apply patch")});
  }
  if (apply && param(c.target, "fieldManager").empty()) {
    return invalid("meta.k8s.io", "PatchOptions", "",
                   {field_required("fieldManager", "is required for apply patch")});
  }
  return std::nullopt;
}

void handle_apply(Context& c, Engine& engine, const WriteOptions& options) {
  Json config;
  if (!yaml_to_json(c.request.body, config) || !config.is_object()) {
    return respond_error(c, bad_request("error decoding YAML: the applied configuration is not a "
                                        "YAML or JSON object"));
  }
  if (c.info.subresource == "scale") return respond_error(c, unsupported_media_type());
  bool force = param(c.target, "force") == "true";
  auto applied = engine.apply(c.type, c.info.ns, c.info.name, std::move(config), options, force,
                              c.info.subresource);
  if (!applied) return respond_error(c, applied.error());
  respond_text(c, applied->created ? 201 : 200, *engine.present_text(c.type, applied->object),
               applied->warnings);
}

// What the verbs need of the Dispatcher beside the request.
struct Server {
  Engine& engine;
  FaultInjector& faults;
  const std::atomic<bool>& stopping;
  rbac::TokenIssuer& tokens;
  Authorizer& authorizer;
  const User& user;
  std::chrono::seconds watch_timeout;
};

void pod_log(Server& s, Context& c, WriteOptions*) {
  serve_pod_log(s.engine, s.stopping, c.type, c.target, c.info.ns, c.info.name, c.responder);
}

void pod_exec(Server& s, Context& c, WriteOptions*) {
  serve_pod_exec(s.engine, c.type, c.request, c.target, c.info.ns, c.info.name, c.responder);
}

void pod_attach(Server& s, Context& c, WriteOptions*) {
  serve_pod_attach(s.engine, s.stopping, c.type, c.request, c.target, c.info.ns, c.info.name,
                   c.responder);
}

void get_scale(Server& s, Context& c, WriteOptions*) {
  auto scale = s.engine.get_scale(c.type, c.info.ns, c.info.name);
  if (!scale) return respond_error(c, scale.error());
  respond_text(c, 200, scale->dump());
}

void evict_or_bind(Server& s, Context& c, WriteOptions* options) {
  bool evict = c.info.subresource == "eviction";
  auto body = evict ? decode_object(c.request, "Eviction", "policy/v1")
                    : decode_object(c.request, "Binding", "v1");
  if (!body) return respond_error(c, body.error());
  auto done = evict ? s.engine.evict(c.info.ns, c.info.name, *body, options->dry_run)
                    : s.engine.bind(c.info.ns, c.info.name, *body, options->dry_run);
  if (!done) return respond_error(c, done.error());
  respond_success(c, 201);
}

void create_token(Server& s, Context& c, WriteOptions*) {
  auto body = decode_object(c.request, "TokenRequest", "authentication.k8s.io/v1");
  if (!body) return respond_error(c, body.error());
  auto token = issue_token(s.engine, s.tokens, c.info.ns, c.info.name, *body);
  if (!token) return respond_error(c, token.error());
  respond_text(c, 201, token->dump());
}

// The subresources served by handlers of their own; the others (status, scale's writes,
// approval, ephemeralcontainers, finalize) are the object's get, update and patch on a part of
// it. `writes`: served after the write options are read and checked.
struct Subresource {
  const char* verb;
  const char* name;
  bool writes;
  void (*serve)(Server&, Context&, WriteOptions*);
};
constexpr Subresource kSubresources[] = {
    {"get", "log", false, pod_log},
    {"get", "exec", false, pod_exec},
    {"get", "attach", false, pod_attach},
    // SPDY (POST), kubectl's fallback after a failed WebSocket upgrade: the same checks answer.
    {"create", "exec", false, pod_exec},
    {"create", "attach", false, pod_attach},
    {"get", "scale", false, get_scale},
    {"create", "eviction", true, evict_or_bind},
    {"create", "binding", true, evict_or_bind},
    {"create", "token", true, create_token},
};

const Subresource* find_subresource(const Context& c, bool writes) {
  for (const Subresource& sub : kSubresources) {
    if (sub.writes == writes && c.info.verb == sub.verb && c.info.subresource == sub.name) {
      return &sub;
    }
  }
  return nullptr;
}

void serve_get(Server& s, Context& c) {
  const std::string& sub = c.info.subresource;
  if (!sub.empty() && sub != "status" && sub != "ephemeralcontainers") {
    return respond_error(c, method_not_allowed());
  }
  auto obj = s.engine.get(c.type, c.info.ns, c.info.name);
  if (!obj) return respond_error(c, obj.error());
  StoredObject shown = *obj;
  shown.text = s.engine.present_text(c.type, *obj);
  if (c.type.converted) {
    shown.decoded = std::make_shared<const Json>(s.engine.present(c.type, *obj->obj()));
  }
  respond_object(c, 200, shown, s.engine.clock().now());
}

void serve_create(Server& s, Context& c, const WriteOptions& options) {
  if (!c.info.name.empty()) return respond_error(c, method_not_allowed());
  auto body = object_body(c);
  if (!body) return respond_error(c, body.error());
  if (auto denied = s.authorizer.check_escalation(s.user, c.type, c.info.ns, *body)) {
    return respond_error(c, *denied);
  }
  auto created = s.engine.create(c.type, c.info.ns, std::move(*body), options);
  if (!created) return respond_error(c, created.error());
  respond_text(c, 201, *s.engine.present_text(c.type, created->object), created->warnings);
}

void serve_delete_collection(Server& s, Context& c) {
  const auto& verbs = c.type.verbs;
  if (std::find(verbs.begin(), verbs.end(), "deletecollection") == verbs.end()) {
    return respond_error(c, method_not_allowed());
  }
  auto sel = selectors_of(c);
  if (!sel) return respond_error(c, sel.error());
  auto del = delete_options(c);
  if (!del) return respond_error(c, del.error());
  ListOptions lo;
  lo.selectors = std::move(*sel);
  auto gone = s.engine.remove_collection(c.type, c.info.ns, lo, *del);
  if (!gone) return respond_error(c, gone.error());
  std::string body = "{\"kind\":\"" + c.type.list_kind + "\",\"apiVersion\":\"" +
                     c.type.api_version() + "\",\"metadata\":{},\"items\":[";
  for (std::size_t i = 0; i < gone->size(); ++i) {
    if (i) body += ',';
    body += *s.engine.present_text(c.type, (*gone)[i]);
  }
  respond_text(c, 200, body + "]}");
}

void serve_update(Server& s, Context& c, const WriteOptions& options) {
  const std::string& sub = c.info.subresource;
  auto body = sub == "scale" ? decode_object(c.request, "Scale", "autoscaling/v1") : object_body(c);
  if (!body) return respond_error(c, body.error());
  if (sub.empty()) {
    if (auto denied = s.authorizer.check_escalation(s.user, c.type, c.info.ns, *body)) {
      return respond_error(c, *denied);
    }
  }
  if (sub == "scale") {
    auto scale = s.engine.update_scale(c.type, c.info.ns, c.info.name, std::move(*body), options);
    if (!scale) return respond_error(c, scale.error());
    return respond_text(c, 200, scale->dump());
  }
  auto updated = s.engine.update(c.type, c.info.ns, c.info.name, std::move(*body), options, sub);
  if (!updated) return respond_error(c, updated.error());
  respond_text(c, updated->created ? 201 : 200, *s.engine.present_text(c.type, updated->object),
               updated->warnings);
}

void serve_patch(Server& s, Context& c, const WriteOptions& options) {
  const std::string& sub = c.info.subresource;
  std::string ptype = patch_type_of(c);
  if (auto bad = check_patch_type(c, ptype)) return respond_error(c, *bad);
  bool apply = ptype == "application/apply-patch+yaml";
  if (auto bad = check_patch_options(c, apply)) return respond_error(c, *bad);
  if (apply) return handle_apply(c, s.engine, options);
  auto patch = decode_patch(c.request, c.type.kind);
  if (!patch) return respond_error(c, patch.error());
  if (sub == "scale") {
    auto scale = s.engine.patch_scale(c.type, c.info.ns, c.info.name, ptype, *patch, options);
    if (!scale) return respond_error(c, scale.error());
    return respond_text(c, 200, scale->dump());
  }
  auto patched = s.engine.patch(c.type, c.info.ns, c.info.name, ptype, *patch, options, sub);
  if (!patched) return respond_error(c, patched.error());
  respond_text(c, 200, *s.engine.present_text(c.type, patched->object), patched->warnings);
}

// The subresources a named object's update, patch and delete reach (the others: 405).
bool on_object(const std::string& sub, const std::string& verb) {
  return sub.empty() || sub == "status" || sub == "scale" || sub == "approval" ||
         sub == "ephemeralcontainers" || (sub == "finalize" && verb == "update");
}

// One function per verb, and the table of subresources.
void serve_verb(Server& s, Context& c) {
  const std::string& verb = c.info.verb;
  if (verb == "list") return handle_list(c, s.engine);
  if (verb == "watch") return handle_watch(c, s.engine, s.faults, s.stopping, s.watch_timeout);
  if (const Subresource* sub = find_subresource(c, false)) return sub->serve(s, c, nullptr);
  if (verb == "get") return serve_get(s, c);
  auto options = write_options(c.target, verb);
  if (!options) return respond_error(c, options.error());
  if (verb == "create" || verb == "update" || verb == "patch") {
    if (auto bad = check_field_manager(param(c.target, "fieldManager"), options_kind(verb))) {
      return respond_error(c, *bad);
    }
  }
  options->field_manager = field_manager_of(c.request, c.target);
  if (const Subresource* sub = find_subresource(c, true)) return sub->serve(s, c, &*options);
  if (verb == "create") return serve_create(s, c, *options);
  if (c.info.name.empty()) {
    if (verb == "deletecollection") return serve_delete_collection(s, c);
    return respond_error(c, method_not_allowed());
  }
  // binding, eviction, token, log, proxy, ...
  if (!on_object(c.info.subresource, verb)) return respond_error(c, method_not_allowed());
  if (verb == "update") return serve_update(s, c, *options);
  if (verb == "patch") return serve_patch(s, c, *options);
  if (verb == "delete" && c.info.subresource.empty()) return handle_delete(c, s.engine);
  respond_error(c, method_not_allowed());
}

}  // namespace

void Dispatcher::resource(const http::ServerRequest& request, const http::Target& target,
                          const RequestInfo& info, const User& user, http::Responder& responder) {
  TypePtr type = engine_.registry().find(info.group, info.version, info.resource);
  if (!type || info.extra_parts) return responder.respond(page_not_found());
  if (!type->stored) {
    return responder.respond(
        serve_virtual(engine_, authenticator_, authorizer_, {request, info, *type, user}));
  }
  if (!type->namespaced && !info.ns.empty() && info.resource != "namespaces") {
    return responder.respond(page_not_found());
  }
  const std::string& sub = info.subresource;
  if (!sub.empty() && !type->has_subresource(sub)) return responder.respond(page_not_found());
  const std::string& verb = info.verb;
  bool transformable = verb == "get" || verb == "list" || verb == "watch";
  std::string accept(request.headers.get("Accept").value_or(""));
  auto rep = negotiate(accept, transformable && sub.empty());
  if (!rep) return responder.respond(error_response(not_acceptable()));
  if (type->namespaced && info.ns.empty() && verb != "list" && verb != "watch") {
    return responder.respond(info.name.empty() ? error_response(method_not_allowed())
                                               : page_not_found());
  }
  Context c{request, target, info, *type, *rep, responder};
  Server s{engine_, faults_, stopping_, tokens_, authorizer_, user, options_.default_watch_timeout};
  serve_verb(s, c);
}

}  // namespace respool::sandbox
