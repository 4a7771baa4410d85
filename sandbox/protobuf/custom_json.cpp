#include "sandbox/protobuf/custom_json.hpp"

#include <optional>

#include "sandbox/protobuf/go_json.hpp"
#include "sandbox/protobuf/wire.hpp"

namespace respool::sandbox::protobuf {
namespace {

// A scalar field of a decoded custom type, by number (their Go fields carry no json tags).
std::int64_t number_field(const MessageDef& def, const Json& o, int number) {
  const FieldDef* f = def.field(number);
  auto it = f ? o.find(f->json) : o.end();
  return it != o.end() && it->is_number() ? it->get<std::int64_t>() : 0;
}

std::string string_field(const MessageDef& def, const Json& o, int number) {
  const FieldDef* f = def.field(number);
  auto it = f ? o.find(f->json) : o.end();
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// metav1.Time keeps seconds (time_proto.go drops the nanoseconds), MicroTime microseconds;
// Go's zero time is null.
Json time_json(const MessageDef& ts, const Json& o, bool micro) {
  std::int64_t seconds = number_field(ts, o, 1), nanos = micro ? number_field(ts, o, 2) : 0;
  nanos -= nanos % 1000;
  seconds += nanos / 1000000000;
  nanos %= 1000000000;
  if (nanos < 0) {
    nanos += 1000000000;
    --seconds;
  }
  if (seconds == -62135596800LL && nanos == 0) return nullptr;
  return rfc3339(seconds, nanos, micro);
}

// RawExtension, FieldsV1, Unknown: their bytes field holds JSON, written as it is.
Json raw_json(const MessageDef& def, std::string_view data) {
  std::optional<std::string_view> raw;
  Reader r(data);
  while (!r.done()) {
    std::size_t pre = r.pos();
    std::uint64_t tag = r.varint();
    const FieldDef* f = def.field(static_cast<int>(tag >> 3));
    if (f && f->type.scalar == Scalar::Bytes && (tag & 7) == 2) {
      raw = r.length_delimited();
    } else {
      r.skip_field(pre);
    }
  }
  if (!raw) return nullptr;
  Json parsed = Json::parse(raw->begin(), raw->end(), nullptr, false);
  if (parsed.is_discarded()) {
    throw Failure{"json: error calling MarshalJSON for type " + def.go_name +
                  ": invalid JSON in its raw bytes"};
  }
  return parsed;
}

}  // namespace

Json custom_json(const MessageDef& type, const MessageDef& decoded_as, const Json& fields,
                 std::string_view data) {
  switch (type.custom) {
    case CustomJson::Time:
    case CustomJson::MicroTime:
      return time_json(decoded_as, fields, type.custom == CustomJson::MicroTime);
    case CustomJson::Duration:
      return go_duration(number_field(type, fields, 1));
    case CustomJson::Quantity: {
      std::string q = string_field(type, fields, 1);
      return q.empty() ? Json("0") : Json(q);
    }
    case CustomJson::IntOrString:
      if (number_field(type, fields, 1) == 1) return string_field(type, fields, 3);
      return static_cast<std::int32_t>(number_field(type, fields, 2));
    case CustomJson::GroupVersion: {
      std::string g = string_field(type, fields, 1), v = string_field(type, fields, 2);
      return g.empty() ? v : g + "/" + v;
    }
    default:
      return raw_json(type, data);
  }
}

}  // namespace respool::sandbox::protobuf
