#include "sandbox/apiserver/handlers/watch.hpp"

#include <algorithm>
#include <charconv>

#include "apimachinery/base64.hpp"
#include "sandbox/apiserver/handlers/responses.hpp"
#include "sandbox/apiserver/strategies/kinds.hpp"

namespace respool::sandbox {
namespace {

constexpr auto kBookmarkEvery = std::chrono::seconds(60);
constexpr auto kBookmarkBeforeEnd = std::chrono::seconds(2);

struct Pending {
  EventType type;
  StoredObject object;
  StoredObject previous;  // no text: none
};

class WatchStream {
 public:
  WatchStream(Engine& engine, const WatchRequest& request, http::ChunkWriter& writer)
      : engine_(engine), request_(request), writer_(writer) {}

  bool send_object(const char* type, const StoredObject& object) {
    std::string line;
    if (request_.table) {
      Json presented = engine_.present(*request_.type, *object.obj());
      TableRequest tr = request_.table_request;
      tr.columns = first_table_;
      first_table_ = false;
      OJson meta = {{"resourceVersion", std::to_string(object.rv)}};
      OJson table = make_table(*request_.type, {&presented}, meta, tr, engine_.clock().now());
      line = std::string("{\"type\":\"") + type +
             "\",\"object\":" + table.dump(-1, ' ', false, Json::error_handler_t::replace) + "}\n";
    } else {
      auto text = engine_.present_text(*request_.type, object);
      line.reserve(text->size() + 32);
      line.append("{\"type\":\"").append(type).append("\",\"object\":").append(*text).append("}\n");
    }
    return writer_.write(line);
  }

  bool send_bookmark(std::uint64_t rv, bool initial_end) {
    Json obj = bookmark_object(*request_.type);
    obj["metadata"]["resourceVersion"] = std::to_string(rv);
    if (initial_end) {
      std::string blueprint = std::string("{\"kind\":\"") + request_.type->list_kind +
                              "\",\"apiVersion\":\"" + request_.type->api_version() +
                              "\",\"metadata\":{},\"items\":null}\n";
      obj["metadata"]["annotations"] = {
          {"k8s.io/initial-events-end", "true"},
          {"kubernetes.io/initial-events-list-blueprint", apimachinery::base64_encode(blueprint)}};
    }
    return writer_.write("{\"type\":\"BOOKMARK\",\"object\":" + to_text(obj) + "}\n");
  }

  // Sends one stored change as this watch's selectors see it.
  bool send_change(const Pending& p) {
    const ResourceType& type = *request_.type;
    bool now = p.type != EventType::Deleted && selected(type, p.object, request_.selectors);
    bool before = p.previous.text && selected(type, p.previous, request_.selectors);
    if (p.type == EventType::Deleted) {
      return before ? send_object("DELETED", p.object) : true;
    }
    if (now && !before) return send_object("ADDED", p.object);
    if (now && before) return send_object("MODIFIED", p.object);
    if (!now && before) {
      // Leaving the selection: the previous state, carrying this event's resourceVersion.
      Json prev = *p.previous.obj();
      prev["metadata"]["resourceVersion"] = std::to_string(p.object.rv);
      return send_object("DELETED", StoredObject::of(std::move(prev), p.object.rv));
    }
    return true;
  }

 private:
  Engine& engine_;
  const WatchRequest& request_;
  http::ChunkWriter& writer_;
  bool first_table_ = true;
};

http::Headers watch_headers() {
  return api_headers("application/json");
}

std::string too_old(std::uint64_t asked, std::uint64_t horizon) {
  return "too old resource version: " + std::to_string(asked) + " (" + std::to_string(horizon) +
         ")";
}

void stream_error(http::Responder& responder, const ApiError& error) {
  http::ChunkWriter& w = responder.stream(200, watch_headers());
  w.write(error_event(error));
}

bool in_scope(const WatchRequest& r, const std::string& key) {
  if (!r.type->namespaced || r.ns.empty()) return true;
  return key.size() > r.ns.size() && key.compare(0, r.ns.size(), r.ns) == 0 &&
         key[r.ns.size()] == '/';
}

// The changes of the collection after `cursor`, in the watch's namespace.
std::vector<Pending> changes_after(const Collection& coll, std::uint64_t cursor,
                                   const WatchRequest& request) {
  std::vector<Pending> batch;
  auto first = std::upper_bound(coll.history.begin(), coll.history.end(), cursor,
                                [](std::uint64_t rv, const HistoryEvent& e) { return rv < e.rv; });
  for (auto it = first; it != coll.history.end(); ++it) {
    const ObjectIndex& index = *it->object.index;  // every stored change has one
    if (in_scope(request, Store::key(index.ns, index.name)))
      batch.push_back({it->type, it->object, it->previous});
  }
  return batch;
}

// A bookmark every minute after `from`, and one just before the deadline.
runtime::TimePoint next_bookmark_after(runtime::TimePoint from, runtime::TimePoint deadline) {
  runtime::TimePoint next = from + kBookmarkEvery;
  if (deadline - kBookmarkBeforeEnd > from) next = std::min(next, deadline - kBookmarkBeforeEnd);
  return next;
}

}  // namespace

std::string error_event(const ApiError& error) {
  return "{\"type\":\"ERROR\",\"object\":" + error.to_text() + "}\n";
}

void serve_watch(Engine& engine, FaultInjector& faults, const std::atomic<bool>& stopping,
                 const WatchRequest& request, http::Responder& responder) {
  const std::string& rv_text = request.resource_version;
  bool from_now = rv_text.empty() || rv_text == "0";
  std::uint64_t asked = 0;
  if (!from_now) {
    auto [p, ec] = std::from_chars(rv_text.data(), rv_text.data() + rv_text.size(), asked);
    if (ec != std::errc() || p != rv_text.data() + rv_text.size()) {
      responder.respond(error_response(bad_request("invalid resource version: " + rv_text)));
      return;
    }
  }
  bool initial = request.send_initial_events.value_or(from_now);
  runtime::Clock& clock = engine.clock();
  Store& store = engine.store();
  std::uint64_t generation = faults.watch_generation();

  std::vector<StoredObject> snapshot;
  std::uint64_t cursor = 0;
  std::shared_ptr<Collection> coll;
  {
    std::unique_lock lock(store.mutex());
    coll = store.collection(request.type->storage);
    if (faults.take_watch_expiry()) {
      lock.unlock();
      stream_error(responder, expired(too_old(asked, coll->horizon)));
      return;
    }
    if (!from_now && asked < coll->horizon && !initial) {
      std::uint64_t horizon = coll->horizon;
      lock.unlock();
      stream_error(responder, expired(too_old(asked, horizon)));
      return;
    }
    cursor = initial || from_now ? store.rv() : asked;
    if (initial) {
      std::string prefix = request.type->namespaced && !request.ns.empty() ? request.ns + "/" : "";
      for (auto it = coll->items.lower_bound(prefix); it != coll->items.end(); ++it) {
        if (!prefix.empty() && it->first.compare(0, prefix.size(), prefix) != 0) break;
        if (selected(*request.type, it->second, request.selectors)) {
          snapshot.push_back(it->second);
        }
      }
    }
  }

  // The deadline counts from before the answer starts, so a client that saw the headers knows
  // when the stream ends.
  runtime::TimePoint start = clock.now();
  http::ChunkWriter& writer = responder.stream(200, watch_headers());
  WatchStream out(engine, request, writer);
  for (const StoredObject& s : snapshot) {
    if (!out.send_object("ADDED", s)) return;
  }
  snapshot.clear();
  if (initial && request.allow_bookmarks && !out.send_bookmark(cursor, true)) return;

  runtime::TimePoint deadline = start + request.timeout;
  runtime::TimePoint next_bookmark = next_bookmark_after(start, deadline);
  while (true) {
    std::vector<Pending> batch;
    bool expired_behind = false;
    bool ended = false;
    {
      std::unique_lock lock(store.mutex());
      auto has_news = [&] { return !coll->history.empty() && coll->history.back().rv > cursor; };
      auto done = [&] {
        return stopping.load() || writer.closed() || coll->dropped ||
               faults.watch_generation() != generation;
      };
      runtime::TimePoint wake =
          request.allow_bookmarks ? std::min(deadline, next_bookmark) : deadline;
      clock.wait_until(store.changed(), lock, wake, [&] { return has_news() || done(); });
      if (done()) {
        ended = true;
      } else {
        if (cursor < coll->horizon) {
          expired_behind = true;
        } else {
          batch = changes_after(*coll, cursor, request);
          cursor = store.rv();
        }
      }
    }
    if (ended) return;
    if (expired_behind) {
      writer.write(error_event(expired(too_old(cursor, coll->horizon))));
      return;
    }
    for (const Pending& p : batch) {
      if (!out.send_change(p)) return;
    }
    runtime::TimePoint now = clock.now();
    if (now >= deadline) return;
    if (request.allow_bookmarks && now >= next_bookmark) {
      if (!out.send_bookmark(cursor, false)) return;
      next_bookmark = next_bookmark_after(now, deadline);
    }
  }
}

}  // namespace respool::sandbox
