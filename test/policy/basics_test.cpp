// Time, quantities, names (P1) and CIDR math.

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "reconcilers/policy/cidr.hpp"
#include "reconcilers/policy/names.hpp"
#include "reconcilers/policy/time.hpp"

using namespace respool::policy;
using respool::policy::test::kT0;

TEST_CASE("times format as metav1.Time and parse back", "[policy][time]") {
  CHECK(format_time(kT0) == "2026-01-01T00:00:00Z");
  CHECK(format_time(kT0 + std::chrono::hours{24 * 59} + std::chrono::seconds{3723} +
                    std::chrono::milliseconds{900}) == "2026-03-01T01:02:03Z");
  CHECK(parse_time("2026-01-01T00:00:00Z") == kT0);
  CHECK(parse_time("2026-01-01T01:00:00+01:00") == kT0);
  CHECK(parse_time("2025-12-31T23:00:00.5-01:00") == kT0 + std::chrono::milliseconds{500});
  CHECK_FALSE(parse_time("2026-02-30T00:00:00Z"));
  CHECK_FALSE(parse_time("2026-01-01 00:00:00Z"));
  CHECK_FALSE(parse_time("2026-01-01T00:00:00"));
  CHECK_FALSE(parse_time(""));
}

TEST_CASE("pool names follow P1", "[policy][rule:P1]") {
  CHECK(is_pool_name("gpu-a"));
  CHECK(is_pool_name("a"));
  CHECK(is_pool_name("a1-b2"));
  CHECK(is_pool_name(std::string(63, 'a')));
  CHECK_FALSE(is_pool_name(std::string(64, 'a')));
  CHECK_FALSE(is_pool_name("1gpu"));
  CHECK_FALSE(is_pool_name("gpu-"));
  CHECK_FALSE(is_pool_name("Gpu"));
  CHECK_FALSE(is_pool_name("gpu_a"));
  CHECK_FALSE(is_pool_name("gpu.a"));
  CHECK_FALSE(is_pool_name(""));
  CHECK(is_dns_label("1gpu"));
  CHECK(is_label_key("node.kubernetes.io/instance-type"));
  CHECK(is_label_key("team"));
  CHECK_FALSE(is_label_key("/x"));
  CHECK_FALSE(is_label_key("a/b/c"));
  CHECK(is_label_value(""));
  CHECK(is_label_value("az-1"));
  CHECK_FALSE(is_label_value("-az"));
}

TEST_CASE("CIDR blocks parse, print, overlap and contain", "[policy][cidr][rule:W3]") {
  auto a = parse_cidr("192.168.128.0/17");
  REQUIRE(a);
  CHECK(a->to_string() == "192.168.128.0/17");
  CHECK(a->first() == 0xC0A88000u);
  CHECK(a->last() == 0xC0A8FFFFu);
  CHECK(parse_cidr("0.0.0.0/0")->last() == 0xFFFFFFFFu);
  CHECK(parse_cidr("10.0.0.1/32")->to_string() == "10.0.0.1/32");
  CHECK(parse_cidr("192.168.1.5/24").error() ==
        "\"192.168.1.5/24\" has host bits set; the block is 192.168.1.0/24");
  for (const char* bad : {"192.168.0.0", "192.168.0.0/33", "256.0.0.0/8", "1.2.3/8", "1.2.3.4.5/8",
                          "01.2.3.0/24", "a.b.c.d/8", "1.2.3.0/", "1.2.3.0/-1"}) {
    INFO(bad);
    CHECK_FALSE(parse_cidr(bad));
  }
  Cidr big = *parse_cidr("10.0.0.0/8"), small = *parse_cidr("10.247.0.0/16");
  CHECK(big.contains(small));
  CHECK_FALSE(small.contains(big));
  CHECK(big.overlaps(small));
  CHECK(small.overlaps(big));
  CHECK_FALSE(parse_cidr("192.168.0.0/17")->overlaps(*a));
  CHECK(small == kServiceBlock);
  CHECK(kContainerBlock.to_string() == "172.16.0.0/16");

  auto used = fixed_blocks();
  CHECK(first_overlap(*parse_cidr("172.16.8.0/24"), used)->owner ==
        "the container block 172.16.0.0/16");
  CHECK(first_overlap(big, used)->owner == "the service block 10.247.0.0/16");
  CHECK_FALSE(first_overlap(*a, used));
  std::vector<Cidr> presets{*parse_cidr("10.247.0.0/17"), *parse_cidr("192.168.0.0/17"), *a};
  used.push_back({*parse_cidr("192.168.0.0/24"), "network x"});
  CHECK(choose_preset(presets, used) == a);
  used.push_back({*parse_cidr("192.168.0.0/16"), "network y"});
  CHECK_FALSE(choose_preset(presets, used));
}
