#include <catch2/catch.hpp>

#include "apimachinery/base64.hpp"

using respool::apimachinery::base64_decode;
using respool::apimachinery::base64_encode;

TEST_CASE("base64 round trips and rejects garbage", "[base64]") {
  for (const std::string& s : std::vector<std::string>{"", "f", "fo", "foo", "foob", "fooba",
                                                       "foobar", std::string("\0\xff", 2)}) {
    auto encoded = base64_encode(s);
    auto decoded = base64_decode(encoded);
    REQUIRE(decoded);
    CHECK(*decoded == s);
  }
  CHECK(base64_encode("foobar") == "Zm9vYmFy");
  CHECK(base64_encode("fo") == "Zm8=");
  CHECK(base64_encode("f") == "Zg==");
  CHECK(base64_decode("Zm9v\nYmFy") == std::optional<std::string>("foobar"));
  CHECK(base64_decode("Zm9v\r\nYmFy\n") == std::optional<std::string>("foobar"));
  CHECK_FALSE(base64_decode("Zm9v*mFy"));
  CHECK_FALSE(base64_decode("Zm8=Zm8="));
}

// The operator's copy ignored spaces and tabs and took missing padding; the sandbox's refused
// line breaks. base64.StdEncoding.DecodeString, which client-go's kubeconfig *-data fields and
// the API server's []byte fields go through, skips \r and \n only and wants whole groups.
TEST_CASE("base64 decodes as Go's StdEncoding does", "[base64]") {
  CHECK_FALSE(base64_decode("Zm9v YmFy"));
  CHECK_FALSE(base64_decode("Zm9v\tYmFy"));
  CHECK_FALSE(base64_decode("Zm8"));
  CHECK_FALSE(base64_decode("Zg="));
  CHECK_FALSE(base64_decode("Z==="));
  CHECK_FALSE(base64_decode("===="));
  CHECK_FALSE(base64_decode("Zm=8"));
  CHECK(base64_decode("Zm8=") == std::optional<std::string>("fo"));
  CHECK(base64_decode("Zm9=") == std::optional<std::string>("fo"));  // unused bits set: not strict
  CHECK(base64_decode("") == std::optional<std::string>(""));
}
