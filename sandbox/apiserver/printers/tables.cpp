#include "sandbox/apiserver/printers/tables.hpp"

#include <functional>

#include "apimachinery/time.hpp"
#include "sandbox/apiserver/jsonpath.hpp"
#include "sandbox/apiserver/printers/printers.hpp"
#include "sandbox/apiserver/registry/store.hpp"

namespace respool::sandbox {
namespace {

const char* kNameDesc =
    "Name must be unique within a namespace. Is required when creating resources, although some "
    "resources may allow a client to request the generation of an appropriate name "
    "automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";

struct Printer {
  std::vector<PrinterColumnDef> columns;  // after Name
  std::function<OJson(const Json&, runtime::TimePoint)> cells;
};

// The default table convertor: Name and Created At.
Printer default_printer() {
  return {{{"Created At", "date", printers::kAgeDesc, 0}}, [](const Json& o, runtime::TimePoint) {
            return OJson{printers::at(o, {"metadata", "name"}),
                         printers::at(o, {"metadata", "creationTimestamp"})};
          }};
}

Printer custom_printer(const ResourceType& type) {
  Printer p;
  for (const PrinterColumn& c : type.printer_columns) {
    p.columns.push_back({c.name, c.type, c.description, c.priority, c.format});
  }
  std::vector<PrinterColumn> cols = type.printer_columns;
  p.cells = [cols](const Json& o, runtime::TimePoint now) {
    OJson cells = OJson::array({printers::at(o, {"metadata", "name"})});
    for (const PrinterColumn& c : cols) {
      const Json* v = json_path_first(o, c.json_path);
      if (!v || v->is_null()) {
        cells.push_back(nullptr);
      } else if (c.type == "date" && v->is_string()) {
        auto t = apimachinery::parse_time(v->get<std::string>());
        cells.push_back(
            t ? human_duration(std::chrono::duration_cast<std::chrono::seconds>(now - *t))
              : "<unknown>");
      } else if (v->is_object() || v->is_array()) {
        cells.push_back(v->dump());
      } else {
        cells.push_back(OJson::parse(v->dump()));
      }
    }
    return cells;
  };
  return p;
}

Printer printer_of(const ResourceType& type) {
  if (type.custom()) return custom_printer(type);
  if (!type.printer) return default_printer();
  return {type.printer->columns, type.printer->cells};
}

}  // namespace

std::string human_duration(std::chrono::seconds d) {
  long long seconds = d.count();
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return std::to_string(seconds) + "s";
  long long minutes = seconds / 60;
  if (minutes < 10) {
    long long s = seconds % 60;
    return s == 0 ? std::to_string(minutes) + "m"
                  : std::to_string(minutes) + "m" + std::to_string(s) + "s";
  }
  if (minutes < 180) return std::to_string(minutes) + "m";
  long long hours = seconds / 3600;
  if (hours < 8) {
    long long m = minutes % 60;
    return m == 0 ? std::to_string(hours) + "h"
                  : std::to_string(hours) + "h" + std::to_string(m) + "m";
  }
  if (hours < 48) return std::to_string(hours) + "h";
  if (hours < 24 * 8) {
    long long h = hours % 24;
    return h == 0 ? std::to_string(hours / 24) + "d"
                  : std::to_string(hours / 24) + "d" + std::to_string(h) + "h";
  }
  if (hours < 24 * 365 * 2) return std::to_string(hours / 24) + "d";
  if (hours < 24 * 365 * 8) {
    long long dy = (hours / 24) % 365;
    return dy == 0 ? std::to_string(hours / 24 / 365) + "y"
                   : std::to_string(hours / 24 / 365) + "y" + std::to_string(dy) + "d";
  }
  return std::to_string(hours / 24 / 365) + "y";
}

OJson partial_metadata(const Json& obj, const std::string& version) {
  OJson out;
  out["kind"] = "PartialObjectMetadata";
  out["apiVersion"] = "meta.k8s.io/" + version;
  out["metadata"] = OJson::parse(to_text(obj.value("metadata", Json::object())));
  return out;
}

OJson make_table(const ResourceType& type, const std::vector<const Json*>& objects,
                 const OJson& list_meta, const TableRequest& request, runtime::TimePoint now) {
  Printer printer = printer_of(type);
  OJson table;
  table["kind"] = "Table";
  table["apiVersion"] = "meta.k8s.io/" + request.version;
  table["metadata"] = list_meta;
  if (request.columns) {
    OJson cols = OJson::array();
    cols.push_back({{"name", "Name"},
                    {"type", "string"},
                    {"format", "name"},
                    {"description", kNameDesc},
                    {"priority", 0}});
    for (const PrinterColumnDef& c : printer.columns) {
      cols.push_back({{"name", c.name},
                      {"type", c.type},
                      {"format", c.format},
                      {"description", c.description},
                      {"priority", c.priority}});
    }
    table["columnDefinitions"] = std::move(cols);
  } else {
    table["columnDefinitions"] = nullptr;
  }
  OJson rows = OJson::array();
  for (const Json* o : objects) {
    OJson row;
    row["cells"] = printer.cells(*o, now);
    if (request.include == IncludeObject::Metadata) {
      row["object"] = partial_metadata(*o, request.version);
    } else if (request.include == IncludeObject::Object) {
      row["object"] = OJson::parse(to_text(*o));
    }
    rows.push_back(std::move(row));
  }
  table["rows"] = std::move(rows);
  return table;
}

}  // namespace respool::sandbox
