#pragma once
// The values of the Common Expression Language (cel-spec's langdef): null, bool, int (int64),
// uint (uint64), double, string (UTF-8), bytes, list, map, type, google.protobuf.Duration and
// Timestamp, optional, the Kubernetes extension types (quantity, url, ip, cidr) and errors.
// Values are small and cheap to copy: aggregates and strings are shared and immutable.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace respool::sandbox::cel {

// 128-bit integers for overflow checks and quantities (__extension__: GCC's, not ISO C++).
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

enum class Kind : std::uint8_t {
  Null,
  Bool,
  Int,
  Uint,
  Double,
  String,
  Bytes,
  List,
  Map,
  Type,
  Duration,
  Timestamp,
  Optional,
  Opaque,
  Error,
};

class Value;
struct ListData;
struct MapData;
struct OpaqueData;

class Value {
 public:
  Value() = default;  // null
  static Value boolean(bool b);
  static Value integer(std::int64_t i);
  static Value uinteger(std::uint64_t u);
  static Value dbl(double d);
  static Value string(std::string s);
  static Value bytes(std::string s);
  static Value list(std::vector<Value> items);
  static Value list(std::shared_ptr<const ListData> data);
  static Value map(std::shared_ptr<const MapData> data);
  static Value type(std::string name);
  static Value duration(std::int64_t nanos);
  static Value timestamp(std::int64_t seconds, std::int32_t nanos);
  static Value optional_none();
  static Value optional_of(Value inner);
  static Value opaque(std::shared_ptr<const OpaqueData> data);
  static Value error(std::string message);

  Kind kind() const { return kind_; }
  bool is(Kind k) const { return kind_ == k; }
  bool is_error() const { return kind_ == Kind::Error; }

  bool as_bool() const { return s_.b; }
  std::int64_t as_int() const { return s_.i; }
  std::uint64_t as_uint() const { return s_.u; }
  double as_double() const { return s_.d; }
  std::int64_t nanos() const { return s_.i; }           // Duration
  std::int64_t seconds() const { return s_.i; }         // Timestamp
  std::int32_t subsecond_nanos() const { return ns_; }  // Timestamp
  // String, Bytes, Type (its name) and Error (its message).
  const std::string& text() const;
  const ListData& list_data() const;
  const std::vector<Value>& items() const;
  const MapData& map_data() const;
  const OpaqueData& opaque_data() const;
  bool has_value() const { return p_ != nullptr; }  // Optional
  const Value& optional_value() const;              // Optional with a value

 private:
  union Scalar {
    bool b;
    std::int64_t i;
    std::uint64_t u;
    double d;
  };
  Value(Kind kind, Scalar scalar, std::shared_ptr<const void> payload = nullptr)
      : kind_(kind), s_(scalar), p_(std::move(payload)) {}

  Kind kind_ = Kind::Null;
  std::int32_t ns_ = 0;
  Scalar s_{};
  std::shared_ptr<const void> p_;
};

// How a list from a Kubernetes schema compares (x-kubernetes-list-type): atomic lists by
// position, sets regardless of order, maps by the entries' keys.
enum class ListType : std::uint8_t { Atomic, Set, Map };

struct ListData {
  std::vector<Value> items;
  ListType list_type = ListType::Atomic;
  std::vector<std::string> map_keys;
};

// Entries in insertion order; keys are bool, int, uint or string. An `object` map is a
// message-like value (a Kubernetes schema object): `type()` of it is `type_name`.
struct MapData {
  std::vector<std::pair<Value, Value>> entries;
  std::unordered_map<std::string, std::size_t> by_string;  // string keys -> entry
  std::string type_name;                                   // empty for plain maps

  // The entry's value, comparing numeric keys across int, uint and double.
  const Value* find(const Value& key) const;
  const Value* find(const std::string& key) const;
  // Adds an entry; false when the key is already there (or is not a valid key type).
  bool insert(Value key, Value value);
};

// The Kubernetes extension types. One struct for all of them keeps the code small.
struct OpaqueData {
  enum class Type : std::uint8_t { Quantity, Url, Ip, Cidr, Format } type;
  std::string text;  // the canonical string form (a Format: its name)
  // Quantity: the value in nano-units.
  Int128 nano = 0;
  // Url: scheme, host (with port), hostname, port, escaped path, raw query.
  std::string scheme, host, hostname, port, path, query;
  // Ip and Cidr: the address (4 or 16 bytes) and, for a Cidr, the prefix length.
  std::vector<std::uint8_t> addr;
  int prefix = -1;
};

// The type name `type(v)` gives: "int", "list", "google.protobuf.Duration", ...
std::string type_name(const Value& v);

// CEL equality (heterogeneous: numbers compare across int/uint/double, other kinds differ).
bool equals(const Value& a, const Value& b);
// CEL ordering for <, <=, >, >=: negative, zero or positive; nullopt when not comparable
// (different kinds other than numbers, or NaN involved: then every comparison is false).
enum class Order : std::uint8_t { Less, Equal, Greater, Unordered, NoOverload };
Order compare(const Value& a, const Value& b);

// How `string(v)` and the `%s` of format() print a value.
std::string debug_string(const Value& v);

// The errors of the standard library, with cel-go's messages.
Value no_such_overload();
Value no_such_key(const Value& key);

}  // namespace respool::sandbox::cel
