#include "reconcilers/policy/catalog.hpp"

#include <algorithm>
#include <set>

#include "reconcilers/policy/failure_catalogue.hpp"
#include "reconcilers/policy/names.hpp"
#include "reconcilers/policy/placeholders.hpp"

namespace respool::policy {

namespace {

using nlohmann::json;
using Error = std::unexpected<std::string>;

constexpr std::string_view kVersionPlaceholder = "{version}";

Error fail(const std::string& field, const std::string& what) {
  return Error(field + ": " + what);
}

// Every {{name}} in the strings of `value` must be a known placeholder.
std::optional<std::string> check_placeholders(const json& value, const std::string& field) {
  if (value.is_string()) {
    for (const Placeholder& p : find_placeholders(value.get_ref<const std::string&>())) {
      if (!is_known_placeholder(p.name)) {
        return field + ": unknown placeholder {{" + p.name +
               "}} (known: {{pool}}, {{jobType}}, {{jobTypeLabel}})";
      }
    }
  } else if (value.is_object()) {
    for (const auto& [key, item] : value.items()) {
      if (auto error = check_placeholders(item, field + "." + key)) return error;
    }
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (auto error = check_placeholders(value[i], field + "[" + std::to_string(i) + "]")) {
        return error;
      }
    }
  }
  return std::nullopt;
}

std::expected<Flavor, std::string> parse_flavor(const json& item, const std::string& field) {
  if (!item.is_object()) return fail(field, "must be an object");
  Flavor flavor;
  auto name = item.find("name");
  if (name == item.end() || !name->is_string() || !is_dns_label(name->get<std::string>())) {
    return fail(field + ".name", "must be a lowercase DNS label (letters, digits, hyphens)");
  }
  flavor.name = name->get<std::string>();
  flavor.label_value = flavor.name;
  if (auto value = item.find("labelValue"); value != item.end()) {
    if (!value->is_string() || value->get<std::string>().empty()) {
      return fail(field + ".labelValue", "must be a non-empty string");
    }
    flavor.label_value = value->get<std::string>();
  }
  if (auto ib = item.find("infiniband"); ib != item.end()) {
    if (!ib->is_boolean()) return fail(field + ".infiniband", "must be true or false");
    flavor.infiniband = ib->get<bool>();
  }
  auto accel = item.find("accelerator");
  if (accel == item.end() || !accel->is_object()) {
    return fail(field + ".accelerator", "must be an object {type, resource, count}");
  }
  auto type = accel->find("type");
  auto parsed = type != accel->end() && type->is_string()
                    ? parse_accelerator_type(type->get<std::string>())
                    : std::nullopt;
  if (!parsed) return fail(field + ".accelerator.type", "must be GPU, NPU or None");
  flavor.accelerator.type = *parsed;
  if (*parsed == AcceleratorType::None) {
    if (accel->contains("resource") || accel->value("count", 0) != 0) {
      return fail(field + ".accelerator", "type None takes no resource and no count");
    }
    return flavor;
  }
  auto resource = accel->find("resource");
  if (resource == accel->end() || !resource->is_string() ||
      resource->get<std::string>().find('/') == std::string::npos) {
    return fail(field + ".accelerator.resource",
                "must name an extended resource (e.g. nvidia.com/gpu)");
  }
  flavor.accelerator.resource = resource->get<std::string>();
  auto count = accel->find("count");
  if (count == accel->end() || !count->is_number_integer() || count->get<std::int64_t>() < 1 ||
      count->get<std::int64_t>() > 1024) {
    return fail(field + ".accelerator.count", "must be a positive integer");
  }
  flavor.accelerator.count = count->get<int>();
  return flavor;
}

std::optional<std::string> parse_plugins(const json& plugins, Catalog& catalog) {
  if (!plugins.is_object()) return "plugins: must map job types to lists of manifests";
  for (const auto& [key, list] : plugins.items()) {
    const std::string field = "plugins." + key;
    auto type = parse_job_type(key);
    if (!type) return field + ": unknown job type (Training, Inference, DevEnviron)";
    if (!list.is_array()) return field + ": must be a list of manifests";
    std::set<std::string> names;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string item_field = field + "[" + std::to_string(i) + "]";
      const json& manifest = list[i];
      if (!manifest.is_object() || !manifest.contains("apiVersion") ||
          !manifest["apiVersion"].is_string() || !manifest.contains("kind") ||
          !manifest["kind"].is_string()) {
        return item_field + ": must be a manifest with apiVersion and kind";
      }
      const json* name = manifest.contains("metadata") && manifest["metadata"].is_object() &&
                                 manifest["metadata"].contains("name")
                             ? &manifest["metadata"]["name"]
                             : nullptr;
      if (!name || !name->is_string() || !is_dns_label(name->get<std::string>())) {
        return item_field + ".metadata.name: must be a lowercase DNS label";
      }
      if (!names.insert(name->get<std::string>()).second) {
        return item_field + ".metadata.name: \"" + name->get<std::string>() + "\" appears twice";
      }
      if (auto error = check_placeholders(manifest, item_field)) return error;
      catalog.plugins[*type].push_back(manifest);
    }
  }
  return std::nullopt;
}

std::optional<std::string> parse_drivers(const json& drivers, Catalog& catalog) {
  if (!drivers.is_object()) return "drivers: must map GPU/NPU to {image}";
  for (const auto& [key, value] : drivers.items()) {
    auto type = parse_accelerator_type(key);
    if (!type || *type == AcceleratorType::None) return "drivers." + key + ": must be GPU or NPU";
    const std::string field = "drivers." + key + ".image";
    if (!value.is_object() || !value.contains("image") || !value["image"].is_string() ||
        value["image"].get<std::string>().find(kVersionPlaceholder) == std::string::npos) {
      return field + ": must be an image reference containing {version}";
    }
    catalog.driver_images[*type] = value["image"].get<std::string>();
    if (auto versions = value.find("versions"); versions != value.end()) {
      const std::string list = "drivers." + key + ".versions";
      if (!versions->is_array() || versions->empty())
        return list + ": must be a non-empty list of version strings";
      for (const auto& v : *versions) {
        if (!v.is_string() || v.get<std::string>().empty())
          return list + ": must be a non-empty list of version strings";
        catalog.driver_versions[*type].push_back(v.get<std::string>());
      }
    }
  }
  return std::nullopt;
}

std::optional<std::string> read_label_key(const json& document, const char* key, std::string& out) {
  auto it = document.find(key);
  if (it == document.end()) return std::nullopt;
  if (!it->is_string() || !is_label_key(it->get<std::string>())) {
    return std::string(key) + ": must be a label key";
  }
  out = it->get<std::string>();
  return std::nullopt;
}

}  // namespace

const Flavor* Catalog::flavor(std::string_view name) const {
  for (const Flavor& f : flavors) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const Flavor* Catalog::flavor_by_label(std::string_view label_value) const {
  for (const Flavor& f : flavors) {
    if (f.label_value == label_value) return &f;
  }
  return nullptr;
}

std::optional<std::string> Catalog::driver_image(AcceleratorType type,
                                                 std::string_view version) const {
  auto it = driver_images.find(type);
  if (it == driver_images.end()) return std::nullopt;
  std::string image = it->second;
  image.replace(image.find(kVersionPlaceholder), kVersionPlaceholder.size(), version);
  return image;
}

bool Catalog::offers_driver(AcceleratorType type, std::string_view version) const {
  auto it = driver_versions.find(type);
  if (it == driver_versions.end()) return true;
  return std::find(it->second.begin(), it->second.end(), version) != it->second.end();
}

std::string Catalog::flavor_names() const {
  std::string out;
  for (const Flavor& f : flavors)
    out += (out.empty() ? "" : ", ") + f.name;
  return out;
}

std::expected<Catalog, std::string> parse_catalog(const json& document) {
  if (!document.is_object()) return Error("catalog: must be a mapping");
  Catalog catalog;
  if (auto e = read_label_key(document, "flavorLabel", catalog.flavor_label)) return Error(*e);
  if (auto e = read_label_key(document, "zoneLabel", catalog.zone_label)) return Error(*e);

  auto flavors = document.find("flavors");
  if (flavors == document.end() || !flavors->is_array() || flavors->empty()) {
    return Error("flavors: must list at least one flavor");
  }
  std::set<std::string> names, labels;
  for (std::size_t i = 0; i < flavors->size(); ++i) {
    const std::string field = "flavors[" + std::to_string(i) + "]";
    auto flavor = parse_flavor((*flavors)[i], field);
    if (!flavor) return Error(flavor.error());
    if (!names.insert(flavor->name).second) {
      return fail(field + ".name", "\"" + flavor->name + "\" appears twice");
    }
    if (!labels.insert(flavor->label_value).second) {
      return fail(field + ".labelValue", "\"" + flavor->label_value + "\" names two flavors");
    }
    catalog.flavors.push_back(std::move(*flavor));
  }

  auto presets = document.find("networkPresets");
  if (presets == document.end() || !presets->is_array() || presets->empty()) {
    return Error("networkPresets: must list at least one CIDR block");
  }
  const auto reserved = fixed_blocks();
  for (std::size_t i = 0; i < presets->size(); ++i) {
    const std::string field = "networkPresets[" + std::to_string(i) + "]";
    if (!(*presets)[i].is_string()) return fail(field, "must be a CIDR block");
    auto cidr = parse_cidr((*presets)[i].get<std::string>());
    if (!cidr) return fail(field, cidr.error());
    if (auto used = first_overlap(*cidr, reserved)) {
      return fail(field, cidr->to_string() + " overlaps " + used->owner + " (W3)");
    }
    catalog.network_presets.push_back(*cidr);
  }

  if (auto plugins = document.find("plugins"); plugins != document.end()) {
    if (auto e = parse_plugins(*plugins, catalog)) return Error(*e);
  }
  if (auto drivers = document.find("drivers"); drivers != document.end()) {
    if (auto e = parse_drivers(*drivers, catalog)) return Error(*e);
  }
  for (const Flavor& f : catalog.flavors) {
    if (f.accelerator.type != AcceleratorType::None &&
        !catalog.driver_images.contains(f.accelerator.type)) {
      return fail("drivers", "flavor " + f.name + " needs a " +
                                 std::string(to_string(f.accelerator.type)) + " driver image");
    }
  }
  if (auto reset = document.find("reset"); reset != document.end()) {
    if (!reset->is_object() || !reset->contains("image") || !(*reset)["image"].is_string() ||
        (*reset)["image"].get<std::string>().empty()) {
      return Error("reset.image: must be an image reference");
    }
    catalog.reset_image = (*reset)["image"].get<std::string>();
  }
  if (auto ops = document.find("nodeOperations"); ops != document.end()) {
    if (!ops->is_object()) return Error("nodeOperations: must be an object");
    for (auto [key, target] :
         {std::pair{"replacementsPerDay", &catalog.replacement_limits.per_day},
          std::pair{"concurrentReplacements", &catalog.replacement_limits.concurrent}}) {
      auto it = ops->find(key);
      if (it == ops->end()) continue;
      auto parsed = parse_int_or_percent(*it);
      if (!parsed) return Error("nodeOperations." + std::string(key) + ": " + parsed.error());
      *target = *parsed;
    }
  }
  auto failures = FailureCatalogue::parse(document.value("failures", json()));
  if (!failures) return Error(failures.error());
  catalog.failures = std::make_shared<const FailureCatalogue>(std::move(*failures));
  return catalog;
}

}  // namespace respool::policy
