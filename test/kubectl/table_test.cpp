// Columns and ages as kubectl prints them.

#include <catch2/catch.hpp>

#include "cmd/kubectl-respool/view/table.hpp"

using namespace respool::kubectl;
using std::chrono::seconds;

TEST_CASE("columns: widest cell, three spaces, <none>, the last column unpadded") {
  Table t{{"NAME", "STATE", "CODES"},
          {{"n-1", "Available", ""}, {"node-22", "Abnormal", "A050101,A050202"}}};
  CHECK(render(t) ==
        "NAME      STATE       CODES\n"
        "n-1       Available   <none>\n"
        "node-22   Abnormal    A050101,A050202\n");
  CHECK(render(Table{{"A"}, {}}).empty());
  // A short row is padded with <none>; a multi-byte cell counts as its characters.
  CHECK(render(Table{{"A", "B"}, {{"▁▂"}, {"xyz", "1"}}}) == "A     B\n▁▂    <none>\nxyz   1\n");
}

TEST_CASE("ages as duration.HumanDuration prints them") {
  CHECK(human_duration(seconds(-5)) == "<invalid>");
  CHECK(human_duration(seconds(-1)) == "0s");
  CHECK(human_duration(seconds(0)) == "0s");
  CHECK(human_duration(seconds(119)) == "119s");
  CHECK(human_duration(seconds(120)) == "2m");
  CHECK(human_duration(seconds(303)) == "5m3s");
  CHECK(human_duration(seconds(600)) == "10m");
  CHECK(human_duration(seconds(3 * 3600)) == "3h");
  CHECK(human_duration(seconds(3 * 3600 + 5 * 60)) == "3h5m");
  CHECK(human_duration(seconds(47 * 3600)) == "47h");
  CHECK(human_duration(seconds(52 * 3600)) == "2d4h");
  CHECK(human_duration(seconds(10 * 86400)) == "10d");
  CHECK(human_duration(seconds(3 * 365 * 86400 + 86400)) == "3y1d");
  CHECK(human_duration(seconds(9LL * 365 * 86400)) == "9y");
}
