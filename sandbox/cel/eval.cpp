#include "sandbox/cel/eval.hpp"

#include "sandbox/cel/library.hpp"

namespace respool::sandbox::cel {

struct CostExceeded {};

class Evaluator {
 public:
  Evaluator(const Bindings& vars, const EvalOptions& options) : vars_(vars), options_(options) {}

  void charge(std::uint64_t n) {
    cost_ += n;
    if (cost_ > options_.cost_limit) throw CostExceeded{};
  }
  std::uint64_t cost() const { return cost_; }

  Value eval(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Literal:
        return e.literal;
      case ExprKind::Ident:
        return ident(e);
      case ExprKind::Select:
        return select(e);
      case ExprKind::Call:
        return call(e);
      case ExprKind::List:
        return list(e);
      case ExprKind::Map:
        return map(e);
      case ExprKind::Struct:
        return Value::error("unknown type: " + e.name);
      case ExprKind::Comprehension:
        return comprehension(e);
    }
    return Value::error("unexpected expression");
  }

 private:
  const Bindings& vars_;
  const EvalOptions& options_;
  std::uint64_t cost_ = 0;
  std::vector<std::pair<const std::string*, Value>> locals_;

  const Value* local(std::string_view name) const {
    for (auto it = locals_.rbegin(); it != locals_.rend(); ++it) {
      if (*it->first == name) return &it->second;
    }
    return nullptr;
  }

  const Value* variable(std::string_view name) const {
    if (const Value* v = local(name)) return v;
    if (!name.empty() && name[0] == '.') name.remove_prefix(1);
    auto it = vars_.find(std::string(name));
    return it == vars_.end() ? nullptr : &it->second;
  }

  Value ident(const Expr& e) {
    charge(1);
    if (const Value* v = variable(e.name)) return *v;
    return Value::error("undeclared reference to '" + e.name + "' (in container '')");
  }

  // a.b.c as one qualified variable name, when such a variable is bound (and `a` is not a
  // comprehension variable): the longest bound prefix wins.
  bool qualified(const Expr& e, Value& out) {
    std::vector<const Expr*> chain;
    const Expr* x = &e;
    while (x->kind == ExprKind::Select && !x->test_only && !x->optional) {
      chain.push_back(x);
      x = x->target.get();
    }
    if (x->kind != ExprKind::Ident || chain.empty() || local(x->name)) return false;
    std::string name = x->name[0] == '.' ? x->name.substr(1) : x->name;
    std::vector<std::string> names{name};
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      name += "." + (*it)->name;
      names.push_back(name);
    }
    for (std::size_t k = names.size(); k-- > 1;) {
      auto found = vars_.find(names[k]);
      if (found == vars_.end()) continue;
      charge(1);
      Value v = found->second;
      for (std::size_t s = chain.size() - k; s-- > 0;)
        v = select_value(*chain[s], v);
      out = v;
      return true;
    }
    return false;
  }

  Value select_value(const Expr& e, const Value& target) {
    charge(1);
    if (target.is_error()) return target;
    if (target.is(Kind::Optional)) {
      if (!e.optional) return no_such_overload();
      if (!target.has_value()) return target;
      Value inner = select_value(e, target.optional_value());
      return inner;
    }
    if (!target.is(Kind::Map)) {
      return Value::error("type '" + type_name(target) + "' does not support field selection");
    }
    const Value* v = target.map_data().find(e.name);
    if (e.test_only) return Value::boolean(v != nullptr);
    if (e.optional) return v ? Value::optional_of(*v) : Value::optional_none();
    if (!v) return no_such_key(Value::string(e.name));
    return *v;
  }

  Value select(const Expr& e) {
    Value q;
    if (qualified(e, q)) return q;
    return select_value(e, eval(*e.target));
  }

  Value logical(const Expr& e, bool is_and) {
    Value l = eval(*e.args[0]);
    if (l.is(Kind::Bool) && l.as_bool() != is_and) return l;
    Value r = eval(*e.args[1]);
    if (r.is(Kind::Bool) && r.as_bool() != is_and) return r;
    if (l.is(Kind::Bool) && r.is(Kind::Bool)) return l;
    if (l.is_error()) return l;
    if (!l.is(Kind::Bool)) return no_such_overload();
    if (r.is_error()) return r;
    return no_such_overload();
  }

  Value call(const Expr& e) {
    charge(1);
    if (!e.target) {
      if (e.name == "_&&_") return logical(e, true);
      if (e.name == "_||_") return logical(e, false);
      if (e.name == "_?_:_") {
        Value c = eval(*e.args[0]);
        if (c.is_error()) return c;
        if (!c.is(Kind::Bool)) return no_such_overload();
        return eval(*e.args[c.as_bool() ? 1 : 2]);
      }
    }
    Value target;
    if (e.target) {
      target = eval(*e.target);
      if (target.is_error()) return target;
    }
    std::vector<Value> args;
    args.reserve(e.args.size());
    for (const ExprPtr& a : e.args) {
      args.push_back(eval(*a));
      if (args.back().is_error()) return args.back();
    }
    if (e.target && e.name == "or" && target.is(Kind::Optional) && args.size() == 1) {
      return target.has_value() ? target : args[0];
    }
    Function fn = find_function(e.target ? "." + e.name : e.name);
    if (!fn) {
      return Value::error(e.target ? "no such overload" : "unbound function: " + e.name);
    }
    CallContext ctx{*this, e.target ? &target : nullptr, args, options_};
    return fn(ctx);
  }

  Value list(const Expr& e) {
    charge(10);
    std::vector<Value> items;
    items.reserve(e.args.size());
    for (std::size_t k = 0; k < e.args.size(); ++k) {
      Value v = eval(*e.args[k]);
      if (v.is_error()) return v;
      if (e.optional_entries[k]) {
        if (!v.is(Kind::Optional)) return no_such_overload();
        if (v.has_value()) items.push_back(v.optional_value());
        continue;
      }
      items.push_back(std::move(v));
    }
    return Value::list(std::move(items));
  }

  Value map(const Expr& e) {
    charge(30);
    auto data = std::make_shared<MapData>();
    for (std::size_t k = 0; k + 1 < e.args.size(); k += 2) {
      Value key = eval(*e.args[k]);
      if (key.is_error()) return key;
      Value v = eval(*e.args[k + 1]);
      if (v.is_error()) return v;
      if (e.optional_entries[k / 2]) {
        if (!v.is(Kind::Optional)) return no_such_overload();
        if (!v.has_value()) continue;
        v = v.optional_value();
      }
      bool key_ok =
          key.is(Kind::String) || key.is(Kind::Int) || key.is(Kind::Uint) || key.is(Kind::Bool);
      if (!key_ok) return Value::error("unsupported key type");
      if (!data->insert(key, v)) return Value::error("Failed with repeated key");
    }
    return Value::map(std::move(data));
  }

  struct Scope {
    Evaluator& ev;
    std::size_t n;
    Scope(Evaluator& evaluator, const std::string& name, Value v) : ev(evaluator), n(1) {
      ev.locals_.emplace_back(&name, std::move(v));
    }
    void add(const std::string& name, Value v) {
      ev.locals_.emplace_back(&name, std::move(v));
      ++n;
    }
    ~Scope() { ev.locals_.resize(ev.locals_.size() - n); }
  };

  Value comprehension(const Expr& e) {
    Value range = eval(*e.args[0]);
    if (range.is_error()) return range;
    switch (e.macro) {
      case Macro::Bind: {
        Scope s(*this, e.var, range);
        return eval(*e.args[1]);
      }
      case Macro::OptMap:
      case Macro::OptFlatMap: {
        if (!range.is(Kind::Optional)) return no_such_overload();
        if (!range.has_value()) return range;
        Scope s(*this, e.var, range.optional_value());
        Value v = eval(*e.args[1]);
        if (v.is_error() || e.macro == Macro::OptFlatMap) return v;
        return Value::optional_of(v);
      }
      default:
        break;
    }
    // The elements: list items (with their index for two-variable forms) or map keys.
    std::vector<std::pair<Value, Value>> elems;
    if (range.is(Kind::List)) {
      const auto& items = range.items();
      for (std::size_t k = 0; k < items.size(); ++k)
        elems.emplace_back(Value::integer(static_cast<std::int64_t>(k)), items[k]);
    } else if (range.is(Kind::Map)) {
      for (const auto& [k, v] : range.map_data().entries)
        elems.emplace_back(k, v);
    } else {
      return Value::error("expression of type '" + type_name(range) +
                          "' cannot be range of a comprehension (must be list, map, or dynamic)");
    }
    bool two = !e.var2.empty();
    bool is_list = range.is(Kind::List);
    Value error;
    bool has_error = false;
    std::int64_t count = 0;
    std::vector<Value> out;
    auto out_map = std::make_shared<MapData>();
    for (const auto& el : elems) {
      charge(1);
      const Value& first = two || !is_list ? el.first : el.second;
      Scope s(*this, e.var, first);
      if (two) s.add(e.var2, el.second);
      switch (e.macro) {
        case Macro::All:
        case Macro::Exists: {
          bool is_all = e.macro == Macro::All;
          Value p = eval(*e.args[1]);
          if (p.is(Kind::Bool)) {
            if (p.as_bool() != is_all) return p;
          } else if (!has_error) {
            has_error = true;
            error = p.is_error() ? p : no_such_overload();
          }
          break;
        }
        case Macro::ExistsOne: {
          Value p = eval(*e.args[1]);
          if (p.is_error()) return p;
          if (!p.is(Kind::Bool)) return no_such_overload();
          count += p.as_bool();
          break;
        }
        case Macro::Map:
        case Macro::TransformList: {
          Value v = eval(*e.args[1]);
          if (v.is_error()) return v;
          out.push_back(std::move(v));
          break;
        }
        case Macro::MapFilter:
        case Macro::Filter:
        case Macro::TransformListFilter:
        case Macro::TransformMapFilter: {
          Value p = eval(*e.args[1]);
          if (p.is_error()) return p;
          if (!p.is(Kind::Bool)) return no_such_overload();
          if (!p.as_bool()) break;
          if (e.macro == Macro::Filter) {
            out.push_back(first);
            break;
          }
          Value v = eval(*e.args[2]);
          if (v.is_error()) return v;
          if (e.macro == Macro::TransformMapFilter) {
            out_map->insert(el.first, std::move(v));
          } else {
            out.push_back(std::move(v));
          }
          break;
        }
        case Macro::TransformMap: {
          Value v = eval(*e.args[1]);
          if (v.is_error()) return v;
          out_map->insert(el.first, std::move(v));
          break;
        }
        default:
          return Value::error("unexpected macro");
      }
    }
    switch (e.macro) {
      case Macro::All:
      case Macro::Exists:
        return has_error ? error : Value::boolean(e.macro == Macro::All);
      case Macro::ExistsOne:
        return Value::boolean(count == 1);
      case Macro::TransformMap:
      case Macro::TransformMapFilter:
        return Value::map(std::move(out_map));
      default:
        charge(out.size() / 10);
        return Value::list(std::move(out));
    }
  }
};

void CallContext::charge(std::uint64_t cost) {
  evaluator.charge(cost);
}

EvalResult evaluate(const Expr& expr, const Bindings& vars, const EvalOptions& options) {
  Evaluator ev(vars, options);
  EvalResult r;
  try {
    r.value = ev.eval(expr);
  } catch (const CostExceeded&) {
    r.value = Value::error(kCostExceeded);
    r.cost_exceeded = true;
  }
  r.cost = ev.cost();
  return r;
}

Function find_function(const std::string& key) {
  static const FunctionTable table = [] {
    FunctionTable t;
    add_operators(t);
    add_conversions(t);
    add_time_functions(t);
    add_strings(t);
    add_format(t);
    add_lists(t);
    add_regex(t);
    add_network(t);
    add_quantity(t);
    add_named_formats(t);
    return t;
  }();
  auto it = table.find(key);
  return it == table.end() ? nullptr : it->second;
}

}  // namespace respool::sandbox::cel
