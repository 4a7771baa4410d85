// A controller waits for its own writes to show in its cache (reconcilers/written_versions.hpp).
#include <catch2/catch.hpp>

#include "reconcilers/written_versions.hpp"

using respool::reconcilers::WrittenVersions;

TEST_CASE("own writes: waited for until the cache holds that version or a later one",
          "[reconcilers][nodeop][rule:N2]") {
  const respool::runtime::TimePoint t0{};
  WrittenVersions w;
  std::map<std::string, std::string> cache = {{"nodeoperations/a", "10"}};
  auto cached = [&](const std::string& key) -> std::optional<std::string> {
    auto it = cache.find(key);
    return it == cache.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  w.wrote("p", "nodeoperations/a", "12", t0);
  CHECK(w.behind("p", t0, cached));
  CHECK_FALSE(w.behind("q", t0, cached));  // another pool does not wait on it
  cache["nodeoperations/a"] = "12";
  CHECK_FALSE(w.behind("p", t0, cached));
  // A later write by someone else also shows ours; a gone object waits for nothing.
  w.wrote("p", "nodeoperations/a", "14", t0);
  cache["nodeoperations/a"] = "15";
  CHECK_FALSE(w.behind("p", t0, cached));
  w.wrote("p", "nodeoperations/b", "20", t0);
  CHECK_FALSE(w.behind("p", t0, cached));
  // Versions that are not numbers: only equality, or the timeout.
  w.wrote("p", "nodeoperations/a", "x7", t0);
  cache["nodeoperations/a"] = "x8";
  CHECK(w.behind("p", t0 + std::chrono::seconds(9), cached));
  CHECK_FALSE(w.behind("p", t0 + WrittenVersions::kTimeout + std::chrono::seconds(1), cached));
  CHECK(WrittenVersions::reached("100", "99"));
  CHECK_FALSE(WrittenVersions::reached("99", "100"));
}

TEST_CASE("own writes: the version comes from the API's answer; a gone pool forgets its writes",
          "[reconcilers][rule:P6]") {
  const respool::runtime::TimePoint t0{};
  WrittenVersions w;
  std::map<std::string, std::string> cache = {{"n-1", "5"}, {"n-2", "5"}};
  auto cached = [&](const std::string& key) -> std::optional<std::string> {
    auto it = cache.find(key);
    return it == cache.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  w.wrote_answer("p", "n-1", nlohmann::json{{"metadata", {{"resourceVersion", "7"}}}}, t0);
  w.wrote_answer("q", "n-2", nlohmann::json{{"metadata", {{"resourceVersion", "8"}}}}, t0);
  w.wrote_answer("p", "n-3", nlohmann::json::object(), t0);  // no version: nothing to wait for
  CHECK(w.behind("p", t0, cached));
  CHECK(w.behind("q", t0, cached));
  w.forget("p");
  CHECK_FALSE(w.behind("p", t0, cached));
  CHECK(w.behind("q", t0 + std::chrono::seconds(29), cached));
  CHECK_FALSE(w.behind("q", t0 + std::chrono::seconds(31), cached));
}
