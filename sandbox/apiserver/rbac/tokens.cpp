#include "sandbox/apiserver/rbac/tokens.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <nlohmann/json.hpp>

#include "apimachinery/base64.hpp"
#include "sandbox/apiserver/util.hpp"

namespace respool::sandbox::rbac {
namespace {

using Json = nlohmann::json;

std::string jwt_base64url(std::string_view data) {
  std::string s = apimachinery::base64_encode(data);
  for (char& c : s) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  while (!s.empty() && s.back() == '=')
    s.pop_back();
  return s;
}

bool jwt_base64url_decode(std::string_view text, std::string& out) {
  std::string s(text);
  for (char& c : s) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  while (s.size() % 4)
    s += '=';
  auto decoded = apimachinery::base64_decode(s);
  if (!decoded) return false;
  out = std::move(*decoded);
  return true;
}

std::int64_t jwt_unix_seconds(runtime::TimePoint t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

}  // namespace

TokenIssuer::TokenIssuer() {
  unsigned char bytes[32];
  RAND_bytes(bytes, sizeof bytes);
  key_.assign(reinterpret_cast<const char*>(bytes), sizeof bytes);
}

std::string TokenIssuer::sign(std::string_view data) const {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac, &len);
  return jwt_base64url(std::string_view(reinterpret_cast<const char*>(mac), len));
}

std::string TokenIssuer::issue(const TokenClaims& c, runtime::TimePoint now) const {
  Json header = {{"alg", "HS256"}, {"typ", "JWT"}};
  Json payload = {
      {"aud", c.audiences},
      {"exp", c.expires},
      {"iat", jwt_unix_seconds(now)},
      {"iss", kIssuer},
      {"jti", c.jti},
      {"kubernetes.io",
       {{"namespace", c.ns}, {"serviceaccount", {{"name", c.service_account}, {"uid", c.uid}}}}},
      {"nbf", jwt_unix_seconds(now)},
      {"sub", "system:serviceaccount:" + c.ns + ":" + c.service_account}};
  std::string signing_input = jwt_base64url(header.dump()) + "." + jwt_base64url(payload.dump());
  return signing_input + "." + sign(signing_input);
}

std::optional<TokenClaims> TokenIssuer::verify(std::string_view token) const {
  auto dot1 = token.find('.');
  auto dot2 = token.rfind('.');
  if (dot1 == std::string_view::npos || dot2 == dot1) return std::nullopt;
  std::string expected = sign(token.substr(0, dot2));
  std::string_view got = token.substr(dot2 + 1);
  if (got.size() != expected.size() ||
      CRYPTO_memcmp(got.data(), expected.data(), got.size()) != 0) {
    return std::nullopt;
  }
  std::string raw;
  if (!jwt_base64url_decode(token.substr(dot1 + 1, dot2 - dot1 - 1), raw)) return std::nullopt;
  Json p = Json::parse(raw, nullptr, false);
  if (!p.is_object() || !p.contains("kubernetes.io")) return std::nullopt;
  const Json& k = p["kubernetes.io"];
  TokenClaims c;
  c.ns = k.value("namespace", "");
  c.service_account = k.value("serviceaccount", Json::object()).value("name", "");
  c.uid = k.value("serviceaccount", Json::object()).value("uid", "");
  c.jti = p.value("jti", "");
  c.expires = p.value("exp", std::int64_t{0});
  if (p.contains("aud") && p["aud"].is_array()) {
    for (const Json& a : p["aud"]) {
      if (a.is_string()) c.audiences.push_back(a.get<std::string>());
    }
  }
  return c;
}

}  // namespace respool::sandbox::rbac
