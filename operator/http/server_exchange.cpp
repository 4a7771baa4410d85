#include "operator/http/server_exchange.hpp"

#include <cstdio>
#include <stdexcept>

#include "operator/http/wire.hpp"

namespace respool::http::detail {

namespace {

// 1xx, 204 and 304 answers never carry a body (RFC 9112 section 6.3).
bool allows_body(int status) {
  return !(status >= 100 && status < 200) && status != 204 && status != 304;
}

}  // namespace

Exchange::Exchange(Transport& transport, std::chrono::milliseconds write_timeout,
                   const std::atomic<bool>& stopping, RequestTraits request)
    : transport_(transport),
      write_timeout_(write_timeout),
      stopping_(stopping),
      request_(request),
      keep_alive_(request.keep_alive) {}

void Exchange::respond(Response response) {
  if (state_ != State::Waiting) throw std::logic_error("respond(): the response was already sent");
  state_ = State::Responded;
  bool body = allows_body(response.status);
  std::string head_text =
      head(response.status, response.headers,
           body ? std::optional<std::size_t>(response.body.size()) : std::nullopt);
  send({head_text, body && !request_.head ? std::string_view(response.body) : std::string_view()});
}

ChunkWriter& Exchange::stream(int status, Headers headers) {
  if (state_ != State::Waiting) throw std::logic_error("stream(): the response was already sent");
  state_ = State::Streaming;
  // An HTTP/1.0 client knows no chunks: the body then ends with the connection.
  if (request_.http10) {
    keep_alive_ = false;
  } else {
    chunked_ = allows_body(status);
  }
  body_allowed_ = allows_body(status) && !request_.head;
  send({head(status, headers, std::nullopt)});
  return *this;
}

ChunkWriter* Exchange::upgrade(Headers headers) {
  if (state_ != State::Waiting) throw std::logic_error("upgrade(): the response was already sent");
  if (request_.http10 || request_.head) return nullptr;
  state_ = State::Upgraded;
  keep_alive_ = false;  // the connection now speaks the new protocol until it closes
  std::string out = "HTTP/1.1 101 Switching Protocols\r\n";
  for (const auto& [name, value] : headers.fields()) {
    if (!is_token(name) || !is_field_value(value)) continue;
    out += name + ": " + value + "\r\n";
  }
  out += "\r\n";
  send({out});
  return this;
}

bool Exchange::write(std::string_view data) {
  if (state_ != State::Streaming && state_ != State::Upgraded)
    throw std::logic_error("write(): stream() was not called");
  if (broken_ || stopping_) {
    broken_ = true;
    return false;
  }
  if (state_ == State::Upgraded) return data.empty() || send({data});
  if (data.empty() || !body_allowed_) return true;  // an empty chunk would end the body
  if (!chunked_) return send({data});
  char size_line[24];
  int length = std::snprintf(size_line, sizeof size_line, "%zx\r\n", data.size());
  return send({std::string_view(size_line, static_cast<std::size_t>(length)), data, "\r\n"});
}

bool Exchange::closed() const {
  return broken_ || stopping_ || transport_.peer_closed();
}

bool Exchange::finish(bool handler_threw) {
  switch (state_) {
    case State::Waiting: {
      Response response;
      response.status = 500;
      response.headers.set("Content-Type", "text/plain; charset=utf-8");
      response.body = handler_threw ? "Internal Server Error: the handler failed\n"
                                    : "Internal Server Error: the handler gave no response\n";
      respond(std::move(response));
      break;
    }
    case State::Responded:
    case State::Upgraded:
      break;
    case State::Streaming:
      if (handler_threw) {
        broken_ = true;  // the body is incomplete: closing says so, a last chunk would not
      } else if (chunked_ && body_allowed_ && !stopping_) {
        send({"0\r\n\r\n"});
      }
      break;
  }
  return keep_alive_ && !broken_ && !stopping_;
}

std::string Exchange::head(int status, const Headers& headers,
                           std::optional<std::size_t> content_length) {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " ";
  out += reason_phrase(status);
  out += "\r\n";
  bool has_date = false;
  for (const auto& [name, value] : headers.fields()) {
    if (!is_token(name) || !is_field_value(value)) continue;  // would break the message
    if (iequals(name, "Content-Length") || iequals(name, "Transfer-Encoding")) continue;
    if (iequals(name, "Connection")) {
      if (iequals(value, "close")) keep_alive_ = false;
      continue;
    }
    has_date = has_date || iequals(name, "Date");
    out += name + ": " + value + "\r\n";
  }
  if (!has_date) out += "Date: " + http_date() + "\r\n";
  if (content_length) out += "Content-Length: " + std::to_string(*content_length) + "\r\n";
  if (chunked_) out += "Transfer-Encoding: chunked\r\n";
  if (stopping_) keep_alive_ = false;
  if (!keep_alive_) {
    out += "Connection: close\r\n";
  } else if (request_.http10) {
    out += "Connection: keep-alive\r\n";
  }
  out += "\r\n";
  return out;
}

bool Exchange::send(std::initializer_list<std::string_view> pieces) {
  if (broken_) return false;
  if (transport_.write(pieces, Clock::now() + write_timeout_)) {
    broken_ = true;
    return false;
  }
  return true;
}

}  // namespace respool::http::detail
