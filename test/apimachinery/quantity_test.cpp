#include <catch2/catch.hpp>

#include <limits>

#include "apimachinery/quantity.hpp"

using respool::apimachinery::Quantity;
using Format = respool::apimachinery::QuantityFormat;

namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

std::int64_t milli(std::string_view text) {
  auto q = Quantity::parse(text);
  REQUIRE(q.has_value());
  return q->milli();
}

const std::string kFormatWrong =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const std::string kNumeric = "unable to parse numeric part of quantity";
const std::string kSuffix = "unable to parse quantity's suffix";

}  // namespace

TEST_CASE("quantities parse to milli-units", "[quantity]") {
  struct Case {
    std::string text;
    std::int64_t milli;
  };
  const std::vector<Case> cases = {
      {"0", 0},
      {"-0", 0},
      {"007", 7000},
      {"1", 1000},
      {"+2", 2000},
      {"-1", -1000},
      {"500m", 500},
      {"1.5", 1500},
      {".5", 500},
      {"5.", 5000},
      {"0.5Gi", 536870912000},
      {"0.1Gi", 107374182400},
      {"1Ki", 1024000},
      {"1Mi", 1048576000},
      {"4Gi", 4294967296000},
      {"1Ti", 1099511627776000},
      {"1Pi", 1125899906842624000},
      {"1k", 1000000},
      {"1M", 1000000000},
      {"1G", 1000000000000},
      {"2T", 2000000000000000},
      {"1P", 1000000000000000000},
      {"1e3", 1000000},
      {"1E3", 1000000},
      {"1e+3", 1000000},
      {"1e-3", 1},
      {"1.5e-2", 15},
      {"250u", 1},   // below a milli-unit: rounded up
      {"1500u", 2},  // 1.5m rounds up
      {"1n", 1},
      {"-1n", -1},  // away from zero
      {"-1500u", -2},
      {"0.000000000000000000001", 1},
      {"0.0", 0},
      {"0e9", 0},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    CHECK(milli(c.text) == c.milli);
  }
}

TEST_CASE("quantities past the milli-unit range saturate", "[quantity]") {
  CHECK(milli("1E") == kMax);
  CHECK(milli("8Ei") == kMax);
  CHECK(milli("9223372036854775807") == kMax);
  CHECK(milli("12345678901234567890") == kMax);
  CHECK(milli("1e1000000") == kMax);
  CHECK(milli("-1e1000000") == -kMax);
  CHECK(milli("1e-1000000") == 1);
  CHECK(milli("9223372036854775") == 9223372036854775000);
  CHECK(Quantity::from_units(kMax).milli() == kMax);
  CHECK(Quantity::from_units(-kMax).milli() == -kMax);
  CHECK(Quantity::from_units(3).milli() == 3000);
}

TEST_CASE("malformed quantities are rejected with the API server's message", "[quantity]") {
  struct Case {
    std::string text;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"", kFormatWrong},   {"abc", kFormatWrong}, {"1.2.3", kFormatWrong}, {"1Gb", kFormatWrong},
      {" 1", kFormatWrong}, {"1 ", kFormatWrong},  {"1e3.5", kFormatWrong}, {"--1", kSuffix},
      {"1K", kSuffix},      {"1e", kSuffix},       {"1Ki1", kSuffix},       {"1mi", kSuffix},
      {"1Ee3", kSuffix},    {".", kNumeric},       {"Ki", kNumeric},        {"-", kNumeric},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    auto q = Quantity::parse(c.text);
    REQUIRE_FALSE(q.has_value());
    CHECK(q.error() == c.error);
  }
}

TEST_CASE("value() rounds fractional quantities away from zero", "[quantity]") {
  CHECK(Quantity::from_milli(1500).value() == 2);
  CHECK(Quantity::from_milli(1000).value() == 1);
  CHECK(Quantity::from_milli(1).value() == 1);
  CHECK(Quantity::from_milli(0).value() == 0);
  CHECK(Quantity::from_milli(-1500).value() == -2);
  CHECK(Quantity::from_milli(-1000).value() == -1);
}

TEST_CASE("quantities print in canonical form and parse back", "[quantity]") {
  // Quantity.String() of k8s.io/apimachinery: canonical in the format the text was written in.
  struct Case {
    std::string text;
    std::string canonical;
  };
  const std::vector<Case> cases = {
      {"0", "0"},           {"500m", "500m"},   {"1.5", "1500m"},    {"2", "2"},
      {"2000m", "2"},       {"1536", "1536"},   {"4Gi", "4Gi"},      {"1536Mi", "1536Mi"},
      {"-1Ki", "-1Ki"},     {"-500m", "-500m"}, {"0.5Gi", "512Mi"},  {"3Pi", "3Pi"},
      {"2048Ki", "2Mi"},    {"1n", "1m"},       {"512Mi", "512Mi"},  {"1500M", "1500M"},
      {"0.1m", "1m"},       {"1k", "1k"},       {"1000", "1k"},      {"1024", "1024"},
      {"1e3", "1e3"},       {"2e3", "2e3"},     {"1.5e-2", "15e-3"}, {"1P", "1P"},
      {"1200Ki", "1200Ki"}, {"0.5Ki", "512"},   {"1.5Ki", "1536"},   {"100e-3", "100e-3"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    auto q = Quantity::parse(c.text);
    REQUIRE(q.has_value());
    CHECK(q->to_string() == c.canonical);
    auto again = Quantity::parse(q->to_string());
    REQUIRE(again.has_value());
    CHECK(*again == *q);
    CHECK(again->to_string() == c.canonical);
  }
}

// operator/kube and reconcilers/policy each had a copy of Quantity; where they disagreed,
// k8s.io/apimachinery's resource.Quantity decides.
TEST_CASE("the copies' differences are settled as apimachinery has them", "[quantity]") {
  // The operator's copy printed "1000" and "1Ki", the policy's "1k" and "1Ki", for values
  // written "1000" and "1024"; Go keeps the DecimalSI format: "1k" and "1024".
  CHECK(Quantity::parse("1000")->to_string() == "1k");
  CHECK(Quantity::parse("1024")->to_string() == "1024");
  // Exponent notation stays exponent notation (the copies printed "2k" and "2000").
  CHECK(Quantity::parse("2e3")->to_string() == "2e3");
  // "1500M" stays "1500M" (the operator's copy printed "1500000000").
  CHECK(Quantity::parse("1500M")->to_string() == "1500M");
  // Value() rounds away from zero (the policy's copy rounded -1500m up to -1).
  CHECK(Quantity::parse("-1500m")->value() == -2);
  // A large exponent saturates (the policy's copy refused exponents past 100).
  CHECK(Quantity::parse("1e101")->milli() == kMax);
  // The API server's messages (the policy's copy wrote its own).
  CHECK(Quantity::parse("5Xi").error() == kFormatWrong);
}

TEST_CASE("quantities remember their format through arithmetic", "[quantity]") {
  CHECK(Quantity::parse("4Gi")->format() == Format::BinarySI);
  CHECK(Quantity::parse("4G")->format() == Format::DecimalSI);
  CHECK(Quantity::parse("4e9")->format() == Format::DecimalExponent);
  // A zero quantity takes the other's format (Quantity.Add and Sub); else the left one's is kept.
  Quantity total;
  total += *Quantity::parse("512Mi");
  total += *Quantity::parse("512Mi");
  CHECK(total.to_string() == "1Gi");
  CHECK((*Quantity::parse("1000") + *Quantity::parse("24")).to_string() == "1024");
  CHECK((*Quantity::parse("512Mi") * 8).to_string() == "4Gi");
  const Quantity half = *Quantity::parse("500m");
  CHECK((half * 5).to_string() == "2500m");
  CHECK((half + *Quantity::parse("1500m")).to_string() == "2");
  CHECK((Quantity::from_milli(kMax) * 2).milli() == kMax);
  CHECK((Quantity::from_milli(kMax) * -2).milli() == -kMax);
}

TEST_CASE("quantity arithmetic and comparison", "[quantity]") {
  const Quantity one = Quantity::from_units(1);
  const Quantity half = Quantity::from_milli(500);
  CHECK((one + half).milli() == 1500);
  CHECK((one - half).milli() == 500);
  CHECK((half - one).milli() == -500);
  CHECK(half < one);
  CHECK(one == Quantity::from_milli(1000));
  Quantity total;
  total += one;
  total += one;
  total -= half;
  CHECK(total.milli() == 1500);
  CHECK((Quantity::from_milli(kMax) + one).milli() == kMax);
  CHECK((Quantity::from_milli(-kMax) - one).milli() == -kMax);
  CHECK((Quantity::from_milli(kMax) - Quantity::from_milli(-kMax)).milli() == kMax);
}
