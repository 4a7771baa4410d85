#pragma once
// The kube::Error of a request that got no HTTP answer (refused, reset, TLS, timeout).

#include "operator/http/client.hpp"
#include "operator/kube/error.hpp"

namespace respool::kube {

// Timeout and Cancelled keep their kind; everything else is Network. The message names the
// transport's reason ("Connect: connect to 127.0.0.1:1: Connection refused").
Error network_error(const http::NetError& e);

}  // namespace respool::kube
