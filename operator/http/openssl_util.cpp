#include "operator/http/openssl_util.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>

#include <climits>

namespace respool::http::detail {

std::string take_openssl_errors(std::string_view fallback) {
  std::string out;
  while (unsigned long code = ERR_get_error()) {
    char buffer[256];
    ERR_error_string_n(code, buffer, sizeof buffer);
    if (!out.empty()) out += "; ";
    out += buffer;
  }
  return out.empty() ? std::string(fallback) : out;
}

BioPtr memory_bio(std::string_view pem) {
  int size =
      pem.size() > static_cast<std::size_t>(INT_MAX) ? INT_MAX : static_cast<int>(pem.size());
  return BioPtr(BIO_new_mem_buf(pem.data(), size));
}

std::expected<std::vector<X509Ptr>, std::string> read_certificates(std::string_view pem) {
  ERR_clear_error();
  BioPtr bio = memory_bio(pem);
  if (!bio) return std::unexpected(take_openssl_errors());
  std::vector<X509Ptr> certificates;
  while (X509* raw = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    certificates.emplace_back(raw);
  }
  // The loop ends with "no start line" once the text is exhausted: expected, not an error.
  unsigned long last = ERR_peek_last_error();
  bool clean_end = ERR_GET_LIB(last) == ERR_LIB_PEM && ERR_GET_REASON(last) == PEM_R_NO_START_LINE;
  if (last != 0 && !clean_end) return std::unexpected(take_openssl_errors());
  ERR_clear_error();
  if (certificates.empty()) return std::unexpected(std::string("no certificate in PEM"));
  return certificates;
}

std::expected<PkeyPtr, std::string> read_private_key(std::string_view pem) {
  ERR_clear_error();
  BioPtr bio = memory_bio(pem);
  if (!bio) return std::unexpected(take_openssl_errors());
  PkeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (!key) return std::unexpected("no private key in PEM: " + take_openssl_errors());
  return key;
}

}  // namespace respool::http::detail
