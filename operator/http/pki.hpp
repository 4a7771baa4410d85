#pragma once
// Certificates made with OpenSSL at run time: a CA, serving certificates with SANs, and client
// certificates whose CN and O carry a user and its groups.

#include <expected>
#include <string>
#include <vector>

namespace respool::http {

struct KeyPair {
  std::string cert_pem;
  std::string key_pem;
};

// A self-signed CA (ECDSA P-256), valid for `days`.
std::expected<KeyPair, std::string> make_ca(const std::string& common_name, int days = 365);

// A serving certificate signed by the CA. SANs: each entry is an IP literal or a DNS name.
std::expected<KeyPair, std::string> make_server_cert(const KeyPair& ca,
                                                     const std::string& common_name,
                                                     const std::vector<std::string>& sans,
                                                     int days = 365);

// A client certificate signed by the CA: CN = user, one O per group.
std::expected<KeyPair, std::string> make_client_cert(const KeyPair& ca, const std::string& user,
                                                     const std::vector<std::string>& groups,
                                                     int days = 365);

}  // namespace respool::http
