#pragma once
// The failure catalogue of the shipped catalog (config/catalog.yaml), parsed once per test
// binary: what the code-error and diagnosis tests match real-world samples against.

#include <catch2/catch.hpp>

#include "reconcilers/policy/catalog.hpp"
#include "reconcilers/policy/failure_catalogue.hpp"
#include "test/policy/yaml_json.hpp"

namespace respool::policy::test {

inline const FailureCatalogue& shipped() {
  static const Catalog catalog = [] {
    auto c = parse_catalog(load_yaml("config/catalog.yaml"));
    REQUIRE(c);
    return *c;
  }();
  REQUIRE(catalog.failures);
  return *catalog.failures;
}

}  // namespace respool::policy::test
