#pragma once
// Internal: owning pointers for OpenSSL objects and readable OpenSSL errors.

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <expected>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace respool::http::detail {

template <auto Free>
struct OpenSslDeleter {
  template <class T>
  void operator()(T* p) const {
    Free(p);
  }
};

using BioPtr = std::unique_ptr<BIO, OpenSslDeleter<BIO_free_all>>;
using BignumPtr = std::unique_ptr<BIGNUM, OpenSslDeleter<BN_free>>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, OpenSslDeleter<EVP_PKEY_free>>;
using X509Ptr = std::unique_ptr<X509, OpenSslDeleter<X509_free>>;
using X509ExtensionPtr = std::unique_ptr<X509_EXTENSION, OpenSslDeleter<X509_EXTENSION_free>>;
using GeneralNamesPtr = std::unique_ptr<GENERAL_NAMES, OpenSslDeleter<GENERAL_NAMES_free>>;
using GeneralNamePtr = std::unique_ptr<GENERAL_NAME, OpenSslDeleter<GENERAL_NAME_free>>;
using Asn1OctetStringPtr =
    std::unique_ptr<ASN1_OCTET_STRING, OpenSslDeleter<ASN1_OCTET_STRING_free>>;
using Asn1Ia5StringPtr = std::unique_ptr<ASN1_IA5STRING, OpenSslDeleter<ASN1_IA5STRING_free>>;

// Drains this thread's OpenSSL error queue into one message ("reason; reason"), or `fallback`
// when the queue is empty.
std::string take_openssl_errors(std::string_view fallback = "unknown OpenSSL error");

// A read-only memory BIO over `pem` (which must outlive it).
BioPtr memory_bio(std::string_view pem);

// Every certificate in a PEM text, in order; an error when there is none or one is malformed.
std::expected<std::vector<X509Ptr>, std::string> read_certificates(std::string_view pem);

std::expected<PkeyPtr, std::string> read_private_key(std::string_view pem);

}  // namespace respool::http::detail
