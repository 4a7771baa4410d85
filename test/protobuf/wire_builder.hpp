#pragma once
// Builds protobuf wire bytes by hand for the decoder's tests: fields in the order written.

#include <cstdint>
#include <string>
#include <string_view>

namespace respool::test {

class Wire {
 public:
  Wire& varint(int field, std::uint64_t v) {
    tag(field, 0);
    raw_varint(v);
    return *this;
  }
  Wire& str(int field, std::string_view s) {
    tag(field, 2);
    raw_varint(s.size());
    out_.append(s);
    return *this;
  }
  Wire& msg(int field, const Wire& m) { return str(field, m.bytes()); }
  Wire& fixed64(int field, std::uint64_t v) {
    tag(field, 1);
    for (int i = 0; i < 8; ++i)
      out_ += static_cast<char>((v >> (8 * i)) & 0xFF);
    return *this;
  }
  Wire& fixed32(int field, std::uint32_t v) {
    tag(field, 5);
    for (int i = 0; i < 4; ++i)
      out_ += static_cast<char>((v >> (8 * i)) & 0xFF);
    return *this;
  }
  // map<string, string> entry.
  Wire& entry(int field, std::string_view key, std::string_view value) {
    return msg(field, Wire().str(1, key).str(2, value));
  }
  Wire& entry(int field, std::string_view key, const Wire& value) {
    return msg(field, Wire().str(1, key).msg(2, value));
  }
  Wire& tag(int field, int wire) {
    raw_varint((static_cast<std::uint64_t>(field) << 3) | static_cast<unsigned>(wire));
    return *this;
  }
  Wire& raw(std::string_view bytes) {
    out_.append(bytes);
    return *this;
  }
  Wire& raw_varint(std::uint64_t v) {
    while (v >= 0x80) {
      out_ += static_cast<char>((v & 0x7F) | 0x80);
      v >>= 7;
    }
    out_ += static_cast<char>(v);
    return *this;
  }
  const std::string& bytes() const { return out_; }

 private:
  std::string out_;
};

// A whole body: the k8s magic and a runtime.Unknown around `object`.
inline std::string k8s_body(std::string_view api_version, std::string_view kind,
                            const Wire& object) {
  Wire unknown;
  unknown.msg(1, Wire().str(1, api_version).str(2, kind))
      .str(2, object.bytes())
      .str(3, "")
      .str(4, "");
  return std::string("k8s\0", 4) + unknown.bytes();
}

}  // namespace respool::test
