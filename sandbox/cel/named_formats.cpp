// Kubernetes' format library: format.<name>() and format.named(name) give a named string
// format, <format>.validate(s) the list of what is wrong with s (optional.none() when nothing
// is), worded as k8s.io/apimachinery's validation functions.

#include <re2/re2.h>

#include "apimachinery/names.hpp"
#include "sandbox/cel/library.hpp"
#include "sandbox/cel/time.hpp"

namespace respool::sandbox::cel {
namespace {

using Errors = std::vector<std::string>;

bool nf_full_match(const std::string& s, const char* pattern) {
  RE2 re(std::string("^(?:") + pattern + ")$");
  return RE2::FullMatch(s, re);
}

// The name checks are apimachinery's (IsDNS1123Label and the others, worded as they are).
Errors nf_dns1123_label(const std::string& s) {
  return apimachinery::dns1123_label_errors(s);
}
Errors nf_dns1123_subdomain(const std::string& s) {
  return apimachinery::dns1123_subdomain_errors(s);
}
Errors nf_dns1035_label(const std::string& s) {
  return apimachinery::dns1035_label_errors(s);
}
Errors nf_qualified_name(const std::string& s) {
  return apimachinery::qualified_name_errors(s);
}
Errors nf_label_value(const std::string& s) {
  return apimachinery::label_value_errors(s);
}

// apimachinery's maskTrailingDash: a generateName prefix may end with '-'.
std::string nf_mask_trailing_dash(const std::string& s) {
  if (s.size() > 1 && s.back() == '-') return s.substr(0, s.size() - 2) + "a";
  return s;
}

Errors nf_uri(const std::string& s) {
  bool ok =
      !s.empty() && s.find_first_of(" \t\n\r") == std::string::npos &&
      (s[0] == '/' || nf_full_match(s, "[A-Za-z][A-Za-z0-9+.-]*:(//[^/?#]*)?(/[^?#]*)?(\\?.*)?"));
  if (ok) return {};
  return {"parse \"" + s + "\": invalid URI for request"};
}

Errors nf_uuid(const std::string& s) {
  if (nf_full_match(
          s, "(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32}"))
    return {};
  return {"does not match the UUID format"};
}

Errors nf_base64(const std::string& s) {
  if (s.size() % 4 == 0 && nf_full_match(s, "[A-Za-z0-9+/]*={0,2}")) return {};
  return {"invalid base64"};
}

Errors nf_date(const std::string& s) {
  if (s.size() == 10 && parse_timestamp(s + "T00:00:00Z")) return {};
  return {"invalid date"};
}

Errors nf_datetime(const std::string& s) {
  if (parse_timestamp(s)) return {};
  return {"invalid datetime"};
}

struct NamedFormat {
  const char* name;
  Errors (*validate)(const std::string&);
};

Errors nf_label_prefix(const std::string& s) {
  return nf_dns1123_label(nf_mask_trailing_dash(s));
}
Errors nf_subdomain_prefix(const std::string& s) {
  return nf_dns1123_subdomain(nf_mask_trailing_dash(s));
}
Errors nf_dns1035_prefix(const std::string& s) {
  return nf_dns1035_label(nf_mask_trailing_dash(s));
}

const NamedFormat kFormats[] = {{"dns1123Label", nf_dns1123_label},
                                {"dns1123Subdomain", nf_dns1123_subdomain},
                                {"dns1035Label", nf_dns1035_label},
                                {"qualifiedName", nf_qualified_name},
                                {"dns1123LabelPrefix", nf_label_prefix},
                                {"dns1123SubdomainPrefix", nf_subdomain_prefix},
                                {"dns1035LabelPrefix", nf_dns1035_prefix},
                                {"labelValue", nf_label_value},
                                {"uri", nf_uri},
                                {"uuid", nf_uuid},
                                {"byte", nf_base64},
                                {"date", nf_date},
                                {"datetime", nf_datetime}};

const NamedFormat* nf_find_format(const std::string& name) {
  for (const NamedFormat& f : kFormats) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

Value nf_make_format(const NamedFormat& f) {
  auto data = std::make_shared<OpaqueData>();
  data->type = OpaqueData::Type::Format;
  data->text = f.name;
  return Value::opaque(std::move(data));
}

template <int Index>
Value constant_format(CallContext& c) {
  if (c.target || !c.args.empty()) return no_such_overload();
  return nf_make_format(kFormats[Index]);
}

Value nf_named(CallContext& c) {
  if (c.target || c.args.size() != 1 || !c.args[0].is(Kind::String)) return no_such_overload();
  const NamedFormat* f = nf_find_format(c.args[0].text());
  return f ? Value::optional_of(nf_make_format(*f)) : Value::optional_none();
}

Value nf_validate(CallContext& c) {
  if (!c.target || !c.target->is(Kind::Opaque) ||
      c.target->opaque_data().type != OpaqueData::Type::Format || c.args.size() != 1 ||
      !c.args[0].is(Kind::String)) {
    return no_such_overload();
  }
  const NamedFormat* f = nf_find_format(c.target->opaque_data().text);
  c.charge(c.args[0].text().size() / 10 + 1);
  Errors errs = f->validate(c.args[0].text());
  if (errs.empty()) return Value::optional_none();
  std::vector<Value> items;
  for (std::string& e : errs)
    items.push_back(Value::string(std::move(e)));
  return Value::optional_of(Value::list(std::move(items)));
}

template <std::size_t... I>
void add_constants(FunctionTable& t, std::index_sequence<I...>) {
  ((t[std::string("format.") + kFormats[I].name] = constant_format<static_cast<int>(I)>), ...);
}

}  // namespace

void add_named_formats(FunctionTable& t) {
  add_constants(t, std::make_index_sequence<std::size(kFormats)>{});
  t["format.named"] = nf_named;
  t[".validate"] = nf_validate;
}

}  // namespace respool::sandbox::cel
