#include "operator/kube/error.hpp"

namespace respool::kube {

std::string_view to_string(Error::Kind kind) {
  switch (kind) {
    case Error::Kind::BadRequest:
      return "BadRequest";
    case Error::Kind::Unauthorized:
      return "Unauthorized";
    case Error::Kind::Forbidden:
      return "Forbidden";
    case Error::Kind::NotFound:
      return "NotFound";
    case Error::Kind::MethodNotAllowed:
      return "MethodNotAllowed";
    case Error::Kind::NotAcceptable:
      return "NotAcceptable";
    case Error::Kind::AlreadyExists:
      return "AlreadyExists";
    case Error::Kind::Conflict:
      return "Conflict";
    case Error::Kind::Gone:
      return "Gone";
    case Error::Kind::RequestEntityTooLarge:
      return "RequestEntityTooLarge";
    case Error::Kind::UnsupportedMediaType:
      return "UnsupportedMediaType";
    case Error::Kind::Invalid:
      return "Invalid";
    case Error::Kind::TooManyRequests:
      return "TooManyRequests";
    case Error::Kind::ServerError:
      return "ServerError";
    case Error::Kind::Timeout:
      return "Timeout";
    case Error::Kind::Network:
      return "Network";
    case Error::Kind::Decode:
      return "Decode";
    case Error::Kind::Cancelled:
      return "Cancelled";
    case Error::Kind::Config:
      return "Config";
  }
  return "Unknown";
}

std::string Error::describe() const {
  std::string out(to_string(kind));
  if (code != 0) out += " (" + std::to_string(code) + ")";
  if (!message.empty()) out += ": " + message;
  return out;
}

namespace {

Error::Kind kind_for(int code, std::string_view reason) {
  switch (code) {
    case 400:
      return Error::Kind::BadRequest;
    case 401:
      return Error::Kind::Unauthorized;
    case 403:
      return Error::Kind::Forbidden;
    case 404:
      return Error::Kind::NotFound;
    case 405:
      return Error::Kind::MethodNotAllowed;
    case 406:
      return Error::Kind::NotAcceptable;
    case 409:
      return reason == "AlreadyExists" ? Error::Kind::AlreadyExists : Error::Kind::Conflict;
    case 410:
      return Error::Kind::Gone;
    case 413:
      return Error::Kind::RequestEntityTooLarge;
    case 415:
      return Error::Kind::UnsupportedMediaType;
    case 422:
      return Error::Kind::Invalid;
    case 429:
      return Error::Kind::TooManyRequests;
    case 504:
      return Error::Kind::Timeout;
    default:
      break;
  }
  if (reason == "Timeout") return Error::Kind::Timeout;
  return Error::Kind::ServerError;
}

}  // namespace

Error error_from_response(int code, std::string_view body,
                          std::optional<std::chrono::seconds> retry_after) {
  Error e;
  e.code = code;
  e.retry_after = retry_after;
  Json status = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (status.is_object() && status.value("kind", "") == "Status") {
    e.reason = status.value("reason", "");
    e.message = status.value("message", "");
    if (!e.retry_after) {
      auto details = status.find("details");
      if (details != status.end() && details->is_object()) {
        auto after = details->find("retryAfterSeconds");
        if (after != details->end() && after->is_number_integer()) {
          e.retry_after = std::chrono::seconds(after->get<std::int64_t>());
        }
      }
    }
    e.status = std::move(status);
  } else {
    // Not a Status (a proxy's page, "404 page not found"): keep the text, bounded.
    e.message = std::string(body.substr(0, 512));
    while (!e.message.empty() && (e.message.back() == '\n' || e.message.back() == '\r')) {
      e.message.pop_back();
    }
  }
  e.kind = kind_for(code, e.reason);
  return e;
}

}  // namespace respool::kube
