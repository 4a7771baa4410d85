// The envelope of a Kubernetes protobuf body: the `k8s\0` magic and a runtime.Unknown whose raw
// bytes are the object (k8s.io/apimachinery/pkg/runtime/serializer/protobuf Serializer.Decode).

#include "sandbox/protobuf/decode.hpp"
#include "sandbox/protobuf/go_json.hpp"
#include "sandbox/protobuf/wire.hpp"

namespace respool::sandbox::protobuf {
namespace {

constexpr std::string_view kMagic{"k8s\0", 4};

struct Unknown {
  std::string api_version, kind;
  std::string_view raw;
};

// runtime.Unknown.Unmarshal: typeMeta (1), raw (2), contentEncoding (3), contentType (4).
Unknown read_unknown(std::string_view data, const ApiTable& table) {
  const MessageDef* unknown = table.message("k8s.io.apimachinery.pkg.runtime.Unknown");
  const MessageDef* type_meta = table.message("k8s.io.apimachinery.pkg.runtime.TypeMeta");
  if (!unknown || !type_meta) throw Failure{"k8s-api.table lacks runtime.Unknown"};
  Unknown out;
  Reader r(data);
  while (!r.done()) {
    std::size_t pre = r.pos();
    std::uint64_t tag = r.varint();
    auto number = static_cast<std::int32_t>(static_cast<std::uint32_t>(tag >> 3));
    int wire = static_cast<int>(tag & 7);
    if (wire == 4) throw Failure{"proto: Unknown: wiretype end group for non-group"};
    if (number <= 0) {
      throw Failure{"proto: Unknown: illegal tag " + std::to_string(number) + " (wire type " +
                    std::to_string(tag) + ")"};
    }
    const FieldDef* f = number <= 4 ? unknown->field(number) : nullptr;
    if (f == nullptr) {
      r.skip_field(pre);
      continue;
    }
    if (wire != 2) {
      throw Failure{"proto: wrong wireType = " + std::to_string(wire) + " for field " + f->go};
    }
    std::string_view bytes = r.length_delimited();
    if (number == 1) {
      auto tm = decode_message(bytes, *type_meta);
      if (!tm) throw Failure{tm.error()};
      out.api_version = tm->value("apiVersion", std::string());
      out.kind = tm->value("kind", std::string());
    } else if (number == 2) {
      out.raw = bytes;
    }
  }
  return out;
}

// schema.FromAPIVersionAndKind: an apiVersion with more than one '/' names no group-version.
GroupVersionKind gvk_of(const Unknown& u) {
  GroupVersionKind gvk;
  gvk.kind = u.kind;
  const std::string& av = u.api_version;
  std::size_t slash = av.find('/');
  if (slash == std::string::npos) {
    gvk.version = av;
  } else if (av.find('/', slash + 1) == std::string::npos) {
    gvk.group = av.substr(0, slash);
    gvk.version = av.substr(slash + 1);
  }
  return gvk;
}

// copyKindDefaults.
void apply_defaults(GroupVersionKind& gvk, const GroupVersionKind& defaults) {
  if (gvk.kind.empty()) gvk.kind = defaults.kind;
  if (gvk.version.empty() && !defaults.version.empty()) {
    gvk.group = defaults.group;
    gvk.version = defaults.version;
  }
}

std::string type_meta_text(const Unknown& u) {
  return "runtime.TypeMeta{APIVersion:" + go_quote(u.api_version) + ", Kind:" + go_quote(u.kind) +
         "}";
}

}  // namespace

std::expected<Json, DecodeError> decode_body(std::string_view body,
                                             const GroupVersionKind& defaults,
                                             const ApiTable& table) {
  if (body.empty()) return std::unexpected(DecodeError{"empty data", std::nullopt});
  if (body.substr(0, kMagic.size()) != kMagic) {
    return std::unexpected(DecodeError{
        "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]",
        std::nullopt});
  }
  if (body.size() == kMagic.size()) return std::unexpected(DecodeError{"empty body", std::nullopt});
  Unknown u;
  try {
    u = read_unknown(body.substr(kMagic.size()), table);
  } catch (const Failure& f) {
    return std::unexpected(DecodeError{f.message, std::nullopt});
  }
  GroupVersionKind gvk = gvk_of(u);
  apply_defaults(gvk, defaults);
  if (gvk.kind.empty()) {
    return std::unexpected(
        DecodeError{"Object 'Kind' is missing in '" + type_meta_text(u) + "'", gvk});
  }
  if (gvk.version.empty()) {
    return std::unexpected(
        DecodeError{"Object 'apiVersion' is missing in '" + type_meta_text(u) + "'", gvk});
  }
  const MessageDef* type = table.kind(gvk.group, gvk.version, gvk.kind);
  if (type == nullptr) {
    return std::unexpected(DecodeError{
        "no kind " + go_quote(gvk.kind) + " is registered for version " +
            go_quote(gvk.api_version()) + " in scheme \"pkg/api/legacyscheme/scheme.go:30\"",
        gvk});
  }
  auto object = decode_message(u.raw, *type);
  if (!object) return std::unexpected(DecodeError{object.error(), gvk});
  Json out = Json::object();
  out["apiVersion"] = gvk.api_version();
  out["kind"] = gvk.kind;
  for (auto& [k, v] : object->items())
    out[k] = std::move(v);
  return out;
}

}  // namespace respool::sandbox::protobuf
