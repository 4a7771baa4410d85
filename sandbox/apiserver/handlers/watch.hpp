#pragma once
// Serving ?watch=true: events strictly after a resourceVersion (or the current state first),
// selector transitions as the watch cache makes them, bookmarks, 410 Expired as an ERROR event,
// Tables for kubectl get -w, and an end at timeoutSeconds, on the client going away, on
// FaultInjector::close_watches() and on server stop.

#include <atomic>
#include <chrono>
#include <optional>
#include <string>

#include "operator/http/server.hpp"
#include "sandbox/apiserver/handlers/faults.hpp"
#include "sandbox/apiserver/printers/tables.hpp"
#include "sandbox/apiserver/registry/engine.hpp"

namespace respool::sandbox {

struct WatchRequest {
  TypePtr type;
  std::string ns;
  Selectors selectors;
  std::string resource_version;             // "", "0" or a number
  std::optional<bool> send_initial_events;  // ?sendInitialEvents=
  bool allow_bookmarks = false;
  std::chrono::seconds timeout{1800};
  bool table = false;  // events carry one-row Tables
  TableRequest table_request;
};

// Validates what can be answered with a Status before the stream starts (400 for a malformed
// resourceVersion); then streams until the watch ends.
void serve_watch(Engine& engine, FaultInjector& faults, const std::atomic<bool>& stopping,
                 const WatchRequest& request, http::Responder& responder);

// The zero-value object a BOOKMARK event carries (metadata.resourceVersion set by the caller).
Json bookmark_object(const ResourceType& type);

// {"type":"ERROR","object":<Status>}
std::string error_event(const ApiError& error);

}  // namespace respool::sandbox
