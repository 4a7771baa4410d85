// to_field_set, compare, merge and remove_fields over a Schema.

#include "sandbox/fieldmanager/typed.hpp"

namespace respool::sandbox::fields {
namespace {

using Node = Schema::Node;

bool list_shape(Shape s) {
  return s == Shape::KeyedList || s == Shape::SetList;
}

// The path element of a list item: its keys or its value.
std::string item_element(const Schema& schema, Node list, Shape shape, const Json& item) {
  if (shape == Shape::SetList) return value_element(item);
  Json keys = Json::object();
  for (const auto& [name, def] : schema.keys(list)) {
    if (item.is_object() && item.contains(name)) {
      keys[name] = item[name];
    } else if (!def.is_null()) {
      keys[name] = def;
    }
  }
  return key_element(keys);
}

// How a value is walked: its schema's shape, or, without one, what the value looks like.
Shape effective(const Schema& schema, Node node, const Json& value) {
  Shape s = schema.shape(node);
  if (s == Shape::Deduced) {
    if (value.is_object()) return Shape::Map;
    if (value.is_array()) return Shape::AtomicList;
    return Shape::Scalar;
  }
  // A value of another type than the schema's is a leaf (validation reports it elsewhere).
  if ((s == Shape::Struct || s == Shape::Map) && !value.is_object()) return Shape::Scalar;
  if (list_shape(s) && !value.is_array()) return Shape::Scalar;
  return s;
}

void fill(const Schema& schema, Node node, const Json& value, Path& path, FieldSet& out) {
  Shape s = effective(schema, node, value);
  if (s == Shape::Struct || s == Shape::Map) {
    for (const auto& [k, v] : value.items()) {
      bool declared = false;
      Node child = schema.field(node, k, declared);
      path.push_back(field_element(k));
      fill(schema, child, v, path, out);
      if (v.is_null() || (v.is_object() && v.empty()) || !declared) out.insert(path);
      path.pop_back();
    }
  } else if (list_shape(s)) {
    Node item = schema.items(node);
    for (const Json& v : value) {
      path.push_back(item_element(schema, node, s, v));
      fill(schema, item, v, path, out);
      out.insert(path);
      path.pop_back();
    }
  } else if (!value.is_null()) {
    out.insert(path);
  }
}

bool empty_value(const Json* v) {
  return !v || v->is_null() || ((v->is_object() || v->is_array()) && v->empty());
}

void diff(const Schema& schema, Node node, const Json* l, const Json* r, Path& path,
          Comparison& out) {
  // A null side is an empty value of the other side's kind (a nil list or map in Go).
  const Json* typed = r && !r->is_null() ? r : l;
  if (!typed || typed->is_null()) typed = r ? r : l;
  Shape s = effective(schema, node, *typed);
  const Json* other = typed == r ? l : r;
  if (other && !other->is_null() && effective(schema, node, *other) != s) s = Shape::Scalar;
  bool leaf = !(s == Shape::Struct || s == Shape::Map || list_shape(s)) ||
              (empty_value(l) && empty_value(r));
  if (leaf) {
    if (!l) {
      out.added.insert(path);
    } else if (!r) {
      out.removed.insert(path);
    } else if (*l != *r) {
      out.modified.insert(path);
    }
    return;
  }
  if (s == Shape::Struct || s == Shape::Map) {
    auto visit = [&](const std::string& k, const Json* lv, const Json* rv) {
      bool declared = false;
      Node child = schema.field(node, k, declared);
      path.push_back(field_element(k));
      diff(schema, child, lv, rv, path, out);
      path.pop_back();
    };
    if (r && r->is_object()) {
      for (const auto& [k, v] : r->items()) {
        const Json* lv = l && l->is_object() && l->contains(k) ? &(*l)[k] : nullptr;
        visit(k, lv, &v);
      }
    }
    if (l && l->is_object()) {
      for (const auto& [k, v] : l->items()) {
        if (!r || !r->is_object() || !r->contains(k)) visit(k, &v, nullptr);
      }
    }
  } else {
    Node item = schema.items(node);
    std::map<std::string, const Json*> left;
    if (l && l->is_array()) {
      for (const Json& v : *l)
        left.emplace(item_element(schema, node, s, v), &v);
    }
    std::map<std::string, bool> seen;
    if (r && r->is_array()) {
      for (const Json& v : *r) {
        std::string pe = item_element(schema, node, s, v);
        if (seen[pe]) continue;
        seen[pe] = true;
        auto it = left.find(pe);
        path.push_back(pe);
        diff(schema, item, it == left.end() ? nullptr : it->second, &v, path, out);
        path.pop_back();
      }
    }
    for (const auto& [pe, v] : left) {
      if (seen.count(pe)) continue;
      path.push_back(pe);
      diff(schema, item, v, nullptr, path, out);
      path.pop_back();
    }
  }
  if (!l) {
    out.added.insert(path);
  } else if (!r) {
    out.removed.insert(path);
  }
}

Json merge_node(const Schema& schema, Node node, const Json& l, const Json& r) {
  Shape s = effective(schema, node, r);
  if (effective(schema, node, l) != s) return r;
  if (s == Shape::Struct || s == Shape::Map) {
    if (r.empty()) return l.empty() ? r : l;
    Json out = l;
    for (const auto& [k, v] : r.items()) {
      bool declared = false;
      Node child = schema.field(node, k, declared);
      out[k] = l.contains(k) ? merge_node(schema, child, l[k], v) : v;
    }
    return out;
  }
  if (list_shape(s)) {
    Node item = schema.items(node);
    std::map<std::string, std::size_t> index;
    Json out = Json::array();
    for (const Json& v : l) {
      index.emplace(item_element(schema, node, s, v), out.size());
      out.push_back(v);
    }
    for (const Json& v : r) {
      std::string pe = item_element(schema, node, s, v);
      auto it = index.find(pe);
      if (it == index.end()) {
        index.emplace(pe, out.size());
        out.push_back(v);
      } else {
        out[it->second] = merge_node(schema, item, out[it->second], v);
      }
    }
    return out;
  }
  return r;
}

// Removes from `value` what `remove` names below it, sparing what `keep` still owns.
void remove_below(const Schema& schema, Node node, Json& value, const FieldSet& remove,
                  const FieldSet* keep) {
  Shape s = effective(schema, node, value);
  auto keep_child = [&](const std::string& pe) -> const FieldSet* {
    if (!keep) return nullptr;
    auto it = keep->children.find(pe);
    return it == keep->children.end() ? nullptr : &it->second;
  };
  auto goes = [&](const FieldSet& sub, const FieldSet* kept) {
    return sub.member && (!kept || (kept->children.empty() && !kept->member));
  };
  if (s == Shape::Struct || s == Shape::Map) {
    for (const auto& [pe, sub] : remove.children) {
      if (!pe.starts_with("f:")) continue;
      std::string k = pe.substr(2);
      if (!value.contains(k)) continue;
      const FieldSet* kept = keep_child(pe);
      if (goes(sub, kept)) {
        value.erase(k);
        continue;
      }
      bool declared = false;
      Node child = schema.field(node, k, declared);
      bool was_empty = value[k].is_object() && value[k].empty();
      remove_below(schema, child, value[k], sub, kept);
      if (!was_empty && value[k].is_object() && value[k].empty()) value.erase(k);
    }
  } else if (list_shape(s)) {
    Node item = schema.items(node);
    Json out = Json::array();
    for (Json& v : value) {
      std::string pe = item_element(schema, node, s, v);
      auto it = remove.children.find(pe);
      if (it == remove.children.end()) {
        out.push_back(std::move(v));
        continue;
      }
      const FieldSet* kept = keep_child(pe);
      if (goes(it->second, kept)) continue;
      remove_below(schema, item, v, it->second, kept);
      out.push_back(std::move(v));
    }
    value = std::move(out);
  }
}

}  // namespace

FieldSet to_field_set(const Schema& schema, const Json& object) {
  FieldSet out;
  Path path;
  fill(schema, schema.root(), object, path, out);
  out.member = false;
  return out;
}

Comparison compare(const Schema& schema, const Json* old_object, const Json* new_object) {
  Comparison out;
  if (!old_object && !new_object) return out;
  Path path;
  diff(schema, schema.root(), old_object, new_object, path, out);
  out.added.member = out.modified.member = out.removed.member = false;
  return out;
}

Json merge(const Schema& schema, const Json& live, const Json& config) {
  return merge_node(schema, schema.root(), live, config);
}

Json remove_fields(const Schema& schema, const Json& object, const FieldSet& remove,
                   const FieldSet& keep) {
  Json out = object;
  remove_below(schema, schema.root(), out, remove, &keep);
  return out;
}

}  // namespace respool::sandbox::fields
