#include "sandbox/protobuf/api_table.hpp"

#include <charconv>
#include <stdexcept>

namespace respool::sandbox::protobuf {

// The table's text, embedded by table_data.cpp.
extern "C" const char respool_k8s_api_table[];
extern "C" const char respool_k8s_api_table_end[];

namespace {

const std::string kMetaV1 = "k8s.io.apimachinery.pkg.apis.meta.v1.";

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    std::size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

std::string unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out += s[i];
      continue;
    }
    char c = s[++i];
    out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
  }
  return out;
}

std::optional<Scalar> scalar_named(std::string_view name) {
  static const std::map<std::string_view, Scalar> names = {
      {"double", Scalar::Double},   {"float", Scalar::Float},       {"int64", Scalar::Int64},
      {"uint64", Scalar::UInt64},   {"int32", Scalar::Int32},       {"uint32", Scalar::UInt32},
      {"sint32", Scalar::SInt32},   {"sint64", Scalar::SInt64},     {"fixed64", Scalar::Fixed64},
      {"fixed32", Scalar::Fixed32}, {"sfixed32", Scalar::SFixed32}, {"sfixed64", Scalar::SFixed64},
      {"bool", Scalar::Bool},       {"string", Scalar::String},     {"bytes", Scalar::Bytes}};
  auto it = names.find(name);
  if (it == names.end()) return std::nullopt;
  return it->second;
}

TypeRef type_named(std::string_view name) {
  TypeRef t;
  t.name = std::string(name);
  if (auto s = scalar_named(name)) t.scalar = *s;
  return t;
}

CustomJson custom_of(std::string_view name) {
  static const std::map<std::string, CustomJson, std::less<>> known = {
      {kMetaV1 + "Time", CustomJson::Time},
      {kMetaV1 + "MicroTime", CustomJson::MicroTime},
      {kMetaV1 + "Duration", CustomJson::Duration},
      {kMetaV1 + "FieldsV1", CustomJson::FieldsV1},
      {kMetaV1 + "GroupVersion", CustomJson::GroupVersion},
      {"k8s.io.apimachinery.pkg.api.resource.Quantity", CustomJson::Quantity},
      {"k8s.io.apimachinery.pkg.util.intstr.IntOrString", CustomJson::IntOrString},
      {"k8s.io.apimachinery.pkg.runtime.RawExtension", CustomJson::RawExtension},
      {"k8s.io.apimachinery.pkg.runtime.Unknown", CustomJson::Unknown}};
  auto it = known.find(name);
  if (it == known.end()) {
    throw std::runtime_error("k8s-api.table: " + std::string(name) +
                             " has its own JSON encoding, which the decoder does not know");
  }
  return it->second;
}

void apply_field_flags(FieldDef& f, std::string_view flags) {
  for (std::string_view flag : split(flags, ' ')) {
    if (flag.empty()) continue;
    if (flag == "rep") {
      f.repeated = true;
    } else if (flag == "ptr") {
      f.pointer = true;
    } else if (flag == "omitempty") {
      f.omitempty = true;
    } else if (flag == "inline") {
      f.inline_struct = true;
    } else if (flag == "optional") {
      f.optional = true;
    } else if (flag.find('=') != std::string_view::npos) {
      f.markers.emplace_back(flag);
    }
  }
}

std::string marker_of(const std::vector<std::string>& markers, std::string_view key) {
  for (const std::string& m : markers) {
    if (m.size() > key.size() && m.compare(0, key.size(), key) == 0 && m[key.size()] == '=') {
      return m.substr(key.size() + 1);
    }
  }
  return "";
}

void resolve(TypeRef& t, const std::map<std::string, MessageDef, std::less<>>& messages) {
  if (t.scalar != Scalar::Message) return;
  auto it = messages.find(t.name);
  if (it == messages.end()) throw std::runtime_error("k8s-api.table: unknown type " + t.name);
  t.message = &it->second;
}

}  // namespace

std::string FieldDef::marker(std::string_view key) const {
  return marker_of(markers, key);
}

const FieldDef* MessageDef::field(int number) const {
  auto it = by_number.find(number);
  return it == by_number.end() ? nullptr : &fields[it->second];
}

std::string MessageDef::marker(std::string_view key) const {
  return marker_of(markers, key);
}

std::string MessageDef::openapi_name() const {
  // The Go package path reversed at its domain: k8s.io.api.core.v1 -> io.k8s.api.core.v1.
  if (name.rfind("k8s.io.", 0) == 0) return "io.k8s." + name.substr(7);
  return name;
}

ApiTable ApiTable::parse(std::string_view text) {
  ApiTable table;
  MessageDef* current = nullptr;
  std::size_t line_no = 0;
  for (std::string_view line : split(text, '\n')) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string_view> cols = split(line, '\t');
    auto bad = [&] {
      return std::runtime_error("k8s-api.table line " + std::to_string(line_no) + ": malformed");
    };
    if (cols[0] == "P" && cols.size() == 4) {
      if (cols[2] != "-") {
        table.packages_.push_back(
            {std::string(cols[1]), std::string(cols[2]), std::string(cols[3])});
      }
    } else if (cols[0] == "M" && cols.size() == 4) {
      MessageDef m;
      m.name = std::string(cols[1]);
      m.go_name = m.name.substr(m.name.rfind('.') + 1);
      for (std::string_view flag : split(cols[2], ' ')) {
        if (flag == "custom") {
          m.custom = custom_of(m.name);
        } else if (flag == "wrap") {
          m.wrap = true;
        } else if (flag == "typeMeta") {
          m.type_meta = true;
        } else if (!flag.empty()) {
          m.markers.emplace_back(flag);
        }
      }
      m.description = unescape(cols[3]);
      auto [it, added] = table.messages_.emplace(m.name, std::move(m));
      if (!added) throw bad();
      current = &it->second;
    } else if (cols[0] == "F" && cols.size() == 7 && current) {
      FieldDef f;
      auto [p, ec] = std::from_chars(cols[1].data(), cols[1].data() + cols[1].size(), f.number);
      if (ec != std::errc() || f.number <= 0) throw bad();
      f.json = std::string(cols[2]);
      f.go = std::string(cols[3]);
      std::string_view type = cols[4];
      if (type.rfind("map<", 0) == 0 && type.back() == '>') {
        std::vector<std::string_view> kv = split(type.substr(4, type.size() - 5), ',');
        if (kv.size() != 2) throw bad();
        f.map_key = type_named(kv[0]);
        f.type = type_named(kv[1]);
      } else {
        f.type = type_named(type);
      }
      apply_field_flags(f, cols[5]);
      f.description = unescape(cols[6]);
      current->by_number[f.number] = current->fields.size();
      current->fields.push_back(std::move(f));
    } else if (cols[0] == "V" && cols.size() == 2 && current && !current->fields.empty()) {
      current->fields.back().enum_values.push_back(unescape(cols[1]));
    } else {
      throw bad();
    }
  }
  for (auto& [name, m] : table.messages_) {
    for (FieldDef& f : m.fields) {
      resolve(f.type, table.messages_);
      if (f.map_key) resolve(*f.map_key, table.messages_);
    }
  }
  return table;
}

const ApiTable& ApiTable::get() {
  static const ApiTable table = parse(std::string_view(
      respool_k8s_api_table,
      static_cast<std::size_t>(respool_k8s_api_table_end - respool_k8s_api_table)));
  return table;
}

const MessageDef* ApiTable::message(std::string_view full_name) const {
  auto it = messages_.find(full_name);
  return it == messages_.end() ? nullptr : &it->second;
}

const MessageDef* ApiTable::kind(std::string_view group, std::string_view version,
                                 std::string_view kind) const {
  for (const ApiPackage& p : packages_) {
    if (p.group != group || p.version != version) continue;
    if (const MessageDef* m = message(p.proto_package + "." + std::string(kind))) return m;
  }
  // metav1.AddToGroupVersion registers the option types in every group-version.
  static const std::vector<std::string_view> options = {
      "ListOptions",   "GetOptions",   "DeleteOptions", "CreateOptions",
      "UpdateOptions", "PatchOptions", "WatchEvent"};
  for (std::string_view o : options) {
    if (o == kind) return message(kMetaV1 + std::string(kind));
  }
  return nullptr;
}

}  // namespace respool::sandbox::protobuf
