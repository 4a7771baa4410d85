// RFC 6902 JSON patch over RFC 6901 pointers. The reasons given in PatchError::detail follow the
// wording of the library the API server uses (gopkg.in/evanphx/json-patch.v4).

#include <charconv>
#include <optional>

#include "sandbox/patch/go_format.hpp"
#include "sandbox/patch/patch.hpp"

namespace respool::sandbox::patch {
namespace {

constexpr std::size_t kMaxOperations = 10000;  // maxJSONPatchOperations in the API server
constexpr std::string_view kRejected =
    "the server rejected our request due to an error in our request";

using Fail = std::unexpected<std::string>;

// RFC 6901: "" is the whole document; otherwise "/"-separated tokens with ~1 for "/" and ~0 for
// "~" (in that order).
std::optional<std::vector<std::string>> parse_pointer(std::string_view pointer) {
  std::vector<std::string> tokens;
  if (pointer.empty()) return tokens;
  if (pointer.front() != '/') return std::nullopt;
  std::string token;
  for (std::size_t i = 1; i <= pointer.size(); ++i) {
    if (i == pointer.size() || pointer[i] == '/') {
      tokens.push_back(std::move(token));
      token.clear();
    } else if (pointer[i] == '~') {
      if (i + 1 == pointer.size() || (pointer[i + 1] != '0' && pointer[i + 1] != '1')) {
        return std::nullopt;
      }
      token += pointer[++i] == '1' ? '/' : '~';
    } else {
      token += pointer[i];
    }
  }
  return tokens;
}

// An array index: "0" or digits without a leading zero.
std::optional<std::size_t> parse_index(std::string_view token) {
  if (token.empty() || (token.size() > 1 && token.front() == '0')) return std::nullopt;
  std::size_t index = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), index);
  if (ec != std::errc() || end != token.data() + token.size()) return std::nullopt;
  return index;
}

std::string invalid_index(std::string_view token) {
  return "Unable to access invalid index: " + std::string(token) + ": invalid index referenced";
}

// The container that holds the last token of `path`, or null when some step is missing.
Json* parent_of(Json& doc, const std::vector<std::string>& tokens) {
  Json* node = &doc;
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (node->is_object()) {
      const auto it = node->find(tokens[i]);
      if (it == node->end()) return nullptr;
      node = &*it;
    } else if (node->is_array()) {
      const auto index = parse_index(tokens[i]);
      if (!index || *index >= node->size()) return nullptr;
      node = &(*node)[*index];
    } else {
      return nullptr;
    }
  }
  return node->is_object() || node->is_array() ? node : nullptr;
}

class Operation {
 public:
  Operation(const Json& op, Json& doc) : op_(op), doc_(doc) {
    const auto kind = op.find("op");
    name_ = kind != op.end() && kind->is_string() ? kind->get<std::string>() : "unknown";
  }

  std::expected<void, std::string> apply() {
    if (name_ == "add") return add();
    if (name_ == "remove") return remove();
    if (name_ == "replace") return replace();
    if (name_ == "move") return move();
    if (name_ == "copy") return copy();
    if (name_ == "test") return test();
    return Fail("Unexpected kind: " + name_);
  }

 private:
  std::expected<std::string, std::string> member(std::string_view field) const {
    const auto it = op_.find(field);
    if (it == op_.end() || !it->is_string()) {
      return Fail(name_ + " operation failed to decode " + std::string(field) +
                  ": operation missing " + std::string(field) + " field: missing value");
    }
    return it->get<std::string>();
  }

  std::expected<const Json*, std::string> value() const {
    const auto it = op_.find("value");
    if (it == op_.end()) {
      return Fail(name_ + " operation failed: operation, missing value field: missing value");
    }
    return &*it;
  }

  std::string missing(std::string_view what, const std::string& path) const {
    return name_ + " operation does not apply: doc is missing " + std::string(what) + ": " + path +
           ": missing value";
  }

  // Adds `value` at `path` (RFC 6902 4.1), used by add, move and copy.
  std::expected<void, std::string> add_at(const std::string& path, Json value) {
    const auto tokens = parse_pointer(path);
    if (!tokens) return Fail(missing("path", path));
    if (tokens->empty()) {
      doc_ = std::move(value);
      return {};
    }
    Json* parent = parent_of(doc_, *tokens);
    if (!parent) return Fail(missing("path", path));
    const std::string& key = tokens->back();
    if (parent->is_object()) {
      (*parent)[key] = std::move(value);
      return {};
    }
    if (key == "-") {
      parent->push_back(std::move(value));
      return {};
    }
    const auto index = parse_index(key);
    if (!index || *index > parent->size()) {
      return Fail("error in " + name_ + " for path: '" + path + "': " + invalid_index(key));
    }
    parent->insert(parent->begin() + static_cast<std::ptrdiff_t>(*index), std::move(value));
    return {};
  }

  // The value at `path`, which must exist.
  std::expected<Json*, std::string> find(const std::string& path, std::string_view what) {
    const auto tokens = parse_pointer(path);
    if (!tokens) return Fail(missing(what, path));
    if (tokens->empty()) return &doc_;
    Json* parent = parent_of(doc_, *tokens);
    if (!parent) return Fail(missing(what, path));
    const std::string& key = tokens->back();
    if (parent->is_object()) {
      const auto it = parent->find(key);
      if (it == parent->end()) return Fail(missing("key", path));
      return &*it;
    }
    const auto index = parse_index(key);
    if (!index || *index >= parent->size()) {
      return Fail("error in " + name_ + " for path: '" + path + "': " + invalid_index(key));
    }
    return &(*parent)[*index];
  }

  std::expected<void, std::string> remove_at(const std::string& path) {
    const auto tokens = parse_pointer(path);
    if (!tokens || tokens->empty()) return Fail(missing("path", path));
    Json* parent = parent_of(doc_, *tokens);
    if (!parent) return Fail(missing("path", path));
    const std::string& key = tokens->back();
    if (parent->is_object()) {
      if (parent->erase(key) == 0) {
        return Fail("error in " + name_ + " for path: '" + path +
                    "': Unable to remove nonexistent key: " + key + ": missing value");
      }
      return {};
    }
    const auto index = parse_index(key);
    if (!index || *index >= parent->size()) {
      return Fail("error in " + name_ + " for path: '" + path + "': " + invalid_index(key));
    }
    parent->erase(parent->begin() + static_cast<std::ptrdiff_t>(*index));
    return {};
  }

  std::expected<void, std::string> add() {
    auto path = member("path");
    if (!path) return Fail(path.error());
    auto v = value();
    if (!v) return Fail(v.error());
    return add_at(*path, **v);
  }

  std::expected<void, std::string> remove() {
    auto path = member("path");
    if (!path) return Fail(path.error());
    return remove_at(*path);
  }

  std::expected<void, std::string> replace() {
    auto path = member("path");
    if (!path) return Fail(path.error());
    auto v = value();
    if (!v) return Fail(v.error());
    auto target = find(*path, "path");
    if (!target) return Fail(target.error());
    **target = **v;
    return {};
  }

  std::expected<void, std::string> move() {
    auto from = member("from");
    if (!from) return Fail(from.error());
    auto path = member("path");
    if (!path) return Fail(path.error());
    auto source = find(*from, "from path");
    if (!source) return Fail(source.error());
    if (*path == *from) return {};
    if (path->starts_with(*from + "/")) {
      return Fail("move operation does not apply: from path " + *from +
                  " is a prefix of the destination " + *path);
    }
    Json moved = std::move(**source);
    if (auto removed = remove_at(*from); !removed) return removed;
    return add_at(*path, std::move(moved));
  }

  std::expected<void, std::string> copy() {
    auto from = member("from");
    if (!from) return Fail(from.error());
    auto path = member("path");
    if (!path) return Fail(path.error());
    auto source = find(*from, "from path");
    if (!source) return Fail(source.error());
    return add_at(*path, **source);
  }

  std::expected<void, std::string> test() {
    auto path = member("path");
    if (!path) return Fail(path.error());
    auto v = value();
    if (!v) return Fail(v.error());
    auto actual = find(*path, "path");
    if (!actual) {
      return Fail("test operation does not apply: is missing path: " + *path + ": missing value");
    }
    if (**actual != **v) return Fail("testing value " + *path + " failed: test failed");
    return {};
  }

  const Json& op_;
  Json& doc_;
  std::string name_;
};

}  // namespace

std::expected<Json, PatchError> json_patch(const Json& target, const Json& operations) {
  if (operations.is_null()) return target;
  if (!operations.is_array()) {
    return std::unexpected(PatchError{400, go_unmarshal_error(operations, "jsonpatch.Patch"), {}});
  }
  for (const Json& op : operations) {
    if (!op.is_object() && !op.is_null()) {
      return std::unexpected(PatchError{400, go_unmarshal_error(op, "jsonpatch.Operation"), {}});
    }
  }
  if (operations.size() > kMaxOperations) {
    return std::unexpected(PatchError{
        413,
        "Request entity too large: The allowed maximum operations in a JSON patch is " +
            std::to_string(kMaxOperations) + ", got " + std::to_string(operations.size()),
        {}});
  }
  Json doc = target;
  for (const Json& op : operations) {
    const Json no_members = Json::object();
    if (auto applied = Operation(op.is_null() ? no_members : op, doc).apply(); !applied) {
      return std::unexpected(PatchError{422, std::string(kRejected), applied.error()});
    }
  }
  return doc;
}

}  // namespace respool::sandbox::patch
