#pragma once
// A refusal as a real server words it: 422 with reason Invalid and one StatusCause per error.
// Returns the message, for the test to compare with the real server's.

#include <catch2/catch.hpp>
#include <string>

#include "harness.hpp"

namespace respool::sandbox::testing {

inline std::string invalid_message(const Reply& r, std::size_t causes) {
  INFO(r.body);
  REQUIRE(r.status == 422);
  Json s = r.json();
  REQUIRE(s["reason"] == "Invalid");
  REQUIRE(s["details"]["causes"].size() == causes);
  return s["message"].get<std::string>();
}

}  // namespace respool::sandbox::testing
