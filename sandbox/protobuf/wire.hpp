#pragma once
// The protobuf wire format as gogo-generated Unmarshal code reads it, with its error values:
// io.ErrUnexpectedEOF, ErrIntOverflowGenerated, ErrInvalidLengthGenerated, and skipGenerated
// for fields a message does not know.

#include <cstdint>
#include <string>
#include <string_view>

namespace respool::sandbox::protobuf {

// A decoding failure, worded as the Go decoder's error. Thrown inside the decoder only; its
// entry points return it as a value.
struct Failure {
  std::string message;
};

class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}

  bool done() const { return i_ >= data_.size(); }
  std::size_t pos() const { return i_; }

  std::uint64_t varint() {
    std::uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (shift >= 64) throw Failure{"proto: integer overflow"};
      if (i_ >= data_.size()) throw Failure{"unexpected EOF"};
      auto b = static_cast<unsigned char>(data_[i_++]);
      v |= static_cast<std::uint64_t>(b & 0x7F) << shift;
      if (b < 0x80) return v;
    }
  }

  // Wire type 0 (varint), 1 (8 bytes) or 5 (4 bytes), little-endian.
  std::uint64_t fixed_or_varint(int wire) {
    if (wire == 0) return varint();
    std::size_t n = wire == 1 ? 8 : 4;
    if (data_.size() - i_ < n) throw Failure{"unexpected EOF"};
    std::uint64_t v = 0;
    for (std::size_t k = 0; k < n; ++k)
      v |= static_cast<std::uint64_t>(static_cast<unsigned char>(data_[i_ + k])) << (8 * k);
    i_ += n;
    return v;
  }

  // A length-prefixed field's bytes (strings, bytes, messages, packed scalars).
  std::string_view length_delimited() {
    auto length = static_cast<std::int64_t>(varint());
    if (length < 0) throw Failure{"proto: negative length found during unmarshaling"};
    if (static_cast<std::uint64_t>(length) > data_.size() - i_) throw Failure{"unexpected EOF"};
    std::string_view out = data_.substr(i_, static_cast<std::size_t>(length));
    i_ += static_cast<std::size_t>(length);
    return out;
  }

  // Skips the field whose tag starts at `tag_pos` (skipGenerated, groups included).
  void skip_field(std::size_t tag_pos) {
    i_ = tag_pos;
    int depth = 0;
    while (true) {
      if (i_ >= data_.size()) throw Failure{"unexpected EOF"};
      int wire = static_cast<int>(varint() & 7);
      switch (wire) {
        case 0:
          varint();
          break;
        case 1:
          skip(8);
          break;
        case 2: {
          auto length = static_cast<std::int64_t>(varint());
          if (length < 0) throw Failure{"proto: negative length found during unmarshaling"};
          skip(static_cast<std::uint64_t>(length));
          break;
        }
        case 3:
          ++depth;
          break;
        case 4:
          if (depth == 0) throw Failure{"proto: unexpected end of group"};
          --depth;
          break;
        case 5:
          skip(4);
          break;
        default:
          throw Failure{"proto: illegal wireType " + std::to_string(wire)};
      }
      if (depth == 0) return;
    }
  }

 private:
  void skip(std::uint64_t n) {
    if (n > data_.size() - i_) throw Failure{"unexpected EOF"};
    i_ += static_cast<std::size_t>(n);
  }

  std::string_view data_;
  std::size_t i_ = 0;
};

}  // namespace respool::sandbox::protobuf
