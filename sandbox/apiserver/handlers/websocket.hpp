#pragma once
// The server side of RFC 6455 as far as the exec subresource needs it: the opening handshake
// (Sec-WebSocket-Accept, the subprotocol chosen from the client's list) and unmasked server
// frames (binary messages and the close frame).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "operator/http/message.hpp"

namespace respool::sandbox::websocket {

// Whether the request asks to switch to WebSocket (Connection: Upgrade, Upgrade: websocket, a
// key, version 13).
bool is_upgrade(const http::Headers& headers);

// base64(SHA-1(key + the RFC's GUID)).
std::string accept_key(std::string_view client_key);

// The first of the client's Sec-WebSocket-Protocol values (in its order) that `supported` has.
std::optional<std::string> choose_protocol(const http::Headers& headers,
                                           const std::vector<std::string>& supported);

// One unfragmented binary message.
std::string binary_frame(std::string_view payload);
// The close frame with a status code (1000: normal closure).
std::string close_frame(int code = 1000);

// The subprotocols of pods/exec and pods/attach, in the order the server prefers them.
inline const std::vector<std::string> kStreamProtocols = {"v5.channel.k8s.io", "v4.channel.k8s.io"};

// A boolean query parameter of exec and attach (stdin, stdout, stderr, tty) as Go's
// strconv.ParseBool reads the common spellings.
inline bool stream_flag(const http::Target& t, std::string_view name) {
  auto v = t.param(name);
  return v && (*v == "true" || *v == "1" || *v == "True" || *v == "t");
}

}  // namespace respool::sandbox::websocket
