#include "sandbox/apiserver/handlers/body.hpp"

#include <yaml-cpp/yaml.h>

#include <charconv>

#include "sandbox/protobuf/decode.hpp"
#include "sandbox/protobuf/go_json.hpp"

namespace respool::sandbox {
namespace {

std::string parse_error_detail(const std::string& body, std::size_t byte) {
  if (byte == 0 || byte > body.size()) return "unexpected end of JSON input";
  char c = body[byte - 1];
  std::string shown = c == '\'' ? "\\'" : std::string(1, c);
  if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
    shown = buf;
  }
  return "invalid character '" + shown + "' looking for beginning of value";
}

ApiError malformed(const std::string& kind, const std::string& body, const std::string& detail) {
  std::string excerpt = body.size() > 30 ? body.substr(0, 30) + " ..." : body;
  return bad_request("the object provided is unrecognized (must be of type " + kind +
                     "): couldn't get version/kind; json parse error: " + detail + " (" + excerpt +
                     ")");
}

// Deeper documents are refused before parsing: serializing them again would recurse as deep.
constexpr int kMaxDepth = 1000;

bool too_deep(const std::string& body) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

Result<Json> parse_json(const std::string& body, const std::string& kind) {
  if (too_deep(body)) return std::unexpected(malformed(kind, body, "exceeded max depth"));
  try {
    return Json::parse(body);
  } catch (const Json::parse_error& e) {
    return std::unexpected(malformed(kind, body, parse_error_detail(body, e.byte)));
  } catch (const std::exception& e) {
    return std::unexpected(malformed(kind, body, e.what()));
  }
}

Json scalar_from_yaml(const YAML::Node& node) {
  const std::string& s = node.Scalar();
  if (node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str") return s;
  if (s == "null" || s == "~" || s.empty())
    return s.empty() && node.Tag() == "!" ? Json(s) : Json();
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  long long i = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), i);
  if (ec == std::errc() && p == s.data() + s.size()) return i;
  double d = 0;
  auto [q, ec2] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec2 == std::errc() && q == s.data() + s.size()) return d;
  return s;
}

Json from_yaml(const YAML::Node& node, int depth) {
  if (depth > 200) throw std::runtime_error("YAML nested too deeply");
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      Json o = Json::object();
      for (const auto& kv : node)
        o[kv.first.as<std::string>()] = from_yaml(kv.second, depth + 1);
      return o;
    }
    case YAML::NodeType::Sequence: {
      Json a = Json::array();
      for (const auto& item : node)
        a.push_back(from_yaml(item, depth + 1));
      return a;
    }
    case YAML::NodeType::Scalar:
      return scalar_from_yaml(node);
    default:
      return nullptr;
  }
}

void emit(YAML::Emitter& out, const Json& v) {
  if (v.is_object()) {
    out << YAML::BeginMap;
    for (auto it = v.begin(); it != v.end(); ++it) {
      out << YAML::Key << it.key() << YAML::Value;
      emit(out, it.value());
    }
    out << YAML::EndMap;
  } else if (v.is_array()) {
    out << YAML::BeginSeq;
    for (const Json& item : v)
      emit(out, item);
    out << YAML::EndSeq;
  } else if (v.is_string()) {
    out << YAML::DoubleQuoted << v.get<std::string>();
  } else if (v.is_null()) {
    out << YAML::Null;
  } else {
    out << v.dump();
  }
}

// transformDecodeError's summary of a body it could not decode: JSON text, else hex.
std::string summarize(std::string_view body) {
  if (body.empty()) return "<empty>";
  std::string_view head = body.substr(0, 30);
  std::string out;
  if (body.front() == '{') {
    out = std::string(head);
  } else {
    static const char* hex = "0123456789abcdef";
    for (unsigned char c : head) {
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return body.size() > 30 ? out + " ..." : out;
}

protobuf::GroupVersionKind endpoint_gvk(const std::string& kind, std::string_view api_version) {
  protobuf::GroupVersionKind gvk;
  gvk.kind = kind;
  if (auto slash = api_version.find('/'); slash != std::string_view::npos) {
    gvk.group = std::string(api_version.substr(0, slash));
    gvk.version = std::string(api_version.substr(slash + 1));
  } else {
    gvk.version = std::string(api_version);
  }
  return gvk;
}

// Whether the endpoint takes protobuf: every kind of k8s.io/api and the option kinds. Custom
// resources do not (a real server takes JSON and YAML for them), nor, here only, CRDs and
// APIServices, whose messages are not in Kubernetes' k8s.io/api (sandbox/README.md).
bool takes_protobuf(const protobuf::GroupVersionKind& endpoint) {
  return protobuf::ApiTable::get().kind(endpoint.group, endpoint.version, endpoint.kind) != nullptr;
}

Result<Json> decode_protobuf(const std::string& body, const std::string& kind,
                             const protobuf::GroupVersionKind& defaults) {
  auto decoded = protobuf::decode_body(body, defaults);
  if (decoded) return std::move(*decoded);
  const protobuf::DecodeError& e = decoded.error();
  if (e.gvk && !e.gvk->kind.empty()) {
    return std::unexpected(bad_request(e.gvk->kind + " in version " +
                                       protobuf::go_quote(e.gvk->version) +
                                       " cannot be handled as a " + kind + ": " + e.message));
  }
  return std::unexpected(bad_request("the object provided is unrecognized (must be of type " +
                                     kind + "): " + e.message + " (" + summarize(body) + ")"));
}

}  // namespace

bool yaml_to_json(std::string_view text, Json& out) {
  try {
    YAML::Node node = YAML::Load(std::string(text));
    out = from_yaml(node, 0);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

std::string json_to_yaml(const Json& value) {
  YAML::Emitter out;
  emit(out, value);
  return std::string(out.c_str()) + "\n";
}

Result<Json> decode_object(const http::Request& request, const std::string& kind,
                           std::string_view api_version) {
  std::string type = media_type(request.headers.get("Content-Type").value_or("application/json"));
  protobuf::GroupVersionKind endpoint = endpoint_gvk(kind, api_version);
  bool protobuf_ok = takes_protobuf(endpoint);
  if (type == protobuf::kMediaType && protobuf_ok) {
    return decode_protobuf(request.body, kind, endpoint);
  }
  if (type.empty() || type == "application/json" || type == "*/*") {
    return parse_json(request.body, kind);
  }
  if (type == "application/yaml") {
    Json out;
    if (!yaml_to_json(request.body, out)) {
      return std::unexpected(malformed(kind, request.body, "error converting YAML to JSON"));
    }
    return out;
  }
  return std::unexpected(unsupported_body_type(protobuf_ok));
}

Result<Json> decode_patch(const http::Request& request, const std::string& kind) {
  return parse_json(request.body, kind);
}

Encoded encode(const std::string& json_text, Format format) {
  if (format == Format::Yaml) {
    Json parsed = Json::parse(json_text, nullptr, false);
    return {json_to_yaml(parsed), "application/yaml"};
  }
  return {json_text, "application/json"};
}

}  // namespace respool::sandbox
