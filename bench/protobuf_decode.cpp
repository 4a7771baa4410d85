// Decode rate of protobuf request bodies: a running pod as client-go sends it (1.9 KB of
// protobuf, 6.9 KB as JSON), decoded into its JSON object, beside parsing the same object's
// JSON text with nlohmann::json (what a JSON body costs the server); and the one-time parse of
// the embedded type table. Each figure is the median of 9 rounds (the spread beside it), so a
// busy machine's slow round moves it little.
//   bench_protobuf_decode [seconds per figure, default 2]

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "bench/harness.hpp"
#include "sandbox/protobuf/decode.hpp"

namespace {

using Clock = std::chrono::steady_clock;
namespace pb = respool::sandbox::protobuf;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Figure {
  double median_us, fastest_us, slowest_us;
};

// Runs `step` in 9 rounds of about `seconds` / 9 each; microseconds per call in each round.
template <typename F>
Figure time_per_call(double seconds, F&& step) {
  constexpr int kRounds = 9;
  std::array<double, kRounds> us{};
  for (double& round : us) {
    auto start = Clock::now();
    long n = 0;
    std::chrono::duration<double> elapsed{};
    do {
      for (int i = 0; i < 100; ++i)
        step();
      n += 100;
      elapsed = Clock::now() - start;
    } while (elapsed.count() < seconds / kRounds);
    round = elapsed.count() * 1e6 / static_cast<double>(n);
  }
  std::sort(us.begin(), us.end());
  return {us[kRounds / 2], us.front(), us.back()};
}

void print(const char* what, const Figure& f, std::size_t bytes) {
  std::printf("%-26s median %6.2f us/pod (%.2f..%.2f)  %8.0f pods/s  %6.1f MB/s\n", what,
              f.median_us, f.fastest_us, f.slowest_us, 1e6 / f.median_us,
              static_cast<double>(bytes) / f.median_us);
}

}  // namespace

int main(int argc, char** argv) {
  respool::bench::begin("bench_protobuf_decode", std::chrono::minutes(10));
  double seconds = argc > 1 ? std::stod(argv[1]) : 2.0;
  const std::string dir = RESPOOL_SOURCE_DIR "/test/protobuf/bodies/";
  std::string body = read_file(dir + "pod-running.pb");
  std::string json = read_file(dir + "pod-running.json");
  if (body.empty() || json.empty()) {
    std::fprintf(stderr, "test/protobuf/bodies/pod-running.{pb,json} not found\n");
    return 1;
  }
  auto parse_start = Clock::now();
  const pb::ApiTable& table = pb::ApiTable::get();  // parsed once, on the first body
  std::chrono::duration<double, std::milli> parse_ms = Clock::now() - parse_start;
  std::printf("k8s-api.table: %zu messages parsed in %.1f ms (once per process)\n",
              table.messages().size(), parse_ms.count());
  auto first = pb::decode_body(body, {"", "v1", "Pod"});
  if (!first || *first != nlohmann::json::parse(json)) {
    std::fprintf(stderr, "the decoded pod differs from its JSON\n");
    return 1;
  }
  std::size_t sink = 0;
  Figure decode = time_per_call(seconds, [&] {
    sink += pb::decode_body(body, {"", "v1", "Pod"})->size();
  });
  Figure parse = time_per_call(seconds, [&] { sink += nlohmann::json::parse(json).size(); });
  std::printf("pod body: %zu bytes protobuf, %zu bytes JSON\n", body.size(), json.size());
  print("protobuf -> JSON object:", decode, body.size());
  print("JSON text -> JSON object:", parse, json.size());
  if (sink == 0) respool::bench::die("nothing was decoded");
  respool::bench::completed();
  return 0;
}
