#include "sandbox/apiserver/handlers/pod_log.hpp"

#include <charconv>
#include <thread>

#include "apimachinery/time.hpp"
#include "sandbox/apiserver/errors.hpp"
#include "sandbox/apiserver/handlers/responses.hpp"
#include "sandbox/simulator/container_log.hpp"

namespace respool::sandbox {
namespace {

using sim::LogClock;

struct LogOptions {
  std::string container;
  bool previous = false;
  bool timestamps = false;
  bool follow = false;
  std::optional<long long> since_seconds;
  std::optional<LogClock::time_point> since_time;
  std::optional<long long> tail_lines;
  std::optional<long long> limit_bytes;
};

// Go's strconv.ParseBool, as the query parameter conversion uses it.
Result<bool> log_bool_param(const http::Target& t, std::string_view name, bool& out) {
  auto v = t.param(name);
  if (!v || v->empty()) return out;
  for (std::string_view yes : {"1", "t", "T", "TRUE", "true", "True"})
    if (*v == yes) return out = true;
  for (std::string_view no : {"0", "f", "F", "FALSE", "false", "False"})
    if (*v == no) return out = false;
  return std::unexpected(bad_request("strconv.ParseBool: parsing " + Json(std::string(*v)).dump() +
                                     ": invalid syntax"));
}

Result<std::optional<long long>> log_int_param(const http::Target& t, std::string_view name) {
  auto v = t.param(name);
  if (!v || v->empty()) return std::optional<long long>{};
  long long n = 0;
  auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
  if (ec != std::errc() || p != v->data() + v->size())
    return std::unexpected(bad_request("strconv.ParseInt: parsing " + Json(std::string(*v)).dump() +
                                       ": invalid syntax"));
  return std::optional<long long>{n};
}

Result<LogOptions> parse_options(const http::Target& t, const std::string& name) {
  LogOptions o;
  o.container = std::string(t.param("container").value_or(""));
  for (auto [key, flag] :
       {std::pair{"previous", &o.previous}, std::pair{"timestamps", &o.timestamps},
        std::pair{"follow", &o.follow}}) {
    if (auto parsed = log_bool_param(t, key, *flag); !parsed)
      return std::unexpected(parsed.error());
  }
  for (auto [key, field] :
       {std::pair{"sinceSeconds", &o.since_seconds}, std::pair{"tailLines", &o.tail_lines},
        std::pair{"limitBytes", &o.limit_bytes}}) {
    auto parsed = log_int_param(t, key);
    if (!parsed) return std::unexpected(parsed.error());
    *field = *parsed;
  }
  if (auto since = t.param("sinceTime"); since && !since->empty()) {
    o.since_time = apimachinery::parse_time(std::string(*since));
    if (!o.since_time)
      return std::unexpected(bad_request("parsing time " + Json(std::string(*since)).dump() +
                                         " as \"2006-01-02T15:04:05Z07:00\": cannot parse"));
  }
  std::vector<Cause> causes;  // ValidatePodLogOptions
  if (o.tail_lines && *o.tail_lines < 0)
    causes.push_back(
        field_invalid("tailLines", *o.tail_lines, "must be greater than or equal to 0"));
  if (o.limit_bytes && *o.limit_bytes < 1)
    causes.push_back(field_invalid("limitBytes", *o.limit_bytes, "must be greater than 0"));
  if (o.since_seconds && o.since_time) {
    causes.push_back(
        field_forbidden("", "at most one of `sinceTime` or `sinceSeconds` may be specified"));
  } else if (o.since_seconds && *o.since_seconds < 1) {
    causes.push_back(field_invalid("sinceSeconds", *o.since_seconds, "must be greater than 0"));
  }
  if (!causes.empty()) return std::unexpected(invalid("", "PodLogOptions", name, causes));
  return o;
}

}  // namespace

Result<std::string> choose_container(const Json& pod, const std::string& asked) {
  std::vector<std::string> all;
  for (const char* list : {"initContainers", "containers", "ephemeralContainers"}) {
    const Json* items = pod.contains("spec") ? &pod["spec"] : nullptr;
    if (!items || !items->contains(list) || !(*items)[list].is_array()) continue;
    for (const auto& c : (*items)[list])
      if (c.is_object()) all.push_back(c.value("name", std::string()));
  }
  const std::string name = pod.value("metadata", Json::object()).value("name", std::string());
  if (!asked.empty()) {
    if (std::find(all.begin(), all.end(), asked) == all.end())
      return std::unexpected(bad_request("container " + asked + " is not valid for pod " + name));
    return asked;
  }
  const Json containers = pod.value("spec", Json::object()).value("containers", Json::array());
  if (containers.size() == 1) return containers[0].value("name", std::string());
  if (containers.empty())
    return std::unexpected(bad_request("a container name must be specified for pod " + name));
  std::string names;
  for (const auto& n : all)
    names += (names.empty() ? "" : " ") + n;
  return std::unexpected(bad_request("a container name must be specified for pod " + name +
                                     ", choose one of: [" + names + "]"));
}

namespace {

http::Headers log_headers() {
  return api_headers("text/plain");
}

// Keeps at most `left` more bytes of `text` (limitBytes); -1 = no limit.
void limit(std::string& text, long long& left) {
  if (left < 0) return;
  if (static_cast<long long>(text.size()) > left) text.resize(static_cast<std::size_t>(left));
  left -= static_cast<long long>(text.size());
}

}  // namespace

void serve_pod_log(Engine& engine, const std::atomic<bool>& stopping, const ResourceType& pods,
                   const http::Target& target, const std::string& ns, const std::string& name,
                   http::Responder& responder) {
  auto options = parse_options(target, name);
  if (!options) return responder.respond(error_response(options.error()));
  auto stored = engine.get(pods, ns, name);
  if (!stored) return responder.respond(error_response(stored.error()));
  const auto pod_object = stored->obj();
  const Json& pod = *pod_object;
  auto container = choose_container(pod, options->container);
  if (!container) return responder.respond(error_response(container.error()));
  http::Response empty;
  empty.status = 200;
  empty.headers = log_headers();
  if (pod.value("spec", Json::object()).value("nodeName", std::string()).empty())
    return responder.respond(std::move(empty));  // no host: an empty location, an empty body
  auto run = sim::container_run(pod, *container, options->previous);
  if (!run) return responder.respond(error_response(bad_request(run.error())));

  const auto now = engine.clock().now();
  sim::LogQuery query;
  query.timestamps = options->timestamps;
  query.tail_lines = options->tail_lines;
  if (options->since_time) query.since = options->since_time;
  if (options->since_seconds) query.since = now - std::chrono::seconds(*options->since_seconds);
  long long left = options->limit_bytes.value_or(-1);
  long long last_step = -1;
  std::string text = sim::container_log(pod, *container, *run, query, now, last_step);
  limit(text, left);
  if (!options->follow || run->finished || left == 0) {
    empty.body = std::move(text);
    return responder.respond(std::move(empty));
  }

  http::ChunkWriter& writer = responder.stream(200, log_headers());
  if (!text.empty() && !writer.write(text)) return;
  follow_container_output(
      engine, stopping, pods, ns, pod, *container, *run, options->timestamps, last_step, left,
      [&](const std::string& more) { return writer.write(more); }, [&] { return writer.closed(); });
}

bool follow_container_output(Engine& engine, const std::atomic<bool>& stopping,
                             const ResourceType& pods, const std::string& ns, const Json& pod,
                             const std::string& container, sim::ContainerRun run, bool timestamps,
                             long long last_step, long long& left,
                             const std::function<bool(const std::string&)>& write,
                             const std::function<bool()>& closed) {
  // Later lines as the simulated time passes; none of them is before what was written.
  const std::string name = pod["metadata"].value("name", "");
  sim::LogQuery query;
  query.timestamps = timestamps;
  while (!stopping.load() && !closed() && left != 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto current = engine.get(pods, ns, name);
    if (!current) return false;
    const auto now_pod = current->obj();
    if ((*now_pod)["metadata"].value("uid", "") != pod["metadata"].value("uid", "")) return false;
    auto now_run = sim::container_run(*now_pod, container, false);
    // A new run (restart) or none: this one ended when the new one began, at the latest.
    const bool same = now_run && now_run->start == run.start && now_run->restart == run.restart;
    if (!same && now_run && !run.finished) run.finished = now_run->start;
    if (same) run = *now_run;
    query.after_step = last_step;
    std::string more =
        sim::container_log(*now_pod, container, run, query, engine.clock().now(), last_step);
    limit(more, left);
    if (!more.empty() && !write(more)) return false;
    if (!same || run.finished) return true;
  }
  return false;
}

}  // namespace respool::sandbox
