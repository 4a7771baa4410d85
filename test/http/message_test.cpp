#include <catch2/catch.hpp>

#include "operator/http/message.hpp"

using namespace respool::http;

TEST_CASE("Headers compare names case-insensitively and keep order", "[http]") {
  Headers headers;
  headers.add("Content-Type", "application/json");
  headers.add("X-Multi", "a");
  headers.add("x-multi", "b");
  CHECK(headers.get("content-type") == "application/json");
  CHECK(headers.get("X-MULTI") == "a");
  CHECK_FALSE(headers.has("Accept"));
  headers.set("X-Multi", "c");
  REQUIRE(headers.fields().size() == 2);
  CHECK(headers.fields()[1].second == "c");
  headers.remove("CONTENT-TYPE");
  CHECK_FALSE(headers.has("Content-Type"));
  CHECK(iequals("Transfer-Encoding", "transfer-encoding"));
  CHECK_FALSE(iequals("abc", "abd"));
  CHECK_FALSE(iequals("abc", "abcd"));
}

TEST_CASE("reason_phrase knows the codes the API server answers", "[http]") {
  CHECK(reason_phrase(200) == "OK");
  CHECK(reason_phrase(201) == "Created");
  CHECK(reason_phrase(404) == "Not Found");
  CHECK(reason_phrase(409) == "Conflict");
  CHECK(reason_phrase(410) == "Gone");
  CHECK(reason_phrase(413) == "Request Entity Too Large");
  CHECK(reason_phrase(415) == "Unsupported Media Type");
  CHECK(reason_phrase(422) == "Unprocessable Entity");
  CHECK(reason_phrase(429) == "Too Many Requests");
  CHECK(reason_phrase(503) == "Service Unavailable");
  CHECK(reason_phrase(504) == "Gateway Timeout");
  CHECK(reason_phrase(599).empty());
}

TEST_CASE("parse_target decodes the path and the query", "[http]") {
  Target t = parse_target(
      "/api/v1/namespaces/a%20b/"
      "pods?labelSelector=app%3Dweb%2Ctier+in+(a)&watch=1&empty&=x&&q=%zz");
  CHECK(t.path == "/api/v1/namespaces/a b/pods");
  CHECK(t.param("labelSelector") == "app=web,tier in (a)");
  CHECK(t.param("watch") == "1");
  CHECK(t.param("empty") == "");
  CHECK(t.param("q") == "%zz");  // not an escape: kept as sent
  CHECK_FALSE(t.param("missing").has_value());
  REQUIRE(t.query.size() == 5);
  CHECK(t.query[3].first.empty());
  CHECK(t.query[3].second == "x");

  Target plus_in_path = parse_target("/a+b/c%2Fd");
  CHECK(plus_in_path.path == "/a+b/c/d");  // '+' is a space only in the query
  CHECK(plus_in_path.query.empty());

  Target repeated = parse_target("/x?a=1&a=2");
  CHECK(repeated.param("a") == "1");
  CHECK(repeated.query.size() == 2);
}

TEST_CASE("percent_encode keeps only RFC 3986 unreserved characters", "[http]") {
  CHECK(percent_encode("AZaz09-._~") == "AZaz09-._~");
  CHECK(percent_encode("a b/c?d=e&f+g") == "a%20b%2Fc%3Fd%3De%26f%2Bg");
  CHECK(percent_encode("\xc3\xa9") == "%C3%A9");
  CHECK(percent_decode(percent_encode("app in (a,b), tier!=x"), true) == "app in (a,b), tier!=x");
  CHECK(percent_decode("a+b%2B", false) == "a+b+");
  CHECK(percent_decode("a+b%2B", true) == "a b+");
  CHECK(percent_decode("%4", true) == "%4");
}

TEST_CASE("parse_url splits scheme, host, port and path prefix", "[http]") {
  auto a = parse_url("https://127.0.0.1:6443");
  REQUIRE(a);
  CHECK(a->scheme == "https");
  CHECK(a->host == "127.0.0.1");
  CHECK(a->port == 6443);
  CHECK(a->path.empty());

  auto b = parse_url("http://example.com/prefix/api/");
  REQUIRE(b);
  CHECK(b->port == 80);
  CHECK(b->host == "example.com");
  CHECK(b->path == "/prefix/api");

  auto c = parse_url("HTTPS://[::1]:8443/");
  REQUIRE(c);
  CHECK(c->scheme == "https");
  CHECK(c->host == "::1");
  CHECK(c->port == 8443);
  CHECK(c->path.empty());

  auto d = parse_url("https://[fe80::1]");
  REQUIRE(d);
  CHECK(d->port == 443);

  CHECK_FALSE(parse_url("ftp://host"));
  CHECK_FALSE(parse_url("host:80"));
  CHECK_FALSE(parse_url("http://"));
  CHECK_FALSE(parse_url("http://host:"));
  CHECK_FALSE(parse_url("http://host:70000"));
  CHECK_FALSE(parse_url("http://host:12ab"));
  CHECK_FALSE(parse_url("http://[::1"));
  CHECK_FALSE(parse_url("http://user@host"));
  CHECK_FALSE(parse_url("http://host/path?query"));
}
