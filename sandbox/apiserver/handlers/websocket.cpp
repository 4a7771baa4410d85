#include "sandbox/apiserver/handlers/websocket.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <cstdint>

namespace respool::sandbox::websocket {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// The comma-separated tokens of a header, trimmed.
std::vector<std::string> tokens(std::string_view value) {
  std::vector<std::string> out;
  while (!value.empty()) {
    const auto comma = value.find(',');
    std::string_view part = value.substr(0, comma);
    value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
    while (!part.empty() && (part.front() == ' ' || part.front() == '\t'))
      part.remove_prefix(1);
    while (!part.empty() && (part.back() == ' ' || part.back() == '\t'))
      part.remove_suffix(1);
    if (!part.empty()) out.emplace_back(part);
  }
  return out;
}

std::string frame(unsigned char opcode, std::string_view payload) {
  std::string out;
  out += static_cast<char>(0x80 | opcode);  // FIN, no extensions
  const std::size_t n = payload.size();
  if (n < 126) {
    out += static_cast<char>(n);
  } else if (n <= 0xffff) {
    out += static_cast<char>(126);
    out += static_cast<char>((n >> 8) & 0xff);
    out += static_cast<char>(n & 0xff);
  } else {
    out += static_cast<char>(127);
    for (int shift = 56; shift >= 0; shift -= 8)
      out += static_cast<char>((static_cast<std::uint64_t>(n) >> shift) & 0xff);
  }
  out += payload;
  return out;
}

}  // namespace

bool is_upgrade(const http::Headers& headers) {
  bool connection_upgrade = false;
  for (const auto& t : tokens(headers.get("Connection").value_or("")))
    connection_upgrade = connection_upgrade || lower(t) == "upgrade";
  return connection_upgrade && lower(headers.get("Upgrade").value_or("")) == "websocket" &&
         !headers.get("Sec-WebSocket-Key").value_or("").empty() &&
         headers.get("Sec-WebSocket-Version").value_or("") == "13";
}

std::string accept_key(std::string_view client_key) {
  const std::string input = std::string(client_key) + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(input.data(), input.size(), digest, &length, EVP_sha1(), nullptr);
  unsigned char encoded[64];
  const int n = EVP_EncodeBlock(encoded, digest, static_cast<int>(length));
  return std::string(reinterpret_cast<const char*>(encoded), static_cast<std::size_t>(n));
}

std::optional<std::string> choose_protocol(const http::Headers& headers,
                                           const std::vector<std::string>& supported) {
  for (const auto& [name, value] : headers.fields()) {
    if (lower(name) != "sec-websocket-protocol") continue;
    for (const auto& p : tokens(value))
      if (std::find(supported.begin(), supported.end(), p) != supported.end()) return p;
  }
  return std::nullopt;
}

std::string binary_frame(std::string_view payload) {
  return frame(0x2, payload);
}

std::string close_frame(int code) {
  const char payload[2] = {static_cast<char>((code >> 8) & 0xff), static_cast<char>(code & 0xff)};
  return frame(0x8, std::string_view(payload, 2));
}

}  // namespace respool::sandbox::websocket
