#pragma once
// A WebSocket client for pods/exec as client-go's websocket executor talks it: GET with
// Upgrade, Sec-WebSocket-Protocol and the bearer token; then binary messages whose first byte
// is the channel (1 stdout, 2 stderr, 3 the error channel's Status) until the close frame. The
// frames are read by hand (RFC 6455 section 5.2), so that the server's framing is checked
// independently of its own code.

#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <string>

#include "operator/http/message.hpp"
#include "operator/kube/config.hpp"

namespace respool::sandbox::test {

// The key of RFC 6455's example and the accept value it gives.
inline constexpr const char* kWebSocketKey = "dGhlIHNhbXBsZSBub25jZQ==";
inline constexpr const char* kWebSocketAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";

struct ExecReply {
  int http_status = 0;   // 101 when upgraded
  std::string accept;    // Sec-WebSocket-Accept
  std::string protocol;  // the subprotocol the server chose
  std::string body;      // the answer when not upgraded
  std::string out, err, status;
  bool closed = false;  // the server sent the close frame (normal closure)
};

inline ExecReply ws_exec(const kube::ClusterConfig& config, const std::string& target,
                         const std::string& protocols = "v5.channel.k8s.io, v4.channel.k8s.io") {
  namespace net = boost::asio;
  namespace beast = boost::beast;
  namespace bhttp = beast::http;
  ExecReply reply;
  auto url = http::parse_url(config.server);
  if (!url) return reply;
  net::io_context ioc;
  net::ssl::context tls(net::ssl::context::tls_client);
  tls.set_verify_mode(net::ssl::verify_none);  // the test trusts its own in-process server
  beast::ssl_stream<beast::tcp_stream> stream(ioc, tls);
  net::ip::tcp::resolver resolver(ioc);
  beast::get_lowest_layer(stream).expires_after(std::chrono::seconds(20));
  beast::get_lowest_layer(stream).connect(resolver.resolve(url->host, std::to_string(url->port)));
  stream.handshake(net::ssl::stream_base::client);

  bhttp::request<bhttp::empty_body> request(bhttp::verb::get, target, 11);
  request.set(bhttp::field::host, url->host);
  request.set(bhttp::field::upgrade, "websocket");
  request.set(bhttp::field::connection, "Upgrade");
  request.set(bhttp::field::sec_websocket_key, kWebSocketKey);
  request.set(bhttp::field::sec_websocket_version, "13");
  request.set(bhttp::field::sec_websocket_protocol, protocols);
  request.set(bhttp::field::authorization, "Bearer " + config.token);
  bhttp::write(stream, request);
  beast::flat_buffer buffer;
  bhttp::response_parser<bhttp::string_body> parser;
  bhttp::read(stream, buffer, parser);
  auto& response = parser.get();
  reply.http_status = static_cast<int>(response.result_int());
  if (reply.http_status != 101) {
    reply.body = response.body();
    return reply;
  }
  reply.accept = std::string(response[bhttp::field::sec_websocket_accept]);
  reply.protocol = std::string(response[bhttp::field::sec_websocket_protocol]);
  // Frames: FIN+opcode, length (7 bits, or 16 / 64 bits), no mask from a server, payload.
  auto need = [&](std::size_t n) {
    beast::error_code ec;
    while (buffer.size() < n && !ec)
      buffer.commit(stream.read_some(buffer.prepare(4096), ec));
    return buffer.size() >= n;
  };
  for (;;) {
    if (!need(2)) break;
    const auto* head = static_cast<const unsigned char*>(buffer.data().data());
    const int opcode = head[0] & 0x0f;
    std::size_t length = head[1] & 0x7f;
    std::size_t at = 2;
    if (length >= 126) {
      const std::size_t bytes = length == 126 ? 2 : 8;
      if (!need(2 + bytes)) break;
      head = static_cast<const unsigned char*>(buffer.data().data());
      length = 0;
      for (std::size_t i = 0; i < bytes; ++i)
        length = (length << 8) | head[2 + i];
      at += bytes;
    }
    if (!need(at + length)) break;
    const std::string payload(static_cast<const char*>(buffer.data().data()) + at, length);
    buffer.consume(at + length);
    if (opcode == 0x8) {
      reply.closed = payload.size() >= 2 && payload[0] == 0x03 && payload[1] == char(0xe8);
      break;
    }
    if (opcode != 0x2 || payload.empty()) continue;
    const std::string data = payload.substr(1);
    if (payload[0] == 1) reply.out += data;
    if (payload[0] == 2) reply.err += data;
    if (payload[0] == 3) reply.status += data;
  }
  return reply;
}

}  // namespace respool::sandbox::test
