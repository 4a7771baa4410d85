#include "operator/http/tls_context.hpp"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "operator/http/openssl_util.hpp"

namespace respool::http::detail {

namespace ssl = boost::asio::ssl;

namespace {

std::expected<void, std::string> trust(SSL_CTX* ctx, const std::string& pem) {
  auto certificates = read_certificates(pem);
  if (!certificates) return std::unexpected(certificates.error());
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  for (const X509Ptr& certificate : *certificates) {
    if (X509_STORE_add_cert(store, certificate.get()) != 1) {
      return std::unexpected(take_openssl_errors());
    }
  }
  return {};
}

std::expected<void, std::string> use_identity(SSL_CTX* ctx, const std::string& cert_pem,
                                              const std::string& key_pem) {
  auto chain = read_certificates(cert_pem);
  if (!chain) return std::unexpected("certificate: " + chain.error());
  auto key = read_private_key(key_pem);
  if (!key) return std::unexpected("key: " + key.error());
  if (SSL_CTX_use_certificate(ctx, chain->front().get()) != 1) {
    return std::unexpected("certificate: " + take_openssl_errors());
  }
  for (std::size_t i = 1; i < chain->size(); ++i) {
    if (SSL_CTX_add1_chain_cert(ctx, (*chain)[i].get()) != 1) {
      return std::unexpected("certificate chain: " + take_openssl_errors());
    }
  }
  if (SSL_CTX_use_PrivateKey(ctx, key->get()) != 1 || SSL_CTX_check_private_key(ctx) != 1) {
    return std::unexpected("key does not match the certificate: " + take_openssl_errors());
  }
  return {};
}

// The server speaks HTTP/1.1 only: say so to clients that offer ALPN (kubectl offers h2 first).
int select_http11(SSL*, const unsigned char** out, unsigned char* out_length,
                  const unsigned char* offered, unsigned int offered_length, void*) {
  static constexpr unsigned char kSupported[] = "\x08http/1.1";
  unsigned char* selected = nullptr;
  unsigned char selected_length = 0;
  if (SSL_select_next_proto(&selected, &selected_length, kSupported, sizeof kSupported - 1, offered,
                            offered_length) != OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_NOACK;
  }
  *out = selected;
  *out_length = selected_length;
  return SSL_TLSEXT_ERR_OK;
}

bool is_ip_literal(const std::string& host) {
  unsigned char buffer[16];
  return inet_pton(AF_INET, host.c_str(), buffer) == 1 ||
         inet_pton(AF_INET6, host.c_str(), buffer) == 1;
}

std::string utf8(const ASN1_STRING* value) {
  unsigned char* out = nullptr;
  int length = ASN1_STRING_to_UTF8(&out, value);
  if (length < 0) return "";
  std::string text(reinterpret_cast<char*>(out), static_cast<std::size_t>(length));
  OPENSSL_free(out);
  return text;
}

}  // namespace

std::expected<std::shared_ptr<ssl::context>, std::string> make_client_context(
    const ClientTls& tls) {
  ERR_clear_error();
  std::shared_ptr<ssl::context> context;
  try {
    context = std::make_shared<ssl::context>(ssl::context::tls_client);
  } catch (const std::exception& e) {
    return std::unexpected(std::string("TLS context: ") + e.what());
  }
  SSL_CTX* native = context->native_handle();
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  if (tls.insecure_skip_verify) {
    SSL_CTX_set_verify(native, SSL_VERIFY_NONE, nullptr);
  } else {
    SSL_CTX_set_verify(native, SSL_VERIFY_PEER, nullptr);
    if (tls.ca_pem.empty()) {
      if (SSL_CTX_set_default_verify_paths(native) != 1) {
        return std::unexpected("system CA roots: " + take_openssl_errors());
      }
    } else if (auto ok = trust(native, tls.ca_pem); !ok) {
      return std::unexpected("CA certificate: " + ok.error());
    }
  }
  if (!tls.cert_pem.empty() || !tls.key_pem.empty()) {
    if (auto ok = use_identity(native, tls.cert_pem, tls.key_pem); !ok) {
      return std::unexpected("client " + ok.error());
    }
  }
  return context;
}

std::expected<void, std::string> prepare_client_ssl(SSL* ssl, const std::string& server_name,
                                                    bool verify) {
  bool ip = is_ip_literal(server_name);
  // SNI carries host names only (RFC 6066).
  if (!ip && SSL_set_tlsext_host_name(ssl, server_name.c_str()) != 1) {
    return std::unexpected("server name " + server_name + ": " + take_openssl_errors());
  }
  if (!verify) return {};
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
  int ok = 0;
  if (ip) {
    ok = X509_VERIFY_PARAM_set1_ip_asc(param, server_name.c_str());
  } else {
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    ok = X509_VERIFY_PARAM_set1_host(param, server_name.c_str(), server_name.size());
  }
  if (ok != 1) return std::unexpected("server name " + server_name + ": " + take_openssl_errors());
  return {};
}

std::expected<std::shared_ptr<ssl::context>, std::string> make_server_context(
    const ServerTls& tls) {
  ERR_clear_error();
  std::shared_ptr<ssl::context> context;
  try {
    context = std::make_shared<ssl::context>(ssl::context::tls_server);
  } catch (const std::exception& e) {
    return std::unexpected(std::string("TLS context: ") + e.what());
  }
  SSL_CTX* native = context->native_handle();
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  if (auto ok = use_identity(native, tls.cert_pem, tls.key_pem); !ok) {
    return std::unexpected("serving " + ok.error());
  }
  if (!tls.client_ca_pem.empty()) {
    if (auto ok = trust(native, tls.client_ca_pem); !ok) {
      return std::unexpected("client CA: " + ok.error());
    }
    // Ask for a certificate but accept a connection without one (bearer tokens, anonymous);
    // a certificate that does not verify fails the handshake.
    SSL_CTX_set_verify(native, SSL_VERIFY_PEER, nullptr);
    auto certificates = read_certificates(tls.client_ca_pem);
    STACK_OF(X509_NAME)* names = sk_X509_NAME_new_null();
    for (const X509Ptr& certificate : *certificates) {
      X509_NAME* name = X509_NAME_dup(X509_get_subject_name(certificate.get()));
      if (name && sk_X509_NAME_push(names, name) == 0) X509_NAME_free(name);
    }
    SSL_CTX_set_client_CA_list(native, names);  // takes ownership
  }
  // Resumed sessions must carry the context they were verified in, or resumption fails.
  static constexpr unsigned char kSessionContext[] = "respool";
  SSL_CTX_set_session_id_context(native, kSessionContext, sizeof kSessionContext - 1);
  SSL_CTX_set_alpn_select_cb(native, select_http11, nullptr);
  return context;
}

std::optional<PeerIdentity> verified_peer_identity(SSL* ssl) {
  X509* certificate = SSL_get0_peer_certificate(ssl);
  if (!certificate || SSL_get_verify_result(ssl) != X509_V_OK) return std::nullopt;
  PeerIdentity identity;
  X509_NAME* subject = X509_get_subject_name(certificate);
  for (int i = 0; i < X509_NAME_entry_count(subject); ++i) {
    X509_NAME_ENTRY* entry = X509_NAME_get_entry(subject, i);
    int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(entry));
    if (nid == NID_commonName) {
      identity.common_name = utf8(X509_NAME_ENTRY_get_data(entry));  // the last CN, as Go reads it
    } else if (nid == NID_organizationName) {
      identity.organizations.push_back(utf8(X509_NAME_ENTRY_get_data(entry)));
    }
  }
  return identity;
}

}  // namespace respool::http::detail
