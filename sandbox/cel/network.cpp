// Kubernetes' url, ip and cidr libraries (k8s.io/apiserver/pkg/cel/library): addresses parsed
// as Go's net/netip does, URLs as url.ParseRequestURI.

#include <cstdio>

#include "sandbox/cel/library.hpp"

namespace respool::sandbox::cel {
namespace {

using Addr = std::vector<std::uint8_t>;

bool parse_v4(std::string_view s, Addr& out) {
  out.clear();
  std::size_t at = 0;
  for (int part = 0; part < 4; ++part) {
    if (part > 0) {
      if (at >= s.size() || s[at] != '.') return false;
      ++at;
    }
    std::size_t start = at;
    int v = 0;
    while (at < s.size() && s[at] >= '0' && s[at] <= '9' && at - start < 3) {
      v = v * 10 + (s[at] - '0');
      ++at;
    }
    if (at == start || v > 255 || (at - start > 1 && s[start] == '0')) return false;
    out.push_back(static_cast<std::uint8_t>(v));
  }
  return at == s.size();
}

bool parse_v6(std::string_view s, Addr& out) {
  out.assign(16, 0);
  std::vector<std::uint16_t> head, tail;
  bool compressed = false;
  std::size_t at = 0;
  if (s.substr(0, 2) == "::") {
    compressed = true;
    at = 2;
  }
  auto* groups = compressed ? &tail : &head;
  bool v4_tail = false;
  Addr v4;
  while (at < s.size()) {
    std::size_t end = at;
    while (end < s.size() && s[end] != ':')
      ++end;
    std::string_view group = s.substr(at, end - at);
    if (group.find('.') != std::string_view::npos) {
      if (end != s.size() || !parse_v4(group, v4)) return false;
      v4_tail = true;
      at = end;
      break;
    }
    if (group.empty() || group.size() > 4) return false;
    std::uint16_t g = 0;
    for (char ch : group) {
      int d = ch >= '0' && ch <= '9'   ? ch - '0'
              : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
              : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                       : -1;
      if (d < 0) return false;
      g = static_cast<std::uint16_t>(g * 16 + d);
    }
    groups->push_back(g);
    at = end;
    if (at < s.size()) {
      ++at;  // ':'
      if (at < s.size() && s[at] == ':') {
        if (compressed) return false;
        compressed = true;
        groups = &tail;
        ++at;
      } else if (at == s.size()) {
        return false;
      }
    }
  }
  std::size_t total = head.size() + tail.size() + (v4_tail ? 2 : 0);
  if (total > 8 || (!compressed && total != 8) || (compressed && total == 8)) return false;
  std::size_t k = 0;
  for (std::uint16_t g : head)
    out[k++] = static_cast<std::uint8_t>(g >> 8), out[k++] = g & 0xFF;
  k = 16 - tail.size() * 2 - (v4_tail ? 4 : 0);
  for (std::uint16_t g : tail)
    out[k++] = static_cast<std::uint8_t>(g >> 8), out[k++] = g & 0xFF;
  if (v4_tail) {
    for (std::uint8_t b : v4)
      out[k++] = b;
  }
  return true;
}

std::string addr_string(const Addr& a) {
  char buf[64];
  if (a.size() == 4) {
    std::snprintf(buf, sizeof buf, "%d.%d.%d.%d", a[0], a[1], a[2], a[3]);
    return buf;
  }
  std::uint16_t g[8];
  for (int i = 0; i < 8; ++i)
    g[i] = static_cast<std::uint16_t>(a[2 * i] << 8 | a[2 * i + 1]);
  int best = -1, best_len = 0;
  for (int i = 0; i < 8;) {
    if (g[i] != 0) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 8 && g[j] == 0)
      ++j;
    if (j - i > best_len && j - i >= 2) best = i, best_len = j - i;
    i = j;
  }
  std::string out;
  for (int i = 0; i < 8; ++i) {
    if (i == best) {
      out += "::";
      i += best_len - 1;
      continue;
    }
    if (!out.empty() && out.back() != ':') out += ':';
    std::snprintf(buf, sizeof buf, "%x", g[i]);
    out += buf;
  }
  return out;
}

bool is_4in6(const Addr& a) {
  if (a.size() != 16) return false;
  for (int i = 0; i < 10; ++i) {
    if (a[i]) return false;
  }
  return a[10] == 0xFF && a[11] == 0xFF;
}

// The address, or an error value worded as Kubernetes' library.
Value parse_ip(const std::string& s, Addr& out) {
  if (s.find('%') != std::string::npos) {
    return Value::error("IP address with zone value is not allowed");
  }
  bool ok = s.find(':') != std::string::npos ? parse_v6(s, out) : parse_v4(s, out);
  if (!ok) {
    return Value::error("IP Address \"" + s +
                        "\" parse error during conversion from string: "
                        "ParseAddr(\"" +
                        s + "\"): unable to parse IP");
  }
  if (is_4in6(out)) {
    return Value::error("IPv4-mapped IPv6 address \"" + s + "\" is not allowed");
  }
  return Value();
}

Value make_ip(const Addr& a) {
  auto data = std::make_shared<OpaqueData>();
  data->type = OpaqueData::Type::Ip;
  data->addr = a;
  data->text = addr_string(a);
  return Value::opaque(std::move(data));
}

Value make_cidr(const Addr& a, int prefix) {
  auto data = std::make_shared<OpaqueData>();
  data->type = OpaqueData::Type::Cidr;
  data->addr = a;
  data->prefix = prefix;
  data->text = addr_string(a) + "/" + std::to_string(prefix);
  return Value::opaque(std::move(data));
}

Value parse_cidr(const std::string& s, Addr& a, int& prefix) {
  auto slash = s.find('/');
  std::string bits = slash == std::string::npos ? "" : s.substr(slash + 1);
  Value e;
  if (slash != std::string::npos) e = parse_ip(s.substr(0, slash), a);
  bool ok = slash != std::string::npos && !e.is_error() && !bits.empty() && bits.size() <= 3 &&
            (bits.size() == 1 || bits[0] != '0');
  prefix = 0;
  for (char ch : bits) {  // at most 3 digits once ok: no overflow on a long prefix
    if (!ok || ch < '0' || ch > '9') {
      ok = false;
      break;
    }
    prefix = prefix * 10 + (ch - '0');
  }
  if (!ok || prefix > static_cast<int>(a.size()) * 8) {
    return Value::error(
        "network address parse error during conversion from string: "
        "netip.ParsePrefix(\"" +
        s + "\"): bad prefix");
  }
  return Value();
}

Addr masked(const Addr& a, int prefix) {
  Addr out = a;
  for (std::size_t i = 0; i < out.size(); ++i) {
    int keep = prefix - static_cast<int>(i) * 8;
    if (keep >= 8) continue;
    out[i] = keep <= 0 ? 0 : static_cast<std::uint8_t>(out[i] & (0xFF << (8 - keep)));
  }
  return out;
}

const OpaqueData* opaque(const Value* v, OpaqueData::Type type) {
  if (!v || !v->is(Kind::Opaque) || v->opaque_data().type != type) return nullptr;
  return &v->opaque_data();
}

bool one_string(CallContext& c) {
  return !c.target && c.args.size() == 1 && c.args[0].is(Kind::String);
}

Value ip(CallContext& c) {
  if (!one_string(c)) return no_such_overload();
  Addr a;
  Value e = parse_ip(c.args[0].text(), a);
  return e.is_error() ? e : make_ip(a);
}

Value is_ip(CallContext& c) {
  if (!one_string(c)) return no_such_overload();
  Addr a;
  return Value::boolean(!parse_ip(c.args[0].text(), a).is_error());
}

Value ip_is_canonical(CallContext& c) {
  if (!one_string(c)) return no_such_overload();
  Addr a;
  Value e = parse_ip(c.args[0].text(), a);
  if (e.is_error()) return e;
  return Value::boolean(addr_string(a) == c.args[0].text());
}

template <bool (*Test)(const Addr&)>
Value ip_test(CallContext& c) {
  const OpaqueData* d = opaque(c.target, OpaqueData::Type::Ip);
  if (!d || !c.args.empty()) return no_such_overload();
  return Value::boolean(Test(d->addr));
}
bool unspecified(const Addr& a) {
  for (std::uint8_t b : a) {
    if (b) return false;
  }
  return true;
}
bool loopback(const Addr& a) {
  if (a.size() == 4) return a[0] == 127;
  Addr one(16, 0);
  one[15] = 1;
  return a == one;
}
bool link_local_multicast(const Addr& a) {
  if (a.size() == 4) return a[0] == 224 && a[1] == 0 && a[2] == 0;
  return a[0] == 0xFF && (a[1] & 0x0F) == 0x02;
}
bool link_local_unicast(const Addr& a) {
  if (a.size() == 4) return a[0] == 169 && a[1] == 254;
  return a[0] == 0xFE && (a[1] & 0xC0) == 0x80;
}
bool global_unicast(const Addr& a) {
  bool multicast = a.size() == 4 ? (a[0] & 0xF0) == 0xE0 : a[0] == 0xFF;
  bool broadcast = a.size() == 4 && a == Addr{255, 255, 255, 255};
  return !unspecified(a) && !loopback(a) && !multicast && !link_local_unicast(a) && !broadcast;
}

Value family(CallContext& c) {
  const OpaqueData* d = opaque(c.target, OpaqueData::Type::Ip);
  if (!d || !c.args.empty()) return no_such_overload();
  return Value::integer(d->addr.size() == 4 ? 4 : 6);
}

Value cidr(CallContext& c) {
  if (!one_string(c)) return no_such_overload();
  Addr a;
  int prefix;
  Value e = parse_cidr(c.args[0].text(), a, prefix);
  return e.is_error() ? e : make_cidr(a, prefix);
}

Value is_cidr(CallContext& c) {
  if (!one_string(c)) return no_such_overload();
  Addr a;
  int prefix;
  return Value::boolean(!parse_cidr(c.args[0].text(), a, prefix).is_error());
}

Value contains_ip(CallContext& c) {
  const OpaqueData* d = opaque(c.target, OpaqueData::Type::Cidr);
  if (!d || c.args.size() != 1) return no_such_overload();
  Addr a;
  if (const OpaqueData* ipd = opaque(&c.args[0], OpaqueData::Type::Ip)) {
    a = ipd->addr;
  } else if (c.args[0].is(Kind::String)) {
    Value e = parse_ip(c.args[0].text(), a);
    if (e.is_error()) return e;
  } else {
    return no_such_overload();
  }
  if (a.size() != d->addr.size()) return Value::boolean(false);
  return Value::boolean(masked(a, d->prefix) == masked(d->addr, d->prefix));
}

Value contains_cidr(CallContext& c) {
  const OpaqueData* d = opaque(c.target, OpaqueData::Type::Cidr);
  if (!d || c.args.size() != 1) return no_such_overload();
  Addr a;
  int prefix;
  if (const OpaqueData* other = opaque(&c.args[0], OpaqueData::Type::Cidr)) {
    a = other->addr, prefix = other->prefix;
  } else if (c.args[0].is(Kind::String)) {
    Value e = parse_cidr(c.args[0].text(), a, prefix);
    if (e.is_error()) return e;
  } else {
    return no_such_overload();
  }
  if (a.size() != d->addr.size() || prefix < d->prefix) return Value::boolean(false);
  return Value::boolean(masked(a, d->prefix) == masked(d->addr, d->prefix));
}

Value cidr_ip(CallContext& c) {
  const OpaqueData* d = opaque(c.target, OpaqueData::Type::Cidr);
  if (!d || !c.args.empty()) return no_such_overload();
  return make_ip(d->addr);
}

Value cidr_masked(CallContext& c) {
  const OpaqueData* d = opaque(c.target, OpaqueData::Type::Cidr);
  if (!d || !c.args.empty()) return no_such_overload();
  return make_cidr(masked(d->addr, d->prefix), d->prefix);
}

Value prefix_length(CallContext& c) {
  const OpaqueData* d = opaque(c.target, OpaqueData::Type::Cidr);
  if (!d || !c.args.empty()) return no_such_overload();
  return Value::integer(d->prefix);
}

// url.ParseRequestURI, reduced to what the accessors need: an absolute URL or an absolute path.
bool parse_url(const std::string& s, OpaqueData& u) {
  u.type = OpaqueData::Type::Url;
  u.text = s;
  if (s.empty()) return false;
  for (unsigned char ch : s) {
    if (ch < 0x20 || ch == 0x7F || ch == ' ') return false;
  }
  std::string rest = s;
  auto colon = rest.find(':');
  if (rest[0] != '/') {
    if (colon == std::string::npos || colon == 0) return false;
    for (std::size_t i = 0; i < colon; ++i) {
      char ch = rest[i];
      bool ok = std::isalpha(static_cast<unsigned char>(ch)) ||
                (i > 0 && (std::isdigit(static_cast<unsigned char>(ch)) || ch == '+' || ch == '-' ||
                           ch == '.'));
      if (!ok) return false;
    }
    u.scheme = rest.substr(0, colon);
    rest = rest.substr(colon + 1);
  }
  auto q = rest.find('?');
  if (q != std::string::npos) {
    u.query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  if (rest.rfind("//", 0) == 0) {
    rest = rest.substr(2);
    auto slash = rest.find('/');
    u.host = rest.substr(0, slash);
    rest = slash == std::string::npos ? "" : rest.substr(slash);
    auto at = u.host.rfind('@');
    if (at != std::string::npos) u.host = u.host.substr(at + 1);
    std::string h = u.host;
    if (!h.empty() && h[0] == '[') {
      auto close = h.find(']');
      if (close == std::string::npos) return false;
      u.hostname = h.substr(1, close - 1);
      if (close + 1 < h.size() && h[close + 1] == ':') u.port = h.substr(close + 2);
    } else {
      auto pc = h.rfind(':');
      u.hostname = h.substr(0, pc);
      if (pc != std::string::npos) u.port = h.substr(pc + 1);
    }
    for (char ch : u.port) {
      if (ch < '0' || ch > '9') return false;
    }
  } else if (!u.scheme.empty() && rest.rfind("/", 0) != 0) {
    return false;  // opaque URLs ("mailto:x") are not request URIs
  }
  u.path = rest;
  return true;
}

Value url(CallContext& c) {
  if (!one_string(c)) return no_such_overload();
  auto data = std::make_shared<OpaqueData>();
  if (!parse_url(c.args[0].text(), *data)) {
    return Value::error("URL parse error during conversion from string: parse \"" +
                        c.args[0].text() + "\": invalid URI for request");
  }
  return Value::opaque(std::move(data));
}

Value is_url(CallContext& c) {
  if (!one_string(c)) return no_such_overload();
  OpaqueData u;
  return Value::boolean(parse_url(c.args[0].text(), u));
}

template <std::string OpaqueData::*Field>
Value url_part(CallContext& c) {
  const OpaqueData* d = opaque(c.target, OpaqueData::Type::Url);
  if (!d || !c.args.empty()) return no_such_overload();
  return Value::string(d->*Field);
}

std::string unescape(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size() &&
               std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
               std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

Value get_query(CallContext& c) {
  const OpaqueData* d = opaque(c.target, OpaqueData::Type::Url);
  if (!d || !c.args.empty()) return no_such_overload();
  std::vector<std::pair<std::string, std::vector<Value>>> params;
  std::size_t at = 0;
  while (at <= d->query.size() && !d->query.empty()) {
    auto amp = d->query.find('&', at);
    std::string part = d->query.substr(at, amp == std::string::npos ? std::string::npos : amp - at);
    if (!part.empty()) {
      auto eq = part.find('=');
      std::string key = unescape(part.substr(0, eq));
      std::string value = eq == std::string::npos ? "" : unescape(part.substr(eq + 1));
      auto it =
          std::find_if(params.begin(), params.end(), [&](const auto& p) { return p.first == key; });
      if (it == params.end()) {
        params.push_back({key, {}});
        it = params.end() - 1;
      }
      it->second.push_back(Value::string(value));
    }
    if (amp == std::string::npos) break;
    at = amp + 1;
  }
  auto data = std::make_shared<MapData>();
  for (auto& [k, v] : params)
    data->insert(Value::string(k), Value::list(std::move(v)));
  return Value::map(std::move(data));
}

}  // namespace

void add_network(FunctionTable& t) {
  t["ip"] = ip;
  t["isIP"] = is_ip;
  t["ip.isCanonical"] = ip_is_canonical;
  t[".family"] = family;
  t[".isUnspecified"] = ip_test<unspecified>;
  t[".isLoopback"] = ip_test<loopback>;
  t[".isLinkLocalMulticast"] = ip_test<link_local_multicast>;
  t[".isLinkLocalUnicast"] = ip_test<link_local_unicast>;
  t[".isGlobalUnicast"] = ip_test<global_unicast>;
  t["cidr"] = cidr;
  t["isCIDR"] = is_cidr;
  t[".containsIP"] = contains_ip;
  t[".containsCIDR"] = contains_cidr;
  t[".ip"] = cidr_ip;
  t[".masked"] = cidr_masked;
  t[".prefixLength"] = prefix_length;
  t["url"] = url;
  t["isURL"] = is_url;
  t[".getScheme"] = url_part<&OpaqueData::scheme>;
  t[".getHost"] = url_part<&OpaqueData::host>;
  t[".getHostname"] = url_part<&OpaqueData::hostname>;
  t[".getPort"] = url_part<&OpaqueData::port>;
  t[".getEscapedPath"] = url_part<&OpaqueData::path>;
  t[".getQuery"] = get_query;
}

}  // namespace respool::sandbox::cel
