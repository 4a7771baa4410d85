// The audit stream: one record per line, written as given.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "operator/runtime/log.hpp"

using namespace respool::runtime;

TEST_CASE("audit records are one line each, written as given", "[runtime][log][rule:A1]") {
  const auto path = std::filesystem::temp_directory_path() /
                    ("respool-audit-test-" + std::to_string(::getpid()) + ".jsonl");
  std::filesystem::remove(path);
  log::open_audit(path.string());
  log::audit(R"({"operation":"addClusterNode","node":"n-1"})");
  log::audit("{\"operation\":\"deleteClusterNode\",\n\"node\":\"n-2\"}");  // a stray line break
  log::open_audit("-");                                                    // closes the file

  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == R"({"operation":"addClusterNode","node":"n-1"})");
  CHECK(lines[1] == R"({"operation":"deleteClusterNode", "node":"n-2"})");
  std::filesystem::remove(path);
}
