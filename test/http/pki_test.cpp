#include <catch2/catch.hpp>

#include <openssl/x509v3.h>

#include "operator/http/openssl_util.hpp"
#include "operator/http/pki.hpp"

using namespace respool::http;
using namespace respool::http::detail;

namespace {

X509Ptr parse(const std::string& pem) {
  auto certificates = read_certificates(pem);
  REQUIRE(certificates);
  REQUIRE(certificates->size() == 1);
  return std::move(certificates->front());
}

std::string text_of(const ASN1_STRING* s) {
  return std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                     static_cast<std::size_t>(ASN1_STRING_length(s)));
}

std::vector<std::string> subject_values(X509* cert, int nid) {
  std::vector<std::string> values;
  X509_NAME* name = X509_get_subject_name(cert);
  for (int i = X509_NAME_get_index_by_NID(name, nid, -1); i >= 0;
       i = X509_NAME_get_index_by_NID(name, nid, i)) {
    values.push_back(text_of(X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i))));
  }
  return values;
}

bool verifies(X509* cert, X509* ca, int purpose) {
  using StorePtr = std::unique_ptr<X509_STORE, OpenSslDeleter<X509_STORE_free>>;
  using StoreContextPtr = std::unique_ptr<X509_STORE_CTX, OpenSslDeleter<X509_STORE_CTX_free>>;
  StorePtr store(X509_STORE_new());
  X509_STORE_add_cert(store.get(), ca);
  StoreContextPtr context(X509_STORE_CTX_new());
  X509_STORE_CTX_init(context.get(), store.get(), cert, nullptr);
  X509_STORE_CTX_set_purpose(context.get(), purpose);
  return X509_verify_cert(context.get()) == 1;
}

}  // namespace

TEST_CASE("make_ca makes a self-signed P-256 CA", "[http]") {
  auto ca = make_ca("respool-ca", 30);
  REQUIRE(ca);
  X509Ptr cert = parse(ca->cert_pem);
  CHECK(subject_values(cert.get(), NID_commonName) == std::vector<std::string>{"respool-ca"});
  CHECK(X509_check_ca(cert.get()) == 1);
  CHECK((X509_get_key_usage(cert.get()) & (KU_KEY_CERT_SIGN | KU_CRL_SIGN)) ==
        (KU_KEY_CERT_SIGN | KU_CRL_SIGN));
  CHECK(X509_get0_subject_key_id(cert.get()) != nullptr);
  int critical = 0;
  auto* constraints = static_cast<BASIC_CONSTRAINTS*>(
      X509_get_ext_d2i(cert.get(), NID_basic_constraints, &critical, nullptr));
  REQUIRE(constraints);
  CHECK(constraints->ca);
  CHECK(critical == 1);
  BASIC_CONSTRAINTS_free(constraints);

  auto key = read_private_key(ca->key_pem);
  REQUIRE(key);
  CHECK(EVP_PKEY_is_a(key->get(), "EC"));
  CHECK(EVP_PKEY_get_bits(key->get()) == 256);
  CHECK(X509_verify(cert.get(), key->get()) == 1);
  // Valid now (notBefore lies a little in the past) and for about 30 days.
  CHECK(X509_cmp_current_time(X509_get0_notBefore(cert.get())) < 0);
  CHECK(X509_cmp_time(X509_get0_notAfter(cert.get()), nullptr) > 0);

  auto again = make_ca("respool-ca", 30);
  REQUIRE(again);
  X509Ptr other = parse(again->cert_pem);
  CHECK(ASN1_INTEGER_cmp(X509_get0_serialNumber(cert.get()), X509_get0_serialNumber(other.get())) !=
        0);
}

TEST_CASE("make_server_cert carries SAN IPs and names and serverAuth", "[http]") {
  auto ca = make_ca("ca");
  REQUIRE(ca);
  auto server = make_server_cert(*ca, "api", {"127.0.0.1", "::1", "localhost", "api.example"});
  REQUIRE(server);
  X509Ptr cert = parse(server->cert_pem);
  X509Ptr ca_cert = parse(ca->cert_pem);
  CHECK(X509_check_ip_asc(cert.get(), "127.0.0.1", 0) == 1);
  CHECK(X509_check_ip_asc(cert.get(), "::1", 0) == 1);
  CHECK(X509_check_ip_asc(cert.get(), "10.0.0.1", 0) == 0);
  CHECK(X509_check_host(cert.get(), "localhost", 0, 0, nullptr) == 1);
  CHECK(X509_check_host(cert.get(), "api.example", 0, 0, nullptr) == 1);
  CHECK(X509_check_host(cert.get(), "other.example", 0, 0, nullptr) == 0);
  CHECK((X509_get_extended_key_usage(cert.get()) & XKU_SSL_SERVER) != 0);
  CHECK((X509_get_extended_key_usage(cert.get()) & XKU_SSL_CLIENT) == 0);
  CHECK(X509_check_ca(cert.get()) == 0);
  CHECK(X509_get0_authority_key_id(cert.get()) != nullptr);
  CHECK(ASN1_OCTET_STRING_cmp(X509_get0_authority_key_id(cert.get()),
                              X509_get0_subject_key_id(ca_cert.get())) == 0);
  CHECK(verifies(cert.get(), ca_cert.get(), X509_PURPOSE_SSL_SERVER));

  auto stranger = make_ca("stranger");
  REQUIRE(stranger);
  X509Ptr stranger_cert = parse(stranger->cert_pem);
  CHECK_FALSE(verifies(cert.get(), stranger_cert.get(), X509_PURPOSE_SSL_SERVER));
}

TEST_CASE("make_client_cert puts the user in CN and one O per group", "[http]") {
  auto ca = make_ca("ca");
  REQUIRE(ca);
  auto client = make_client_cert(*ca, "system:node:n1", {"system:nodes", "team-a"});
  REQUIRE(client);
  X509Ptr cert = parse(client->cert_pem);
  X509Ptr ca_cert = parse(ca->cert_pem);
  CHECK(subject_values(cert.get(), NID_commonName) == std::vector<std::string>{"system:node:n1"});
  CHECK(subject_values(cert.get(), NID_organizationName) ==
        std::vector<std::string>{"system:nodes", "team-a"});
  CHECK((X509_get_extended_key_usage(cert.get()) & XKU_SSL_CLIENT) != 0);
  CHECK(verifies(cert.get(), ca_cert.get(), X509_PURPOSE_SSL_CLIENT));
  CHECK_FALSE(verifies(cert.get(), ca_cert.get(), X509_PURPOSE_SSL_SERVER));
}

TEST_CASE("issuing with a broken CA fails with a message", "[http]") {
  auto result = make_server_cert(KeyPair{"garbage", "garbage"}, "x", {"127.0.0.1"});
  REQUIRE_FALSE(result);
  CHECK_FALSE(result.error().empty());
}
