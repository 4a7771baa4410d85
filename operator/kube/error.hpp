#pragma once
// Typed API errors, carried in std::expected by every client call.

#include <chrono>
#include <expected>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace respool::kube {

using Json = nlohmann::json;

struct Error {
  enum class Kind {
    BadRequest,             // 400
    Unauthorized,           // 401
    Forbidden,              // 403
    NotFound,               // 404
    MethodNotAllowed,       // 405
    NotAcceptable,          // 406
    AlreadyExists,          // 409, reason AlreadyExists
    Conflict,               // 409, any other reason (stale resourceVersion)
    Gone,                   // 410 (reason Expired or Gone): relist
    RequestEntityTooLarge,  // 413
    UnsupportedMediaType,   // 415
    Invalid,                // 422
    TooManyRequests,        // 429 (also an eviction a PodDisruptionBudget refuses)
    ServerError,            // 5xx other than 504
    Timeout,                // 504, reason Timeout, or no answer in time
    Network,                // no HTTP answer: refused, reset, TLS failure
    Decode,                 // an answer that is not what the API promises
    Cancelled,              // the caller stopped waiting (shutdown)
    Config,                 // the client could not be configured (kubeconfig, files)
  };
  Kind kind = Kind::ServerError;
  int code = 0;         // HTTP status, 0 when there was no answer
  std::string reason;   // Status.reason ("NotFound", "Conflict", ...)
  std::string message;  // Status.message, or the network failure
  std::optional<std::chrono::seconds>
      retry_after;  // Retry-After header or details.retryAfterSeconds
  Json status;      // the whole Status object, when the server sent one

  bool is(Kind k) const { return kind == k; }
  // "NotFound: nodes \"n-1\" not found"
  std::string describe() const;
};

std::string_view to_string(Error::Kind kind);

// Maps an HTTP status and an optional Status body to an Error (as client-go's
// apierrors.FromObject does).
Error error_from_response(int code, std::string_view body,
                          std::optional<std::chrono::seconds> retry_after = std::nullopt);

template <class T>
using Result = std::expected<T, Error>;

inline std::unexpected<Error> fail(Error::Kind kind, std::string message, int code = 0) {
  Error e;
  e.kind = kind;
  e.code = code;
  e.message = std::move(message);
  return std::unexpected(std::move(e));
}

}  // namespace respool::kube
