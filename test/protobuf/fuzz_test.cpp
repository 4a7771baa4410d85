// Random and mutated protobuf bodies: the decoder answers an object or an error, never crashes,
// never throws, and every object it answers serializes (valid UTF-8, finite numbers).

#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <random>

#include "sandbox/protobuf/decode.hpp"
#include "test/protobuf/wire_builder.hpp"

using respool::sandbox::protobuf::decode_body;
using respool::sandbox::protobuf::GroupVersionKind;
using respool::test::Wire;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Decodes and checks the outcome is well-formed; counts successes.
void decode_one(const std::string& body, const GroupVersionKind& defaults, int& decoded) {
  auto out = decode_body(body, defaults);
  if (out) {
    CHECK_NOTHROW(out->dump());
    ++decoded;
  } else {
    CHECK_FALSE(out.error().message.empty());
  }
}

// The envelope's typeMeta (apiVersion, kind) and raw object bytes, read back from a body built
// as client-go builds them (magic, then runtime.Unknown fields 1 and 2, each length-delimited).
struct Envelope {
  std::string api_version, kind, raw;
};

std::uint64_t read_varint(std::string_view s, std::size_t& at) {
  std::uint64_t v = 0;
  for (int shift = 0; at < s.size(); shift += 7) {
    auto b = static_cast<unsigned char>(s[at++]);
    v |= static_cast<std::uint64_t>(b & 0x7F) << shift;
    if (b < 0x80) break;
  }
  return v;
}

// Length-delimited fields of one message by number (the test's bodies hold nothing else).
std::map<std::uint64_t, std::string> fields_of(std::string_view s) {
  std::map<std::uint64_t, std::string> out;
  std::size_t at = 0;
  while (at < s.size()) {
    std::uint64_t tag = read_varint(s, at);
    REQUIRE((tag & 7) == 2);
    std::size_t len = read_varint(s, at);
    REQUIRE(at + len <= s.size());
    out[tag >> 3] = std::string(s.substr(at, len));
    at += len;
  }
  return out;
}

Envelope envelope_of(const std::string& body) {
  auto unknown = fields_of(std::string_view(body).substr(4));
  auto type_meta = fields_of(unknown[1]);
  return {type_meta[1], type_meta[2], unknown[2]};
}

std::string mutate(std::string body, std::mt19937& rng) {
  std::uniform_int_distribution<int> what(0, 5);
  int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !body.empty(); ++e) {
    std::size_t at = rng() % body.size();
    switch (what(rng)) {
      case 0:  // flip a bit
        body[at] = static_cast<char>(body[at] ^ (1 << (rng() % 8)));
        break;
      case 1:  // a random byte
        body[at] = static_cast<char>(rng() & 0xFF);
        break;
      case 2:  // drop a run
        body.erase(at, 1 + rng() % 8);
        break;
      case 3:  // duplicate a run (fields repeated, lengths off)
        body.insert(at, body.substr(at, 1 + rng() % 16));
        break;
      case 4:  // truncate
        body.resize(at);
        break;
      default:  // a large varint where a length or tag was
        body.replace(at, 1, std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10));
    }
  }
  return body;
}

}  // namespace

TEST_CASE("mutated kubectl bodies decode or fail cleanly", "[fuzz]") {
  const std::string dir = RESPOOL_SOURCE_DIR "/test/protobuf/bodies/";
  std::vector<std::string> seeds;
  for (const char* name :
       {"namespace", "configmap", "secret-generic", "secret-docker", "serviceaccount", "deployment",
        "service-nodeport", "job", "pdb", "pod-running", "lease"}) {
    seeds.push_back(read_file(dir + name + ".pb"));
    REQUIRE_FALSE(seeds.back().empty());
  }
  std::mt19937 rng(20241124);
  int decoded = 0, total = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string& seed = seeds[rng() % seeds.size()];
    decode_one(mutate(seed, rng), {"", "v1", "ConfigMap"}, decoded);
    ++total;
  }
  // Both outcomes are exercised: many mutations still decode (strings changed, unknown fields).
  CHECK(decoded > total / 20);
  CHECK(decoded < total);
}

TEST_CASE("random bytes after the magic decode or fail cleanly", "[fuzz]") {
  std::mt19937 rng(7);
  int decoded = 0;
  const char* kinds[][3] = {{"", "v1", "Pod"},
                            {"apps", "v1", "Deployment"},
                            {"", "v1", "Secret"},
                            {"coordination.k8s.io", "v1", "Lease"}};
  for (int i = 0; i < 20000; ++i) {
    std::string raw(rng() % 64, '\0');
    for (char& c : raw)
      c = static_cast<char>(rng() & 0xFF);
    const auto& k = kinds[rng() % 4];
    std::string body;
    if (i % 2 == 0) {
      body = respool::test::k8s_body(
          std::string(k[0]).empty() ? k[1] : std::string(k[0]) + "/" + k[1], k[2], Wire().raw(raw));
    } else {
      body = std::string("k8s\0", 4) + raw;
    }
    decode_one(body, {k[0], k[1], k[2]}, decoded);
  }
  CHECK(decoded > 0);
}

TEST_CASE("deeply nested and huge declared lengths are refused, not followed", "[fuzz]") {
  // A length claiming far more than the body: unexpected EOF, no allocation of that size.
  std::string body =
      respool::test::k8s_body("v1", "Pod", Wire().tag(1, 2).raw_varint(1ULL << 40).raw("short"));
  auto out = decode_body(body, {"", "v1", "Pod"});
  REQUIRE_FALSE(out);
  CHECK(out.error().message == "unexpected EOF");
  // Groups nested 100,000 deep inside an unknown field: skipped iteratively.
  Wire deep;
  for (int i = 0; i < 100000; ++i)
    deep.tag(99, 3);
  for (int i = 0; i < 100000; ++i)
    deep.tag(99, 4);
  auto skipped = decode_body(respool::test::k8s_body("v1", "Pod", deep), {"", "v1", "Pod"});
  REQUIRE(skipped);
}

TEST_CASE("every truncation of every recorded body decodes or fails cleanly", "[fuzz]") {
  // Cut at every byte: once the whole body (the envelope runs short), once the object inside
  // an intact envelope (a message, a string or a varint runs short at each of its bytes).
  const std::string dir = RESPOOL_SOURCE_DIR "/test/protobuf/bodies/";
  int envelope_cuts = 0, object_cuts = 0, decoded = 0, eof = 0;
  for (const char* name : {"namespace", "configmap", "secret-docker", "deployment", "job", "pdb",
                           "service-nodeport", "pod-running", "lease"}) {
    const std::string body = read_file(dir + name + ".pb");
    REQUIRE(body.size() > 4);
    const Envelope env = envelope_of(body);
    REQUIRE_FALSE(env.raw.empty());
    const std::size_t slash = env.api_version.find('/');
    const GroupVersionKind gvk =
        slash == std::string::npos ? GroupVersionKind{"", env.api_version, env.kind}
                                   : GroupVersionKind{env.api_version.substr(0, slash),
                                                      env.api_version.substr(slash + 1), env.kind};
    INFO(name);
    REQUIRE(decode_body(body, gvk));
    for (std::size_t n = 0; n < body.size(); ++n, ++envelope_cuts) {
      auto out = decode_body(std::string_view(body).substr(0, n), gvk);
      // A cut between the envelope's fields is a shorter envelope (the trailing empty content
      // encoding and type); past the magic, every other cut runs short.
      if (out) {
        CHECK_NOTHROW(out->dump());
        ++decoded;
      } else if (n > 4) {
        CHECK(out.error().message == "unexpected EOF");
      }
    }
    for (std::size_t n = 0; n < env.raw.size(); ++n, ++object_cuts) {
      auto out = decode_body(
          respool::test::k8s_body(env.api_version, env.kind, Wire().raw(env.raw.substr(0, n))),
          gvk);
      if (out) {
        CHECK_NOTHROW(out->dump());
        ++decoded;
      } else {
        CHECK_FALSE(out.error().message.empty());
        eof += out.error().message == "unexpected EOF";
      }
    }
  }
  // Cuts between top-level fields decode (a shorter object); most others run short.
  CHECK(envelope_cuts > 2000);
  CHECK(object_cuts > 2000);
  CHECK(decoded > 0);
  CHECK(eof > object_cuts / 2);
}
