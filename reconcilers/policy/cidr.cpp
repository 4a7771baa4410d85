#include "reconcilers/policy/cidr.hpp"

#include <charconv>

namespace respool::policy {

namespace {

std::uint32_t mask(int prefix) {
  return prefix == 0 ? 0u : ~std::uint32_t{0} << (32 - prefix);
}

std::string format_address(std::uint32_t a) {
  return std::to_string(a >> 24) + "." + std::to_string((a >> 16) & 0xFF) + "." +
         std::to_string((a >> 8) & 0xFF) + "." + std::to_string(a & 0xFF);
}

// A decimal number without sign or leading zeros, at most `max`.
std::optional<unsigned> number(std::string_view text, unsigned max) {
  if (text.empty() || text.size() > 3 || (text.size() > 1 && text[0] == '0')) return std::nullopt;
  unsigned value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value > max) return std::nullopt;
  return value;
}

}  // namespace

std::uint32_t Cidr::last() const {
  return address | ~mask(prefix);
}

bool Cidr::contains(const Cidr& other) const {
  return other.prefix >= prefix && (other.address & mask(prefix)) == address;
}

bool Cidr::overlaps(const Cidr& other) const {
  return contains(other) || other.contains(*this);
}

std::string Cidr::to_string() const {
  return format_address(address) + "/" + std::to_string(prefix);
}

std::expected<Cidr, std::string> parse_cidr(std::string_view text) {
  const std::string bad = "\"" + std::string(text) + "\" is not an IPv4 CIDR block (a.b.c.d/n)";
  auto slash = text.find('/');
  if (slash == std::string_view::npos) return std::unexpected(bad);
  auto prefix = number(text.substr(slash + 1), 32);
  if (!prefix) return std::unexpected(bad);
  std::uint32_t address = 0;
  std::string_view rest = text.substr(0, slash);
  for (int octet = 0; octet < 4; ++octet) {
    auto dot = rest.find('.');
    if ((octet < 3) == (dot == std::string_view::npos)) return std::unexpected(bad);
    auto value = number(rest.substr(0, dot), 255);
    if (!value) return std::unexpected(bad);
    address = (address << 8) | *value;
    rest = dot == std::string_view::npos ? std::string_view{} : rest.substr(dot + 1);
  }
  Cidr cidr{address & mask(int(*prefix)), int(*prefix)};
  if (cidr.address != address) {
    return std::unexpected("\"" + std::string(text) + "\" has host bits set; the block is " +
                           cidr.to_string());
  }
  return cidr;
}

std::vector<UsedBlock> fixed_blocks() {
  return {{kContainerBlock, "the container block " + kContainerBlock.to_string()},
          {kServiceBlock, "the service block " + kServiceBlock.to_string()}};
}

std::optional<UsedBlock> first_overlap(const Cidr& block, std::span<const UsedBlock> in_use) {
  for (const UsedBlock& used : in_use) {
    if (block.overlaps(used.block)) return used;
  }
  return std::nullopt;
}

std::optional<Cidr> choose_preset(std::span<const Cidr> presets,
                                  std::span<const UsedBlock> in_use) {
  for (const Cidr& preset : presets) {
    if (!first_overlap(preset, in_use)) return preset;
  }
  return std::nullopt;
}

}  // namespace respool::policy
