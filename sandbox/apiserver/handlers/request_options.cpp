// ListOptions and the fieldManager option as apimachinery validates them (metainternalversion's
// ValidateListOptions, metav1's ValidateFieldManager).

#include "sandbox/apiserver/handlers/request_options.hpp"

#include <cstdio>

#include "sandbox/schema/go_format.hpp"

namespace respool::sandbox {
namespace {

ApiError invalid_options(const char* kind, const std::vector<Cause>& causes) {
  return invalid("meta.k8s.io", kind, "", causes);
}

// unicode.IsPrint for the characters a header or query can carry: controls, the C1 block, the
// format characters and every space but ' ' are not printable. (Unassigned code points, which Go
// also counts as unprintable, are taken as printable here.)
bool printable(char32_t r) {
  if (r < 0x20 || (r >= 0x7f && r < 0xa0) || r == 0xad) return false;
  if (r == 0xa0 || r == 0x1680 || (r >= 0x2000 && r <= 0x200f) || (r >= 0x2028 && r <= 0x202f))
    return false;
  if ((r >= 0x205f && r <= 0x2064) || r == 0x3000 || r == 0xfeff) return false;
  return true;
}

// The next code point of UTF-8 text at `i` (advanced past it); U+FFFD for a bad byte, as Go's
// range loop decodes it.
char32_t next_rune(const std::string& s, std::size_t& i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char b = byte(i);
  int len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
  if (len == 0 || i + len > s.size()) {
    ++i;
    return 0xfffd;
  }
  char32_t r = len == 1 ? b : b & (0x7f >> len);
  for (int k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) {
      ++i;
      return 0xfffd;
    }
    r = (r << 6) | (byte(i + k) & 0x3f);
  }
  i += len;
  return r;
}

}  // namespace

std::optional<ApiError> check_list_options(const http::Target& target) {
  std::vector<Cause> causes;
  auto match = target.param("resourceVersionMatch");
  if (match && !match->empty()) {
    std::string m(*match);
    auto rv = target.param("resourceVersion");
    auto cont = target.param("continue");
    if (!rv || rv->empty()) {
      causes.push_back(
          field_forbidden("resourceVersionMatch",
                          "resourceVersionMatch is forbidden unless resourceVersion is "
                          "provided"));
    }
    if (cont && !cont->empty()) {
      causes.push_back(field_forbidden("resourceVersionMatch",
                                       "resourceVersionMatch is forbidden when continue is "
                                       "provided"));
    }
    if (m != "Exact" && m != "NotOlderThan") {
      causes.push_back(
          field_not_supported("resourceVersionMatch", m, {"Exact", "NotOlderThan", ""}));
    }
    if (m == "Exact" && rv && *rv == "0") {
      causes.push_back(field_forbidden("resourceVersionMatch",
                                       "resourceVersionMatch \"exact\" is forbidden for "
                                       "resourceVersion \"0\""));
    }
  }
  if (target.param("sendInitialEvents")) {
    causes.push_back(
        field_forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
  }
  if (causes.empty()) return std::nullopt;
  return invalid_options("ListOptions", causes);
}

std::optional<ApiError> check_field_manager(const std::string& manager, const char* options_kind) {
  constexpr std::size_t kMaxLength = 128;
  std::vector<Cause> causes;
  if (manager.size() > kMaxLength) {
    causes.push_back({"FieldValueTooLong",
                      "Too long: may not be more than " + std::to_string(kMaxLength) + " bytes",
                      "fieldManager"});
  }
  for (std::size_t i = 0; i < manager.size();) {
    std::size_t at = i;
    char32_t r = next_rune(manager, i);
    if (printable(r)) continue;
    char code[16];
    std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(r));
    causes.push_back({"FieldValueInvalid",
                      "Invalid value: " + schema::detail::go_quote(manager) +
                          ": invalid character " + code + " (at position " + std::to_string(at) +
                          ")",
                      "fieldManager"});
  }
  if (causes.empty()) return std::nullopt;
  return invalid_options(options_kind, causes);
}

}  // namespace respool::sandbox
