// ConfigMap and Node validation (pkg/apis/core/validation: ValidateConfigMap[Update],
// ValidateNode[Update], validateNodeTaints), worded as the real server words it. Go walks the
// data maps in random order; here keys come sorted.

#include <arpa/inet.h>

#include <map>
#include <regex>
#include <set>

#include "sandbox/apiserver/validation/rules.hpp"

namespace respool::sandbox::kinds {
namespace {

constexpr std::size_t kMaxConfigMapBytes = 1024 * 1024;  // core.MaxSecretSize

// The size of a base64 text once decoded (binaryData is sent base64-encoded).
std::size_t decoded_size(const std::string& b64) {
  std::size_t n = b64.size() / 4 * 3;
  if (!b64.empty() && b64.back() == '=') --n;
  if (b64.size() > 1 && b64[b64.size() - 2] == '=') --n;
  return n;
}

Json map_at(const Json& obj, const char* key) {
  if (obj.contains(key) && obj[key].is_object()) return obj[key];
  return Json();
}

// netutils.ParseCIDRSloppy: an IPv4 or IPv6 address, '/', a prefix length in range.
bool valid_cidr(const std::string& text) {
  auto slash = text.find('/');
  if (slash == std::string::npos || slash + 1 >= text.size()) return false;
  std::string addr = text.substr(0, slash);
  std::string bits = text.substr(slash + 1);
  if (bits.size() > 3 || bits.find_first_not_of("0123456789") != std::string::npos) return false;
  int len = std::stoi(bits);
  unsigned char buf[16];
  if (inet_pton(AF_INET, addr.c_str(), buf) == 1) return len <= 32;
  if (inet_pton(AF_INET6, addr.c_str(), buf) == 1) return len <= 128;
  return false;
}

// The node's pod CIDRs as the internal type holds them: podCIDRs, else [podCIDR].
std::vector<std::string> pod_cidrs(const Json& node) {
  std::vector<std::string> out;
  const Json spec = node.value("spec", Json::object());
  if (!spec.is_object()) return out;
  if (spec.contains("podCIDRs") && spec["podCIDRs"].is_array() && !spec["podCIDRs"].empty()) {
    for (const Json& c : spec["podCIDRs"])
      out.push_back(c.is_string() ? c.get<std::string>() : "");
  } else if (!text_of(spec, "podCIDR").empty()) {
    out.push_back(text_of(spec, "podCIDR"));
  }
  return out;
}

// %#v of a core.Taint (the duplicate error shows the whole taint). A set timeAdded is a
// pointer Go prints as an address; a fixed one stands for it here.
std::string go_taint(const Json& t) {
  std::string added = t.contains("timeAdded") && !t["timeAdded"].is_null()
                          ? "(*v1.Time)(0xc000000000)"
                          : "(*v1.Time)(nil)";
  return "core.Taint{Key:" + render_value(text_of(t, "key")) +
         ", Value:" + render_value(text_of(t, "value")) +
         ", Effect:" + render_value(text_of(t, "effect")) + ", TimeAdded:" + added + "}";
}

// validateNodeTaints; the path is "metadata.taints" as ValidateNode has it.
void taint_rules(const Json& taints, std::vector<Cause>& out) {
  if (!taints.is_array()) return;
  std::map<std::string, std::set<std::string>> seen;  // effect -> keys
  for (std::size_t i = 0; i < taints.size(); ++i) {
    const Json& t = taints[i].is_object() ? taints[i] : Json::object();
    std::string at = "metadata.taints[" + std::to_string(i) + "]";
    std::string key = text_of(t, "key");
    for (const std::string& msg : check_qualified_name(key)) {
      out.push_back(field_invalid(at + ".key", key, msg));
    }
    std::string value = text_of(t, "value");
    if (auto errs = check_label_value(value); !errs.empty()) {
      std::string joined;
      for (const std::string& e : errs)
        joined += (joined.empty() ? "" : ";") + e;
      out.push_back(field_invalid(at + ".value", value, joined));
    }
    std::string effect = text_of(t, "effect");
    if (effect.empty()) {
      out.push_back(field_required(at + ".effect"));
    } else if (effect != "NoSchedule" && effect != "PreferNoSchedule" && effect != "NoExecute") {
      out.push_back(field_not_supported(at + ".effect", effect,
                                        {"NoSchedule", "PreferNoSchedule", "NoExecute"}));
    }
    if (!seen[effect].insert(key).second) {
      out.push_back(
          field_duplicate_raw(at, go_taint(t), "taints must be unique by key and effect pair"));
    }
  }
}

}  // namespace

std::vector<std::string> check_config_map_key(const std::string& key) {
  static const std::regex kKey("[-._a-zA-Z0-9]+");
  std::vector<std::string> errs;
  if (key.size() > 253) errs.push_back("must be no more than 253 characters");
  if (!std::regex_match(key, kKey)) {
    errs.push_back(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
        "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
        "'[-._a-zA-Z0-9]+')");
  }
  if (key == ".") {
    errs.push_back("must not be '.'");
  } else if (key == "..") {
    errs.push_back("must not be '..'");
  } else if (key.starts_with("..")) {
    errs.push_back("must not start with '..'");
  }
  return errs;
}

void validate_config_map(const Json& cm, const Json* old, std::vector<Cause>& out) {
  const Json data = map_at(cm, "data");
  const Json binary = map_at(cm, "binaryData");
  if (old && old->value("immutable", false) == true) {
    const std::string why = "field is immutable when `immutable` is set";
    if (cm.value("immutable", Json()) != true) out.push_back(field_forbidden("immutable", why));
    auto same = [&](const char* key) {
      Json a = map_at(cm, key), b = map_at(*old, key);
      return (a.is_null() || a.empty()) == (b.is_null() || b.empty()) &&
             (a.is_null() || a.empty() || a == b);
    };
    if (!same("data")) out.push_back(field_forbidden("data", why));
    if (!same("binaryData")) out.push_back(field_forbidden("binaryData", why));
  }
  std::size_t total = 0;
  if (data.is_object()) {
    for (auto it = data.begin(); it != data.end(); ++it) {
      std::string at = "data[" + it.key() + "]";
      for (const std::string& msg : check_config_map_key(it.key())) {
        out.push_back(field_invalid(at, it.key(), msg));
      }
      if (binary.is_object() && binary.contains(it.key())) {
        out.push_back(field_invalid(at, it.key(), "duplicate of key present in binaryData"));
      }
      if (it.value().is_string()) total += it.value().get<std::string>().size();
    }
  }
  if (binary.is_object()) {
    for (auto it = binary.begin(); it != binary.end(); ++it) {
      for (const std::string& msg : check_config_map_key(it.key())) {
        out.push_back(field_invalid("binaryData[" + it.key() + "]", it.key(), msg));
      }
      if (it.value().is_string()) total += decoded_size(it.value().get<std::string>());
    }
  }
  if (total > kMaxConfigMapBytes) {
    // field.NewPath("") names the whole object; its String() is "[]".
    out.push_back(
        {"FieldValueTooLong",
         "Too long: may not be more than " + std::to_string(kMaxConfigMapBytes) + " bytes", "[]"});
  }
}

void validate_node(const Json& node, const Json* old, std::vector<Cause>& out) {
  // ValidateNode, on create and (before ValidateNodeUpdate) on update.
  const Json spec = node.value("spec", Json::object());
  if (spec.is_object() && spec.contains("taints")) taint_rules(spec["taints"], out);
  std::vector<std::string> cidrs = pod_cidrs(node);
  for (std::size_t i = 0; i < cidrs.size(); ++i) {
    if (!valid_cidr(cidrs[i])) {
      out.push_back(field_invalid("spec.podCIDRs[" + std::to_string(i) + "]", cidrs[i],
                                  "must be a valid CIDR value, (e.g. 10.9.8.0/24 or "
                                  "2001:db8::/64)"));
    }
  }
  if (cidrs.size() > 1) {
    std::set<std::string> seen;
    for (std::size_t i = 0; i < cidrs.size(); ++i) {
      if (!seen.insert(cidrs[i]).second) {
        out.push_back(field_duplicate_raw("spec.podCIDRs[" + std::to_string(i) + "]",
                                          render_value(cidrs[i])));
      }
    }
  }
  if (!old) return;
  // ValidateNodeUpdate: podCIDRs and providerID may only go from unset to set; the taints are
  // checked a second time (the causes repeat, the message does not).
  std::vector<std::string> before = pod_cidrs(*old);
  const std::string cidr_why = "node updates may not change podCIDR except from \"\" to valid";
  if (!before.empty()) {
    if (before.size() != cidrs.size()) {
      out.push_back(field_forbidden("spec.podCIDRs", cidr_why));
    } else {
      for (std::size_t i = 0; i < before.size(); ++i) {
        if (before[i] != cidrs[i]) out.push_back(field_forbidden("spec.podCIDRs", cidr_why));
      }
    }
  }
  const Json old_spec = old->value("spec", Json::object());
  std::string provider = text_of(old_spec, "providerID");
  if (!provider.empty() && provider != text_of(spec, "providerID")) {
    out.push_back(field_forbidden(
        "spec.providerID", "node updates may not change providerID except from \"\" to valid"));
  }
  if (spec.is_object() && spec.contains("taints")) taint_rules(spec["taints"], out);
}

}  // namespace respool::sandbox::kinds
