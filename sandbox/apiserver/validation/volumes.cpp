// Pod volumes as ValidateVolumes / validateVolumeSource (pkg/apis/core/validation, v1.32)
// check them: names, exactly one source, and the contents of
// the sources pods use (emptyDir, hostPath, secret, configMap, persistentVolumeClaim,
// downwardAPI, projected, nfs, csi, ephemeral); the other sources are counted, not inspected.

#include "apimachinery/quantity.hpp"
#include "sandbox/apiserver/validation/pod.hpp"

namespace respool::sandbox::kinds {
namespace {

const char* kFileMode = "must be a number between 0 and 0777 (octal), both inclusive";

bool vol_set(const Json& source, const char* key) {
  return !member_or_null(source, key).is_null();
}

void vol_mode_rule(const Json& holder, const char* key, const std::string& at,
                   std::vector<Cause>& out) {
  const Json& mode = member_or_null(holder, key);
  if (mode.is_number_integer() && (mode.get<long long>() < 0 || mode.get<long long>() > 0777)) {
    out.push_back(field_invalid(at + "." + key, mode, kFileMode));
  }
}

// validatePathNoBacksteps.
void vol_no_backsteps(const std::string& path, const std::string& at, std::vector<Cause>& out) {
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    if (path.compare(start, end - start, "..") == 0 && end - start == 2) {
      out.push_back(field_invalid(at, path, "must not contain '..'"));
      return;
    }
    start = end + 1;
  }
}

// ValidateLocalNonReservedPath.
void vol_non_reserved_path(const std::string& path, const std::string& at,
                           std::vector<Cause>& out) {
  local_descending_path_rules(path, at, out);
  if (path.starts_with("..") && !path.starts_with("../")) {
    out.push_back(field_invalid(at, path, "must not start with '..'"));
  }
}

// validateKeyToPath of items[i].
void vol_key_to_path(const Json& item, const std::string& at, std::vector<Cause>& out) {
  const std::string key = text_of(item, "key");
  const std::string path = text_of(item, "path");
  if (key.empty()) out.push_back(field_required(at + ".key"));
  if (path.empty()) out.push_back(field_required(at + ".path"));
  vol_non_reserved_path(path, at + ".path", out);
  vol_mode_rule(item, "mode", at, out);
}

void vol_items(const Json& source, const std::string& at, std::vector<Cause>& out) {
  const Json& items = member_or_null(source, "items");
  for (std::size_t i = 0; items.is_array() && i < items.size(); ++i) {
    vol_key_to_path(object_or_empty(items[i]), indexed(at + ".items", i), out);
  }
}

void vol_hostpath(const Json& src, const std::string& at, std::vector<Cause>& out) {
  const std::string path = text_of(src, "path");
  if (path.empty()) {
    out.push_back(field_required(at + ".path"));
    return;
  }
  vol_no_backsteps(path, at + ".path", out);
  const Json& type = member_or_null(src, "type");
  static const std::vector<std::string> kTypes = {
      "",     "BlockDevice",  "CharDevice", "Directory", "DirectoryOrCreate",
      "File", "FileOrCreate", "Socket"};
  if (type.is_string() &&
      std::find(kTypes.begin(), kTypes.end(), type.get<std::string>()) == kTypes.end()) {
    out.push_back(field_not_supported(at + ".type", type, kTypes));
  }
}

// validateDownwardAPIVolumeFile: the real server reports at the source, not at items[i].
void vol_downward_file(const Json& file, const std::string& at, std::vector<Cause>& out) {
  const std::string path = text_of(file, "path");
  if (path.empty()) out.push_back(field_required(at + ".path"));
  vol_non_reserved_path(path, at + ".path", out);
  const bool field_ref = vol_set(file, "fieldRef");
  const bool resource_ref = vol_set(file, "resourceFieldRef");
  if (field_ref) {
    object_field_selector_rules(object_or_empty(file["fieldRef"]), true, at + ".fieldRef", out);
    if (resource_ref) {
      out.push_back(field_invalid(at, "resource",
                                  "fieldRef and resourceFieldRef can not be specified "
                                  "simultaneously"));
    }
  } else if (resource_ref) {
    resource_field_selector_rules(object_or_empty(file["resourceFieldRef"]), true,
                                  at + ".resourceFieldRef", out);
  } else {
    out.push_back(field_required(at, "one of fieldRef and resourceFieldRef is required"));
  }
  vol_mode_rule(file, "mode", at, out);
}

// validateProjectionSources.
void vol_projected(const Json& src, const std::string& at, std::vector<Cause>& out) {
  vol_mode_rule(src, "defaultMode", at, out);
  std::set<std::string> paths;
  auto claim_path = [&](const std::string& path, const Json& shown) {
    if (path.empty()) return;
    if (!paths.insert(path).second) {
      out.push_back(field_invalid(at, shown, "conflicting duplicate paths"));
    }
  };
  const Json& sources = member_or_null(src, "sources");
  for (std::size_t i = 0; sources.is_array() && i < sources.size(); ++i) {
    const Json& s = object_or_empty(sources[i]);
    const std::string src_at = indexed(at + ".sources", i);
    int count = 0;
    for (const char* kind : {"secret", "configMap"}) {
      if (!vol_set(s, kind)) continue;
      ++count;
      const Json& ref = object_or_empty(s[kind]);
      const std::string ref_at = src_at + "." + kind;
      if (text_of(ref, "name").empty()) out.push_back(field_required(ref_at + ".name"));
      const Json& items = member_or_null(ref, "items");
      for (std::size_t j = 0; items.is_array() && j < items.size(); ++j) {
        const Json& item = object_or_empty(items[j]);
        vol_key_to_path(item, indexed(ref_at + ".items", j), out);
        claim_path(text_of(item, "path"), text_of(ref, "name"));
      }
    }
    if (vol_set(s, "downwardAPI")) {
      ++count;
      const Json& items = member_or_null(object_or_empty(s["downwardAPI"]), "items");
      for (std::size_t j = 0; items.is_array() && j < items.size(); ++j) {
        const Json& file = object_or_empty(items[j]);
        vol_downward_file(file, src_at + ".downwardAPI", out);
        claim_path(text_of(file, "path"), text_of(file, "path"));
      }
    }
    if (vol_set(s, "serviceAccountToken")) {
      ++count;
      const Json& token = object_or_empty(s["serviceAccountToken"]);
      const Json& expiry = member_or_null(token, "expirationSeconds");  // defaulted to 3600
      const std::string token_at = src_at + ".serviceAccountToken";
      if (expiry.is_number_integer() && expiry.get<long long>() < 600) {
        out.push_back(field_invalid(token_at + ".expirationSeconds", expiry,
                                    "may not specify a duration less than 10 minutes"));
      }
      if (expiry.is_number_integer() && expiry.get<long long>() > (1LL << 32)) {
        out.push_back(field_invalid(token_at + ".expirationSeconds", expiry,
                                    "may not specify a duration larger than 2^32 seconds"));
      }
      const std::string path = text_of(token, "path");
      if (path.empty()) {
        out.push_back(field_required(at + ".path"));
      } else {
        vol_non_reserved_path(path, at + ".path", out);
      }
    }
    if (vol_set(s, "clusterTrustBundle")) ++count;
    if (count > 1) {
      out.push_back(field_forbidden(src_at, "may not specify more than 1 volume type per source"));
    }
  }
}

void vol_source_contents(const std::string& kind, const Json& src, const std::string& at,
                         std::vector<Cause>& out) {
  if (kind == "emptyDir") {
    const Json& limit = member_or_null(src, "sizeLimit");
    std::string text = limit.is_string() ? limit.get<std::string>() : limit.dump();
    auto q = apimachinery::Quantity::parse(text);
    if (!limit.is_null() && q && q->milli() < 0) {
      out.push_back(
          field_forbidden(at + ".sizeLimit", "SizeLimit field must be a valid resource quantity"));
    }
  } else if (kind == "hostPath") {
    vol_hostpath(src, at, out);
  } else if (kind == "secret" || kind == "configMap") {
    const char* name_key = kind == "secret" ? "secretName" : "name";
    if (text_of(src, name_key).empty()) out.push_back(field_required(at + "." + name_key));
    vol_mode_rule(src, "defaultMode", at, out);
    vol_items(src, at, out);
  } else if (kind == "persistentVolumeClaim") {
    if (text_of(src, "claimName").empty()) out.push_back(field_required(at + ".claimName"));
  } else if (kind == "downwardAPI") {
    vol_mode_rule(src, "defaultMode", at, out);
    const Json& items = member_or_null(src, "items");
    for (std::size_t i = 0; items.is_array() && i < items.size(); ++i) {
      vol_downward_file(object_or_empty(items[i]), at, out);
    }
  } else if (kind == "projected") {
    vol_projected(src, at, out);
  } else if (kind == "nfs") {
    const std::string path = text_of(src, "path");
    if (text_of(src, "server").empty()) out.push_back(field_required(at + ".server"));
    if (path.empty()) out.push_back(field_required(at + ".path"));
    if (!path.starts_with("/"))
      out.push_back(field_invalid(at + ".path", path, "must be an absolute path"));
  } else if (kind == "csi") {
    const std::string driver = text_of(src, "driver");
    if (driver.empty()) out.push_back(field_required(at + ".driver"));
    if (driver.size() > 63) {
      out.push_back(
          {"FieldValueTooLong", "Too long: may not be more than 63 bytes", at + ".driver"});
    }
    std::string lower = driver;
    for (char& ch : lower)
      ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (auto e = check_dns_subdomain(lower))
      out.push_back(field_invalid(at + ".driver", driver, *e));
  } else if (kind == "ephemeral") {
    if (!vol_set(src, "volumeClaimTemplate")) {
      out.push_back(field_required(at + ".volumeClaimTemplate"));
    }
  }
}

// The sources in validateVolumeSource's order, each with the name its Forbidden error uses
// (the real server's own spellings, "cephFS" and "downwarAPI" included).
struct VolumeKind {
  const char* key;
  const char* shown;
};
constexpr VolumeKind kVolumeKinds[] = {
    {"emptyDir", "emptyDir"},
    {"hostPath", "hostPath"},
    {"gitRepo", "gitRepo"},
    {"gcePersistentDisk", "gcePersistentDisk"},
    {"awsElasticBlockStore", "awsElasticBlockStore"},
    {"secret", "secret"},
    {"nfs", "nfs"},
    {"iscsi", "iscsi"},
    {"glusterfs", "glusterfs"},
    {"flocker", "flocker"},
    {"persistentVolumeClaim", "persistentVolumeClaim"},
    {"rbd", "rbd"},
    {"cinder", "cinder"},
    {"cephfs", "cephFS"},
    {"quobyte", "quobyte"},
    {"downwardAPI", "downwarAPI"},
    {"fc", "fc"},
    {"flexVolume", "flexVolume"},
    {"configMap", "configMap"},
    {"azureFile", "azureFile"},
    {"vsphereVolume", "vsphereVolume"},
    {"photonPersistentDisk", "photonPersistentDisk"},
    {"portworxVolume", "portworxVolume"},
    {"azureDisk", "azureDisk"},
    {"storageos", "storageos"},
    {"projected", "projected"},
    {"scaleIO", "scaleIO"},
    {"csi", "csi"},
    {"ephemeral", "ephemeral"},
    {"image", "image"},
};

std::vector<Cause> vol_source_rules(const Json& vol, const std::string& at, std::string& first) {
  std::vector<Cause> out;
  int count = 0;
  for (const VolumeKind& kind : kVolumeKinds) {
    if (!vol_set(vol, kind.key)) continue;
    if (count > 0) {
      out.push_back(
          field_forbidden(at + "." + kind.shown, "may not specify more than 1 volume type"));
      continue;
    }
    ++count;
    first = kind.key;
    vol_source_contents(kind.key, object_or_empty(vol[kind.key]), at + "." + kind.key, out);
  }
  if (count == 0) out.push_back(field_required(at, "must specify a volume type"));
  return out;
}

}  // namespace

void local_descending_path_rules(const std::string& path, const std::string& at,
                                 std::vector<Cause>& out) {
  if (path.starts_with("/")) out.push_back(field_invalid(at, path, "must be a relative path"));
  vol_no_backsteps(path, at, out);
}

PodVolumes volume_rules(const Json& volumes, const std::string& at, std::vector<Cause>& out) {
  PodVolumes passed;
  std::set<std::string> names;
  for (std::size_t i = 0; volumes.is_array() && i < volumes.size(); ++i) {
    const Json& vol = object_or_empty(volumes[i]);
    const std::string vol_at = indexed(at, i);
    const std::string name = text_of(vol, "name");
    std::string kind;
    std::vector<Cause> errs = vol_source_rules(vol, vol_at, kind);
    if (name.empty()) {
      errs.push_back(field_required(vol_at + ".name"));
    } else if (auto e = check_dns_label(name)) {
      errs.push_back(field_invalid(vol_at + ".name", name, *e));
    }
    if (names.contains(name)) {
      errs.push_back(field_duplicate_raw(vol_at + ".name", render_value(name)));
    }
    if (errs.empty()) {
      names.insert(name);
      passed[name] = kind;
    } else {
      out.insert(out.end(), errs.begin(), errs.end());
    }
  }
  return passed;
}

}  // namespace respool::sandbox::kinds
