#pragma once
// What failed while reconciling, and how. Callers branch on the kind, never on the words: a
// write lost to a concurrent change (409) or to the object's going (404) is decided again from
// a newer cache; anything else is reported on the object (ReconcileFailed) and retried with
// backoff. The message says what respool was doing and what the API server answered.

#include <expected>
#include <string>

#include "operator/kube/error.hpp"

namespace respool::reconcilers {

struct ReconcileError {
  kube::Error::Kind kind = kube::Error::Kind::ServerError;
  std::string message;  // "claiming node n-3: Forbidden (403): ..."

  // A write lost to a concurrent change or to the object's going: the next round decides again.
  bool lost_race() const {
    return kind == kube::Error::Kind::Conflict || kind == kube::Error::Kind::NotFound;
  }
  bool is(kube::Error::Kind k) const { return kind == k; }
};

// The result of a step of a reconcile.
template <class T = void>
using Outcome = std::expected<T, ReconcileError>;

// "doing: <the API server's answer>", of the API error's kind.
inline std::unexpected<ReconcileError> failed(const std::string& doing, const kube::Error& e) {
  return std::unexpected(ReconcileError{e.kind, doing + ": " + e.describe()});
}

// A failure that is no API answer (a process that could not be stopped, a bad reading).
inline std::unexpected<ReconcileError> failed(std::string what) {
  return std::unexpected(ReconcileError{kube::Error::Kind::ServerError, std::move(what)});
}

// A write lost to a concurrent change or to the object's going (409, 404).
inline bool lost_race(const kube::Error& e) {
  return e.is(kube::Error::Kind::Conflict) || e.is(kube::Error::Kind::NotFound);
}

}  // namespace respool::reconcilers
