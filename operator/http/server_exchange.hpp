#pragma once
// Internal: how a handler's answer goes on the wire (whole, or as chunks as they are written).

#include <atomic>
#include <chrono>
#include <initializer_list>
#include <optional>
#include <string>

#include "operator/http/server.hpp"
#include "operator/http/transport.hpp"

namespace respool::http::detail {

class Exchange final : public Responder, public ChunkWriter {
 public:
  struct RequestTraits {
    bool head = false;        // HEAD: headers only
    bool http10 = false;      // no chunked encoding: a stream ends with the connection
    bool keep_alive = false;  // the client lets the connection carry another request
  };
  Exchange(Transport& transport, std::chrono::milliseconds write_timeout,
           const std::atomic<bool>& stopping, RequestTraits request);

  void respond(Response response) override;
  ChunkWriter& stream(int status, Headers headers) override;
  ChunkWriter* upgrade(Headers headers) override;
  bool write(std::string_view data) override;
  bool closed() const override;

  // Completes the exchange once the handler has returned (or thrown): a 500 when it gave no
  // answer, the terminating chunk of a stream. Whether the connection can take another request.
  bool finish(bool handler_threw);

 private:
  enum class State { Waiting, Responded, Streaming, Upgraded };

  std::string head(int status, const Headers& headers, std::optional<std::size_t> content_length);
  bool send(std::initializer_list<std::string_view> pieces);

  Transport& transport_;
  std::chrono::milliseconds write_timeout_;
  const std::atomic<bool>& stopping_;
  RequestTraits request_;
  State state_ = State::Waiting;
  bool keep_alive_;
  bool chunked_ = false;
  bool body_allowed_ = true;  // false for HEAD and for statuses without a body
  bool broken_ = false;       // a write failed: the peer is gone
};

}  // namespace respool::http::detail
