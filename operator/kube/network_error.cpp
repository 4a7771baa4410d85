#include "operator/kube/network_error.hpp"

namespace respool::kube {

Error network_error(const http::NetError& e) {
  Error err;
  switch (e.kind) {
    case http::NetError::Kind::Timeout:
      err.kind = Error::Kind::Timeout;
      break;
    case http::NetError::Kind::Cancelled:
      err.kind = Error::Kind::Cancelled;
      break;
    default:
      err.kind = Error::Kind::Network;
      break;
  }
  err.message = std::string(http::to_string(e.kind)) + ": " + e.message;
  return err;
}

}  // namespace respool::kube
