#pragma once
// Internal: pieces of the HTTP/1.1 wire format shared by the client and the server.

#include <boost/beast/http/fields.hpp>

#include <cstdint>
#include <string>
#include <string_view>

#include "operator/http/message.hpp"

namespace respool::http::detail {

// The bound on a header block, as Go's server uses (1 MiB).
inline constexpr std::uint32_t kMaxHeaderBytes = 1 << 20;

// A token (RFC 9110): a method or a header field name.
bool is_token(std::string_view s);
// A header field value that cannot break the message: no CR, LF or NUL.
bool is_field_value(std::string_view s);

// Header fields of a parsed message, in order.
Headers to_headers(const boost::beast::http::fields& fields);

// The current time as an HTTP date: "Sun, 06 Nov 1994 08:49:37 GMT".
std::string http_date();

}  // namespace respool::http::detail
