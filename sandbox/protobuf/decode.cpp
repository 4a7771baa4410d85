#include "sandbox/protobuf/decode.hpp"

#include <cmath>
#include <cstring>

#include "apimachinery/base64.hpp"
#include "sandbox/protobuf/custom_json.hpp"
#include "sandbox/protobuf/go_json.hpp"
#include "sandbox/protobuf/wire.hpp"

namespace respool::sandbox::protobuf {
namespace {

// Go structs nest as deep as their types do; this only bounds what a hostile body can ask of
// the stack through types that contain themselves.
constexpr int kMaxDepth = 100;

bool is_varint_type(Scalar s) {
  switch (s) {
    case Scalar::Int64:
    case Scalar::UInt64:
    case Scalar::Int32:
    case Scalar::UInt32:
    case Scalar::SInt32:
    case Scalar::SInt64:
    case Scalar::Bool:
      return true;
    default:
      return false;
  }
}

// The wire type a field of scalar type `s` is written with.
int wire_type_of(Scalar s) {
  if (is_varint_type(s)) return 0;
  if (s == Scalar::Fixed64 || s == Scalar::SFixed64 || s == Scalar::Double) return 1;
  if (s == Scalar::Fixed32 || s == Scalar::SFixed32 || s == Scalar::Float) return 5;
  return 2;
}

Json number_json(Scalar s, std::uint64_t v) {
  switch (s) {
    case Scalar::Int64:
    case Scalar::SFixed64:
      return static_cast<std::int64_t>(v);
    case Scalar::UInt64:
    case Scalar::Fixed64:
      return v;
    case Scalar::Int32:
    case Scalar::SFixed32:
      return static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
    case Scalar::UInt32:
    case Scalar::Fixed32:
      return static_cast<std::uint32_t>(v);
    case Scalar::SInt32: {
      auto u = static_cast<std::uint32_t>(v);
      return static_cast<std::int32_t>((u >> 1) ^ (0u - (u & 1)));
    }
    case Scalar::SInt64:
      return static_cast<std::int64_t>((v >> 1) ^ (0ull - (v & 1)));
    case Scalar::Bool:
      return v != 0;
    case Scalar::Double: {
      double d;
      std::memcpy(&d, &v, sizeof d);
      if (!std::isfinite(d)) throw Failure{"json: unsupported value: " + std::to_string(d)};
      return d;
    }
    case Scalar::Float: {
      float f;
      auto u = static_cast<std::uint32_t>(v);
      std::memcpy(&f, &u, sizeof f);
      if (!std::isfinite(f)) throw Failure{"json: unsupported value: " + std::to_string(f)};
      return static_cast<double>(f);
    }
    default:
      return nullptr;
  }
}

// What encoding/json writes for a Go value that is zero (the field absent from the body).
Json zero_of(Scalar s) {
  if (s == Scalar::Bool) return false;
  if (s == Scalar::String) return "";
  if (s == Scalar::Bytes) return nullptr;  // a nil []byte
  return 0;
}

bool is_zero(const Json& v) {
  if (v.is_boolean()) return !v.get<bool>();
  if (v.is_string()) return v.get_ref<const std::string&>().empty();
  if (v.is_number_integer()) return v.get<std::int64_t>() == 0 && v.get<std::uint64_t>() == 0;
  if (v.is_number_float()) return v.get<double>() == 0.0;
  if (v.is_null()) return true;
  if (v.is_array() || v.is_object()) return v.empty();
  return false;
}

class Decoder {
 public:
  // Decodes `data` into `obj` as Unmarshal does into an existing Go struct: fields present
  // overwrite (repeated ones append), then zero values fill what the struct has and the body
  // did not set.
  void message(const MessageDef& def, std::string_view data, Json& obj, int depth) {
    if (depth > kMaxDepth) throw Failure{"proto: " + def.go_name + ": nesting too deep"};
    if (!obj.is_object()) obj = Json::object();
    Reader r(data);
    while (!r.done()) {
      std::size_t pre = r.pos();
      std::uint64_t tag = r.varint();
      auto number = static_cast<std::int32_t>(static_cast<std::uint32_t>(tag >> 3));
      int wire = static_cast<int>(tag & 7);
      if (wire == 4) throw Failure{"proto: " + def.go_name + ": wiretype end group for non-group"};
      if (number <= 0) {
        throw Failure{"proto: " + def.go_name + ": illegal tag " + std::to_string(number) +
                      " (wire type " + std::to_string(tag) + ")"};
      }
      const FieldDef* f = def.field(number);
      if (f == nullptr) {
        r.skip_field(pre);
        continue;
      }
      field(*f, wire, r, obj, depth);
    }
    fill_zero(def, obj);
  }

  // The JSON of a message value of type `def` (custom encodings, slice wrappers, structs).
  Json value(const MessageDef& def, std::string_view data, int depth) {
    if (def.custom != CustomJson::None) return custom(def, data, depth);
    if (def.wrap) {
      Json o = Json::object();
      message(def, data, o, depth + 1);
      Json items = o.begin() != o.end() ? o.begin().value() : Json();
      return items.is_array() ? items : Json::array();
    }
    Json o = Json::object();
    message(def, data, o, depth + 1);
    return o;
  }

  // What encoding/json writes for the zero value of a field of this type.
  static Json zero_message(const MessageDef& def) {
    switch (def.custom) {
      case CustomJson::Duration:
        return "0s";
      case CustomJson::Quantity:
        return "0";
      case CustomJson::IntOrString:
        return 0;
      case CustomJson::GroupVersion:
        return "";
      case CustomJson::None:
        break;
      default:
        return nullptr;  // Time, MicroTime, RawExtension, FieldsV1, Unknown: null
    }
    if (def.wrap) return nullptr;  // a nil slice
    Json o = Json::object();
    fill_zero(def, o);
    return o;
  }

  static void fill_zero(const MessageDef& def, Json& obj) {
    for (const FieldDef& f : def.fields) {
      if (f.json == "-") continue;
      if (f.inline_struct && f.type.message && f.type.message->custom == CustomJson::None) {
        fill_zero(*f.type.message, obj);
        continue;
      }
      if (obj.contains(f.json)) continue;
      if (f.pointer || f.repeated || f.is_map() || f.type.scalar == Scalar::Bytes) {
        if (!f.omitempty) obj[f.json] = nullptr;
      } else if (f.type.scalar != Scalar::Message) {
        if (!f.omitempty) obj[f.json] = zero_of(f.type.scalar);
      } else if (!(f.omitempty && f.type.message->wrap)) {
        obj[f.json] = zero_message(*f.type.message);
      }
    }
  }

 private:
  [[noreturn]] static void wrong_wire(int wire, const FieldDef& f) {
    throw Failure{"proto: wrong wireType = " + std::to_string(wire) + " for field " + f.go};
  }

  // Sets a singular field as assigning the Go field does: zero values of omitempty non-pointer
  // fields leave the JSON.
  static void assign(const FieldDef& f, Json& obj, Json v) {
    if (f.json == "-") return;
    if (!f.pointer && f.omitempty && is_zero(v)) {
      obj.erase(f.json);
    } else {
      obj[f.json] = std::move(v);
    }
  }

  static void append(const FieldDef& f, Json& obj, Json v) {
    if (f.json == "-") return;
    Json& list = obj[f.json];
    if (!list.is_array()) list = Json::array();
    list.push_back(std::move(v));
  }

  Json scalar(Scalar s, std::uint64_t raw) { return number_json(s, raw); }

  Json bytes_value(Scalar s, std::string_view b) {
    return s == Scalar::String ? Json(valid_utf8(b)) : Json(apimachinery::base64_encode(b));
  }

  void field(const FieldDef& f, int wire, Reader& r, Json& obj, int depth) {
    if (f.is_map()) {
      if (wire != 2) wrong_wire(wire, f);
      map_entry(f, r.length_delimited(), obj, depth);
      return;
    }
    Scalar s = f.type.scalar;
    if (s == Scalar::Message) {
      if (wire != 2) wrong_wire(wire, f);
      std::string_view data = r.length_delimited();
      const MessageDef& def = *f.type.message;
      if (f.repeated) {
        append(f, obj, value(def, data, depth));
      } else if (f.inline_struct && def.custom == CustomJson::None) {
        message(def, data, obj, depth + 1);
      } else if (def.custom != CustomJson::None || def.wrap) {
        Json v = value(def, data, depth);
        if (def.wrap && f.json != "-") {
          // Unmarshal appends to the (possibly already set) slice.
          Json& list = obj[f.json];
          if (!list.is_array()) list = Json::array();
          for (Json& item : v)
            list.push_back(std::move(item));
        } else {
          assign(f, obj, std::move(v));
        }
      } else if (f.json == "-") {
        Json scratch = Json::object();
        message(def, data, scratch, depth + 1);
      } else {
        message(def, data, obj[f.json], depth + 1);
      }
      return;
    }
    int expected = wire_type_of(s);
    if (f.repeated && expected != 2 && wire == 2) {  // packed
      std::string_view packed = r.length_delimited();
      Reader p(packed);
      while (!p.done())
        append(f, obj, scalar(s, p.fixed_or_varint(expected)));
      return;
    }
    if (wire != expected) wrong_wire(wire, f);
    Json v = expected == 2 ? bytes_value(s, r.length_delimited())
                           : scalar(s, r.fixed_or_varint(expected));
    // A []byte sent is non-nil even when empty: "" (unless omitempty drops it).
    if (f.repeated) {
      append(f, obj, std::move(v));
    } else {
      assign(f, obj, std::move(v));
    }
  }

  // One map entry: key 1 and value 2, as gogo's generated loop reads them (missing ones are
  // zero; other fields skipped).
  void map_entry(const FieldDef& f, std::string_view entry, Json& obj, int depth) {
    Json key = zero_of(f.map_key->scalar);
    Json val;
    bool have_val = false;
    Reader r(entry);
    while (!r.done()) {
      std::size_t pre = r.pos();
      std::uint64_t tag = r.varint();
      auto number = static_cast<std::int32_t>(static_cast<std::uint32_t>(tag >> 3));
      const TypeRef* t = number == 1 ? &*f.map_key : number == 2 ? &f.type : nullptr;
      if (t == nullptr) {
        r.skip_field(pre);
        continue;
      }
      int expected = t->scalar == Scalar::Message ? 2 : wire_type_of(t->scalar);
      Json v;
      if (t->scalar == Scalar::Message) {
        v = value(*t->message, r.length_delimited(), depth);
      } else if (expected == 2) {
        v = bytes_value(t->scalar, r.length_delimited());
      } else {
        v = scalar(t->scalar, r.fixed_or_varint(expected));
      }
      if (number == 1) {
        key = std::move(v);
      } else {
        val = std::move(v);
        have_val = true;
      }
    }
    if (!have_val) {
      val = f.type.scalar == Scalar::Message
                ? (f.type.message->wrap ? Json::array() : zero_message(*f.type.message))
                : zero_of(f.type.scalar);
      if (f.type.scalar == Scalar::Bytes) val = "";
    }
    if (f.json == "-") return;
    Json& map = obj[f.json];
    if (!map.is_object()) map = Json::object();
    std::string k = key.is_string() ? key.get<std::string>() : key.dump();
    map[k] = std::move(val);
  }

  // Types with their own JSON encoding: decoded as their messages, written by custom_json.cpp.
  Json custom(const MessageDef& def, std::string_view data, int depth) {
    if (def.custom == CustomJson::Time || def.custom == CustomJson::MicroTime) {
      // time_proto.go: no bytes is the zero time (null); else a Timestamp message.
      if (data.empty()) return nullptr;
      const MessageDef& ts =
          *ApiTable::get().message("k8s.io.apimachinery.pkg.apis.meta.v1.Timestamp");
      Json fields = Json::object();
      message(ts, data, fields, depth + 1);
      return custom_json(def, ts, fields, data);
    }
    Json fields = Json::object();
    message(def, data, fields, depth + 1);
    return custom_json(def, def, fields, data);
  }
};

}  // namespace

std::expected<Json, std::string> decode_message(std::string_view bytes, const MessageDef& type) {
  try {
    Decoder d;
    return d.value(type, bytes, 0);
  } catch (const Failure& f) {
    return std::unexpected(f.message);
  }
}

}  // namespace respool::sandbox::protobuf
