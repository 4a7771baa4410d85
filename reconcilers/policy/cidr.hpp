#pragma once
// IPv4 CIDR blocks: parsing, formatting, overlap and containment, and the W3 checks of a block
// against the blocks already in use (each named, so that a conflict can say with what).

#include <compare>
#include <cstdint>
#include <expected>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace respool::policy {

struct Cidr {
  std::uint32_t address = 0;  // the network address, host bits zero
  int prefix = 0;             // 0..32

  std::uint32_t first() const { return address; }
  std::uint32_t last() const;
  bool contains(const Cidr& other) const;
  bool overlaps(const Cidr& other) const;
  std::string to_string() const;
  friend auto operator<=>(const Cidr&, const Cidr&) = default;
};

// "192.168.128.0/17". Refuses host bits ("192.168.1.5/24"), naming the network address meant.
std::expected<Cidr, std::string> parse_cidr(std::string_view text);

// W3's fixed blocks: the container block and the service block.
inline constexpr Cidr kContainerBlock{0xAC100000u, 16};  // 172.16.0.0/16
inline constexpr Cidr kServiceBlock{0x0AF70000u, 16};    // 10.247.0.0/16

// A block in use and what uses it, in words: "the container block 172.16.0.0/16",
// "network net-a (192.168.0.0/17)".
struct UsedBlock {
  Cidr block;
  std::string owner;
};

// The container and service blocks, named.
std::vector<UsedBlock> fixed_blocks();

// The first block of `in_use` that `block` overlaps.
std::optional<UsedBlock> first_overlap(const Cidr& block, std::span<const UsedBlock> in_use);

// W1/W3: the first preset that overlaps nothing in use.
std::optional<Cidr> choose_preset(std::span<const Cidr> presets, std::span<const UsedBlock> in_use);

}  // namespace respool::policy
