#include "reconcilers/policy/node_operation_spec.hpp"

#include <algorithm>
#include <set>

#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/names.hpp"
#include "reconcilers/policy/spec_fields.hpp"
#include "reconcilers/policy/time.hpp"

namespace respool::policy {

namespace {

using nlohmann::json;
using spec_fields::at;
using spec_fields::member;
using spec_fields::read_string;

}  // namespace

std::string_view to_string(NodeOperationType type) {
  switch (type) {
    case NodeOperationType::Replace:
      return "Replace";
    case NodeOperationType::Reset:
      return "Reset";
    case NodeOperationType::Delete:
      return "Delete";
  }
  return "Replace";
}

std::optional<NodeOperationType> parse_node_operation_type(std::string_view text) {
  if (text == "Replace") return NodeOperationType::Replace;
  if (text == "Reset") return NodeOperationType::Reset;
  if (text == "Delete") return NodeOperationType::Delete;
  return std::nullopt;
}

int NodeOperationSpec::reset_concurrency() const {
  const IntOrPercent limit = reset ? reset->max_unavailable : IntOrPercent{1, false};
  return limit.of_rounding_down(int(nodes.size()));
}

std::expected<NodeOperationSpec, std::vector<Violation>> check_node_operation(const json& object) {
  std::vector<Violation> out;
  NodeOperationSpec spec;
  const json* spec_json = member(object, "spec");
  if (!spec_json || !spec_json->is_object()) {
    out.push_back({"spec", "", "is required"});
    return std::unexpected(out);
  }
  const json& s = *spec_json;

  if (auto pool = read_string(s, "pool", "spec.pool", out)) {
    spec.pool = *pool;
    if (!is_pool_name(spec.pool)) out.push_back({"spec.pool", "P1", std::string(kPoolNameRule)});
  } else if (!member(s, "pool")) {
    out.push_back({"spec.pool", "", "is required"});
  }

  if (auto type = read_string(s, "type", "spec.type", out)) {
    if (auto parsed = parse_node_operation_type(*type)) {
      spec.type = *parsed;
    } else {
      out.push_back({"spec.type", "", "must be Replace, Reset or Delete, not \"" + *type + "\""});
    }
  } else if (!member(s, "type")) {
    out.push_back({"spec.type", "", "is required"});
  }

  if (const json* meta = member(object, "metadata"); meta && meta->is_object()) {
    const json labels = meta->value("labels", json::object());
    spec.automatic =
        labels.is_object() && labels.value(std::string(kRemediationLabel), "") == "auto";
  }

  const json* nodes = member(s, "nodes");
  if (!nodes || !nodes->is_array() || nodes->empty()) {
    out.push_back({"spec.nodes", "", "must list at least one node"});
  } else {
    std::set<std::string> seen;
    for (std::size_t i = 0; i < nodes->size(); ++i) {
      const json& n = (*nodes)[i];
      if (!n.is_string() || n.get_ref<const std::string&>().empty()) {
        out.push_back({at("spec.nodes", i), "", "must be a node name"});
        continue;
      }
      const std::string& name = n.get_ref<const std::string&>();
      if (!seen.insert(name).second) {
        out.push_back({at("spec.nodes", i), "", "node " + name + " is listed twice"});
        continue;
      }
      spec.nodes.push_back(name);
    }
  }

  const json* reset = member(s, "reset");
  if (reset) {
    if (spec.type != NodeOperationType::Reset) {
      out.push_back({"spec.reset", "N7", "only for type Reset"});
    } else if (!reset->is_object()) {
      out.push_back({"spec.reset", "", "must be an object"});
    } else {
      ResetOptions options;
      if (auto os = read_string(*reset, "os", "spec.reset.os", out)) options.os = *os;
      if (options.os.empty())
        out.push_back({"spec.reset.os", "N7", "a reset names the operating system to install"});
      if (const json* max = member(*reset, "maxUnavailable")) {
        if (auto parsed = parse_int_or_percent(*max)) {
          options.max_unavailable = *parsed;
        } else {
          out.push_back({"spec.reset.maxUnavailable", "N7", parsed.error()});
        }
      }
      spec.reset = options;
    }
  } else if (spec.type == NodeOperationType::Reset) {
    out.push_back({"spec.reset", "N7", "type Reset needs reset.os"});
  }

  if (auto timeout = read_string(s, "timeout", "spec.timeout", out)) {
    if (spec.type != NodeOperationType::Replace) {
      // The schema defaults it for every type; only a Replace waits for anything.
    } else if (auto parsed = parse_duration(*timeout)) {
      if (*parsed > kMaxReplaceTimeout) {
        out.push_back({"spec.timeout", "N3",
                       "a replacement waits at most 24h for an idle node, not " + *timeout});
      } else if (parsed->count() == 0) {
        out.push_back({"spec.timeout", "N3", "must be longer than 0s"});
      } else {
        spec.timeout = *parsed;
      }
    } else {
      out.push_back({"spec.timeout", "N3", parsed.error()});
    }
  }
  if (const json* preview = member(s, "preview")) {
    if (preview->is_boolean())
      spec.preview = preview->get<bool>();
    else
      out.push_back({"spec.preview", "N18", "must be true or false"});
  }
  if (!out.empty()) return std::unexpected(out);
  return spec;
}

}  // namespace respool::policy
