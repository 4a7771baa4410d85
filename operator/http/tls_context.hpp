#pragma once
// Internal: OpenSSL contexts for the client and the server, and what a verified peer
// certificate says about its holder.

#include <boost/asio/ssl/context.hpp>

#include <expected>
#include <memory>
#include <optional>
#include <string>

#include "operator/http/client.hpp"
#include "operator/http/server.hpp"

namespace respool::http::detail {

// Verifies servers against tls.ca_pem (or the system roots), presents the client certificate.
std::expected<std::shared_ptr<boost::asio::ssl::context>, std::string> make_client_context(
    const ClientTls& tls);

// Prepares one client connection: SNI for a host name, and the host name or IP address the
// server's certificate must carry.
std::expected<void, std::string> prepare_client_ssl(SSL* ssl, const std::string& server_name,
                                                    bool verify);

// Serves tls.cert_pem; when tls.client_ca_pem is set, asks for (without requiring) a client
// certificate and verifies it against that CA.
std::expected<std::shared_ptr<boost::asio::ssl::context>, std::string> make_server_context(
    const ServerTls& tls);

// The subject of the peer's certificate when the handshake verified it.
std::optional<PeerIdentity> verified_peer_identity(SSL* ssl);

}  // namespace respool::http::detail
