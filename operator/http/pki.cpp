#include "operator/http/pki.hpp"

#include <arpa/inet.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/rand.h>

#include "operator/http/openssl_util.hpp"

namespace respool::http {

namespace {

using namespace detail;

// Clocks of the peers may disagree a little: a certificate made now is valid from a bit before.
constexpr long kBackdateSeconds = 5 * 60;

std::unexpected<std::string> failure(std::string_view what) {
  return std::unexpected(std::string(what) + ": " + take_openssl_errors());
}

std::expected<PkeyPtr, std::string> generate_key() {
  PkeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return failure("generate P-256 key");
  return key;
}

std::expected<void, std::string> set_serial(X509* cert) {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) return failure("random serial");
  bytes[0] &= 0x7F;  // positive
  bytes[0] |= 0x01;  // and never zero-length
  BignumPtr serial(BN_bin2bn(bytes, sizeof bytes, nullptr));
  if (!serial || !BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert))) {
    return failure("set serial");
  }
  return {};
}

std::expected<void, std::string> add_name_entry(X509_NAME* name, const char* field,
                                                const std::string& value) {
  if (!X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8,
                                  reinterpret_cast<const unsigned char*>(value.c_str()),
                                  static_cast<int>(value.size()), -1, 0)) {
    return failure(std::string("subject ") + field);
  }
  return {};
}

// Adds an extension written in OpenSSL's configuration syntax ("critical,CA:TRUE").
std::expected<void, std::string> add_extension(X509* cert, X509* issuer, int nid,
                                               const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509ExtensionPtr extension(X509V3_EXT_nconf_nid(nullptr, &ctx, nid, value));
  if (!extension || !X509_add_ext(cert, extension.get(), -1)) {
    return failure(std::string("extension ") + OBJ_nid2sn(nid));
  }
  return {};
}

bool is_ip_literal(const std::string& s) {
  unsigned char buffer[16];
  return inet_pton(AF_INET, s.c_str(), buffer) == 1 || inet_pton(AF_INET6, s.c_str(), buffer) == 1;
}

std::expected<void, std::string> add_subject_alt_names(X509* cert,
                                                       const std::vector<std::string>& sans) {
  if (sans.empty()) return {};
  GeneralNamesPtr names(GENERAL_NAMES_new());
  if (!names) return failure("subjectAltName");
  for (const std::string& san : sans) {
    GeneralNamePtr name(GENERAL_NAME_new());
    if (!name) return failure("subjectAltName");
    if (is_ip_literal(san)) {
      Asn1OctetStringPtr ip(a2i_IPADDRESS(san.c_str()));
      if (!ip) return failure("subjectAltName IP " + san);
      GENERAL_NAME_set0_value(name.get(), GEN_IPADD, ip.release());
    } else {
      Asn1Ia5StringPtr dns(ASN1_IA5STRING_new());
      if (!dns || !ASN1_STRING_set(dns.get(), san.data(), static_cast<int>(san.size()))) {
        return failure("subjectAltName DNS " + san);
      }
      GENERAL_NAME_set0_value(name.get(), GEN_DNS, dns.release());
    }
    if (!sk_GENERAL_NAME_push(names.get(), name.get())) return failure("subjectAltName");
    name.release();  // now owned by `names`
  }
  if (X509_add1_ext_i2d(cert, NID_subject_alt_name, names.get(), 0, X509V3_ADD_DEFAULT) != 1) {
    return failure("subjectAltName");
  }
  return {};
}

std::expected<std::string, std::string> to_pem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || !PEM_write_bio_X509(bio.get(), cert)) return failure("write certificate PEM");
  char* data = nullptr;
  long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

std::expected<std::string, std::string> to_pem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || !PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr)) {
    return failure("write key PEM");
  }
  char* data = nullptr;
  long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

// A certificate with a fresh key, serial, validity and subject; extensions are the caller's.
struct Draft {
  X509Ptr cert;
  PkeyPtr key;
};

std::expected<Draft, std::string> draft(const std::string& common_name,
                                        const std::vector<std::string>& organizations, int days) {
  ERR_clear_error();
  auto key = generate_key();
  if (!key) return std::unexpected(key.error());
  X509Ptr cert(X509_new());
  if (!cert || !X509_set_version(cert.get(), 2)) return failure("new certificate");
  if (auto ok = set_serial(cert.get()); !ok) return std::unexpected(ok.error());
  if (!X509_gmtime_adj(X509_getm_notBefore(cert.get()), -kBackdateSeconds) ||
      !X509_time_adj_ex(X509_getm_notAfter(cert.get()), days, 0, nullptr)) {
    return failure("validity");
  }
  X509_NAME* subject = X509_get_subject_name(cert.get());
  for (const std::string& organization : organizations) {
    if (auto ok = add_name_entry(subject, "O", organization); !ok)
      return std::unexpected(ok.error());
  }
  if (auto ok = add_name_entry(subject, "CN", common_name); !ok) return std::unexpected(ok.error());
  if (!X509_set_pubkey(cert.get(), key->get())) return failure("public key");
  return Draft{std::move(cert), std::move(*key)};
}

std::expected<KeyPair, std::string> sign(Draft& draft, X509* issuer, EVP_PKEY* issuer_key) {
  if (!X509_set_issuer_name(draft.cert.get(), X509_get_subject_name(issuer))) {
    return failure("issuer");
  }
  if (!X509_sign(draft.cert.get(), issuer_key, EVP_sha256())) return failure("sign certificate");
  auto cert_pem = to_pem(draft.cert.get());
  if (!cert_pem) return std::unexpected(cert_pem.error());
  auto key_pem = to_pem(draft.key.get());
  if (!key_pem) return std::unexpected(key_pem.error());
  return KeyPair{std::move(*cert_pem), std::move(*key_pem)};
}

// A certificate issued by `ca` for a leaf: the extensions common to servers and clients.
std::expected<KeyPair, std::string> issue_leaf(const KeyPair& ca, Draft& leaf,
                                               const char* extended_key_usage) {
  auto ca_certs = read_certificates(ca.cert_pem);
  if (!ca_certs) return std::unexpected("CA certificate: " + ca_certs.error());
  auto ca_key = read_private_key(ca.key_pem);
  if (!ca_key) return std::unexpected("CA key: " + ca_key.error());
  X509* issuer = ca_certs->front().get();
  X509* cert = leaf.cert.get();
  for (auto [nid, value] : {std::pair{NID_basic_constraints, "critical,CA:FALSE"},
                            std::pair{NID_key_usage, "critical,digitalSignature"},
                            std::pair{NID_ext_key_usage, extended_key_usage},
                            std::pair{NID_subject_key_identifier, "hash"},
                            std::pair{NID_authority_key_identifier, "keyid:always"}}) {
    if (auto ok = add_extension(cert, issuer, nid, value); !ok) return std::unexpected(ok.error());
  }
  return sign(leaf, issuer, ca_key->get());
}

}  // namespace

std::expected<KeyPair, std::string> make_ca(const std::string& common_name, int days) {
  auto ca = draft(common_name, {}, days);
  if (!ca) return std::unexpected(ca.error());
  X509* cert = ca->cert.get();
  for (auto [nid, value] :
       {std::pair{NID_basic_constraints, "critical,CA:TRUE"},
        std::pair{NID_key_usage, "critical,digitalSignature,keyCertSign,cRLSign"},
        std::pair{NID_subject_key_identifier, "hash"}}) {
    if (auto ok = add_extension(cert, cert, nid, value); !ok) return std::unexpected(ok.error());
  }
  return sign(*ca, cert, ca->key.get());
}

std::expected<KeyPair, std::string> make_server_cert(const KeyPair& ca,
                                                     const std::string& common_name,
                                                     const std::vector<std::string>& sans,
                                                     int days) {
  auto leaf = draft(common_name, {}, days);
  if (!leaf) return std::unexpected(leaf.error());
  if (auto ok = add_subject_alt_names(leaf->cert.get(), sans); !ok) {
    return std::unexpected(ok.error());
  }
  return issue_leaf(ca, *leaf, "serverAuth");
}

std::expected<KeyPair, std::string> make_client_cert(const KeyPair& ca, const std::string& user,
                                                     const std::vector<std::string>& groups,
                                                     int days) {
  auto leaf = draft(user, groups, days);
  if (!leaf) return std::unexpected(leaf.error());
  return issue_leaf(ca, *leaf, "clientAuth");
}

}  // namespace respool::http
