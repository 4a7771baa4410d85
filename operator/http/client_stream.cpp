// A response body read as it arrives: Beast's parser decodes chunked, Content-Length or
// until-close framing into a buffer, and lines are cut from what has arrived so far.

#include <atomic>
#include <vector>

#include "operator/http/client_connection.hpp"

namespace respool::http::detail {

namespace {

namespace bhttp = beast::http;

class BodyStream final : public Stream {
 public:
  BodyStream(std::unique_ptr<Transport> transport, std::unique_ptr<StreamParser> parser,
             std::string what)
      : transport_(std::move(transport)),
        parser_(std::move(parser)),
        status_(parser_->get().result_int()),
        headers_(to_headers(parser_->get())),
        what_(std::move(what)),
        chunk_(64 * 1024) {}

  int status() const override { return status_; }
  const Headers& headers() const override { return headers_; }

  std::expected<std::optional<std::string>, NetError> read_line(
      std::chrono::milliseconds idle_timeout) override {
    for (;;) {
      if (cancelled_) return std::unexpected(cancelled());
      auto newline = buffered_.find('\n', scanned_);
      if (newline != std::string::npos) {
        std::string line = buffered_.substr(start_, newline - start_);
        start_ = scanned_ = newline + 1;
        compact();
        return line;
      }
      scanned_ = buffered_.size();
      if (ended_) {
        if (start_ == buffered_.size()) return std::optional<std::string>();
        std::string last = buffered_.substr(start_);  // a final line without '\n'
        start_ = scanned_ = buffered_.size();
        return last;
      }
      if (auto ok = fill(Clock::now() + idle_timeout); !ok) return std::unexpected(ok.error());
    }
  }

  std::expected<std::string, NetError> read_all(std::chrono::milliseconds timeout) override {
    const Clock::time_point deadline = Clock::now() + timeout;
    while (!ended_) {
      if (auto ok = fill(deadline); !ok) return std::unexpected(ok.error());
    }
    std::string rest = buffered_.substr(start_);
    buffered_.clear();
    start_ = scanned_ = 0;
    return rest;
  }

  void cancel() override {
    if (!cancelled_.exchange(true)) transport_->post_close();
  }

 private:
  NetError cancelled() const { return {NetError::Kind::Cancelled, what_ + ": cancelled"}; }

  // Reads what the server sends next (at most one socket read) and appends its body bytes.
  std::expected<void, NetError> fill(Clock::time_point deadline) {
    if (failed_) return std::unexpected(*failed_);
    if (parser_->is_done()) {
      ended_ = true;
      return {};
    }
    auto& body = parser_->get().body();
    body.data = chunk_.data();
    body.size = chunk_.size();
    beast::error_code ec = transport_->run(deadline, [&](auto& stream, auto handler) {
      bhttp::async_read_some(stream, transport_->buffer(), *parser_, std::move(handler));
    });
    buffered_.append(chunk_.data(), chunk_.size() - body.size);
    if (ec == bhttp::error::need_buffer) ec = {};  // the chunk buffer is full: more to come
    if (ec == net::ssl::error::stream_truncated && !parser_->is_done()) {
      ec = {};  // a body delimited by the close, without TLS close_notify
      parser_->put_eof(ec);
    }
    if (ec) {
      failed_ = cancelled_ ? cancelled() : to_net_error(ec, what_, transport_->ssl());
      return std::unexpected(*failed_);
    }
    if (parser_->is_done()) ended_ = true;
    return {};
  }

  // Drops the lines already returned once they take much room.
  void compact() {
    if (start_ < 64 * 1024 || start_ < buffered_.size() / 2) return;
    buffered_.erase(0, start_);
    scanned_ -= start_;
    start_ = 0;
  }

  std::unique_ptr<Transport> transport_;
  std::unique_ptr<StreamParser> parser_;
  int status_;
  Headers headers_;
  std::string what_;
  std::vector<char> chunk_;
  std::string buffered_;     // body bytes received
  std::size_t start_ = 0;    // where the next line starts
  std::size_t scanned_ = 0;  // bytes from start_ already known to hold no '\n'
  bool ended_ = false;
  std::optional<NetError> failed_;
  std::atomic<bool> cancelled_{false};
};

}  // namespace

std::unique_ptr<Stream> make_stream(std::unique_ptr<Transport> transport,
                                    std::unique_ptr<StreamParser> parser, std::string what) {
  return std::make_unique<BodyStream>(std::move(transport), std::move(parser), std::move(what));
}

}  // namespace respool::http::detail
