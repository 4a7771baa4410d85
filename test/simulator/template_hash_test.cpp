#include <catch2/catch.hpp>

#include "sandbox/simulator/template_hash.hpp"

using namespace respool::sandbox::sim;

TEST_CASE("FNV-1a 32 matches its published test vectors", "[simulator]") {
  CHECK(fnv1a32("") == 0x811c9dc5u);
  CHECK(fnv1a32("a") == 0xe40c292cu);
  CHECK(fnv1a32("foobar") == 0xbf9cf968u);
}

TEST_CASE("safe_encode uses the label-safe alphabet", "[simulator]") {
  // rand.SafeEncodeString: byte % 27 indexes "bcdfghjklmnpqrstvwxz2456789".
  CHECK(safe_encode("0") == std::string(1, "bcdfghjklmnpqrstvwxz2456789"['0' % 27]));
  const std::string out = safe_encode("1234567890");
  CHECK(out.size() == 10);
  CHECK(out.find_first_not_of("bcdfghjklmnpqrstvwxz2456789") == std::string::npos);
}

TEST_CASE("the template hash follows the template", "[simulator]") {
  nlohmann::json a = {{"metadata", {{"labels", {{"app", "x"}}}}},
                      {"spec", {{"containers", {{{"name", "c"}, {"image", "i:1"}}}}}}};
  nlohmann::json b = a;
  CHECK(template_hash(a) == template_hash(b));
  b["spec"]["containers"][0]["image"] = "i:2";
  CHECK(template_hash(a) != template_hash(b));
  // Key order does not matter: the JSON is canonical.
  nlohmann::json c = nlohmann::json::parse(R"({"spec":{"containers":[{"image":"i:1","name":"c"}]},
                                              "metadata":{"labels":{"app":"x"}}})");
  CHECK(template_hash(a) == template_hash(c));
}
