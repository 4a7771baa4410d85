// Decode rate of protobuf request bodies: a running pod as client-go sends it (1.9 KB of
// protobuf, 6.9 KB as JSON), decoded into its JSON object, beside parsing the same object's
// JSON text with nlohmann::json (what a JSON body costs the server); and the one-time parse of
// the embedded type table.
//   bench_protobuf_decode [seconds per figure, default 2]

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "sandbox/protobuf/decode.hpp"

namespace {

using Clock = std::chrono::steady_clock;
namespace pb = respool::sandbox::protobuf;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Runs `step` for about `seconds`; returns calls per second.
template <typename F>
double rate(double seconds, F&& step) {
  auto start = Clock::now();
  long n = 0;
  std::chrono::duration<double> elapsed{};
  do {
    for (int i = 0; i < 100; ++i)
      step();
    n += 100;
    elapsed = Clock::now() - start;
  } while (elapsed.count() < seconds);
  return static_cast<double>(n) / elapsed.count();
}

}  // namespace

int main(int argc, char** argv) {
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
  double pb_rate = rate(seconds, [&] { sink += pb::decode_body(body, {"", "v1", "Pod"})->size(); });
  double json_rate = rate(seconds, [&] { sink += nlohmann::json::parse(json).size(); });
  std::printf("pod body: %zu bytes protobuf, %zu bytes JSON\n", body.size(), json.size());
  std::printf("protobuf -> JSON object: %9.0f pods/s  %6.1f MB/s of protobuf  %6.2f us/pod\n",
              pb_rate, pb_rate * static_cast<double>(body.size()) / 1e6, 1e6 / pb_rate);
  std::printf("JSON text -> JSON object: %8.0f pods/s  %6.1f MB/s of JSON      %6.2f us/pod\n",
              json_rate, json_rate * static_cast<double>(json.size()) / 1e6, 1e6 / json_rate);
  return sink == 0 ? 1 : 0;
}
