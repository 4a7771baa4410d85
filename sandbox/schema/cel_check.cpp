#include "sandbox/schema/cel_check.hpp"

#include <map>

#include "sandbox/cel/eval.hpp"

namespace respool::sandbox::schema::detail {
namespace {

using cel::Expr;
using cel::ExprKind;
using cel::Macro;
using DKind = DeclType::Kind;

// Functions of the Kubernetes 1.32 CEL environment for CRD rules that the sandbox does not
// evaluate: a rule using one compiles (with a warning) and objects it checks are refused.
const std::set<std::string> kLacking = {"fieldSelector", "labelSelector", "math.greatest",
                                        "math.least",    "base64.encode", "base64.decode"};

// Result types of functions by name (receiver or global), where the name alone decides it.
const std::map<std::string, DKind> kResults = {{"size", DKind::Int},
                                               {"contains", DKind::Bool},
                                               {"startsWith", DKind::Bool},
                                               {"endsWith", DKind::Bool},
                                               {"matches", DKind::Bool},
                                               {"isSorted", DKind::Bool},
                                               {"hasValue", DKind::Bool},
                                               {"isURL", DKind::Bool},
                                               {"isIP", DKind::Bool},
                                               {"isCIDR", DKind::Bool},
                                               {"isQuantity", DKind::Bool},
                                               {"containsIP", DKind::Bool},
                                               {"containsCIDR", DKind::Bool},
                                               {"isGreaterThan", DKind::Bool},
                                               {"isLessThan", DKind::Bool},
                                               {"isInteger", DKind::Bool},
                                               {"sets.contains", DKind::Bool},
                                               {"sets.equivalent", DKind::Bool},
                                               {"sets.intersects", DKind::Bool},
                                               {"ip.isCanonical", DKind::Bool},
                                               {"isUnspecified", DKind::Bool},
                                               {"isLoopback", DKind::Bool},
                                               {"isLinkLocalMulticast", DKind::Bool},
                                               {"isLinkLocalUnicast", DKind::Bool},
                                               {"isGlobalUnicast", DKind::Bool},
                                               {"string", DKind::String},
                                               {"lowerAscii", DKind::String},
                                               {"upperAscii", DKind::String},
                                               {"replace", DKind::String},
                                               {"substring", DKind::String},
                                               {"trim", DKind::String},
                                               {"charAt", DKind::String},
                                               {"join", DKind::String},
                                               {"format", DKind::String},
                                               {"find", DKind::String},
                                               {"strings.quote", DKind::String},
                                               {"reverse", DKind::String},
                                               {"getScheme", DKind::String},
                                               {"getHost", DKind::String},
                                               {"getHostname", DKind::String},
                                               {"getPort", DKind::String},
                                               {"getEscapedPath", DKind::String},
                                               {"int", DKind::Int},
                                               {"uint", DKind::Uint},
                                               {"double", DKind::Double},
                                               {"bool", DKind::Bool},
                                               {"bytes", DKind::Bytes},
                                               {"indexOf", DKind::Int},
                                               {"lastIndexOf", DKind::Int},
                                               {"duration", DKind::Duration},
                                               {"timestamp", DKind::Timestamp},
                                               {"type", DKind::Type},
                                               {"getFullYear", DKind::Int},
                                               {"getMonth", DKind::Int},
                                               {"getDate", DKind::Int},
                                               {"getDayOfMonth", DKind::Int},
                                               {"getDayOfWeek", DKind::Int},
                                               {"getDayOfYear", DKind::Int},
                                               {"getHours", DKind::Int},
                                               {"getMinutes", DKind::Int},
                                               {"getSeconds", DKind::Int},
                                               {"getMilliseconds", DKind::Int},
                                               {"sign", DKind::Int},
                                               {"compareTo", DKind::Int},
                                               {"asInteger", DKind::Int},
                                               {"asApproximateFloat", DKind::Double},
                                               {"family", DKind::Int},
                                               {"prefixLength", DKind::Int}};

// Receiver functions that take only a string receiver.
const std::set<std::string> kStringReceivers = {"contains",   "startsWith", "endsWith", "matches",
                                                "lowerAscii", "upperAscii", "charAt",   "substring",
                                                "trim",       "split",      "replace",  "find",
                                                "findAll",    "format",     "reverse"};

bool known(const TypePtr& t) {
  return t && t->kind != DKind::Dyn;
}
bool is(const TypePtr& t, DKind k) {
  return t && t->kind == k;
}
bool numeric(const TypePtr& t) {
  return is(t, DKind::Int) || is(t, DKind::Uint) || is(t, DKind::Double);
}

class Checker {
 public:
  Checker(const TypePtr& self, CheckResult& out) : self_(self), out_(out) {}

  TypePtr check(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Literal:
        return literal(e.literal);
      case ExprKind::Ident:
        return ident(e);
      case ExprKind::Select:
        return select(e);
      case ExprKind::Call:
        return call(e);
      case ExprKind::List: {
        TypePtr elem;
        for (const auto& a : e.args)
          elem = check(*a);
        return list_of(e.args.size() == 1 ? elem : dyn_type());
      }
      case ExprKind::Map:
        for (const auto& a : e.args)
          check(*a);
        return dyn_type();
      case ExprKind::Struct:
        error(e, "undeclared reference to '" + e.name + "' (in container '')");
        return dyn_type();
      case ExprKind::Comprehension:
        return comprehension(e);
    }
    return dyn_type();
  }

 private:
  TypePtr self_;
  CheckResult& out_;
  std::vector<std::pair<std::string, TypePtr>> scope_;

  void error(const Expr& e, std::string message) { out_.issues.push_back({e.pos, message}); }

  static TypePtr list_of(TypePtr elem) {
    auto t = std::make_shared<DeclType>();
    t->kind = DKind::List;
    t->elem = elem ? elem : dyn_type();
    return t;
  }

  static TypePtr literal(const cel::Value& v) {
    switch (v.kind()) {
      case cel::Kind::Bool:
        return simple_type(DKind::Bool);
      case cel::Kind::Int:
        return simple_type(DKind::Int);
      case cel::Kind::Uint:
        return simple_type(DKind::Uint);
      case cel::Kind::Double:
        return simple_type(DKind::Double);
      case cel::Kind::String:
        return simple_type(DKind::String);
      case cel::Kind::Bytes:
        return simple_type(DKind::Bytes);
      case cel::Kind::Null:
        return simple_type(DKind::Null);
      default:
        return dyn_type();
    }
  }

  TypePtr ident(const Expr& e) {
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it) {
      if (it->first == e.name) return it->second;
    }
    if (e.name == "self") return self_;
    if (e.name == "oldSelf") {
      out_.uses_old_self = true;
      return self_;
    }
    error(e, "undeclared reference to '" + e.name + "' (in container '')");
    return dyn_type();
  }

  TypePtr select(const Expr& e) {
    TypePtr t = check(*e.target);
    TypePtr field = dyn_type();
    if (is(t, DKind::Object)) {
      auto it = t->fields.find(e.name);
      if (it == t->fields.end()) {
        error(e, "undefined field '" + e.name + "'");
      } else {
        field = it->second;
      }
    } else if (is(t, DKind::Map)) {
      field = t->elem;
    } else if (known(t)) {
      error(e, "type '" + type_string(*t) + "' does not support field selection");
    }
    if (e.test_only) return simple_type(DKind::Bool);
    return e.optional ? dyn_type() : field;
  }

  void no_overload(const Expr& e, const std::vector<TypePtr>& args, const TypePtr* target) {
    std::string list;
    for (std::size_t k = 0; k < args.size(); ++k) {
      if (k) list += ", ";
      list += args[k] ? type_string(*args[k]) : "dyn";
    }
    std::string applied = target ? type_string(**target) + ".(" + list + ")" : "(" + list + ")";
    error(e, "found no matching overload for '" + e.name + "' applied to '" + applied + "'");
  }

  // The result of an operator on known operand types; null when no overload fits.
  static TypePtr arithmetic(const std::string& op, const TypePtr& a, const TypePtr& b) {
    DKind x = a->kind, y = b->kind;
    bool same = x == y;
    if (op == "_+_") {
      if (same && (x == DKind::Int || x == DKind::Uint || x == DKind::Double ||
                   x == DKind::String || x == DKind::Bytes || x == DKind::Duration))
        return a;
      if (same && x == DKind::List) return a;
      if ((x == DKind::Timestamp && y == DKind::Duration) ||
          (x == DKind::Duration && y == DKind::Timestamp))
        return simple_type(DKind::Timestamp);
      return nullptr;
    }
    if (op == "_-_") {
      if (same &&
          (x == DKind::Int || x == DKind::Uint || x == DKind::Double || x == DKind::Duration))
        return a;
      if (x == DKind::Timestamp && y == DKind::Duration) return a;
      if (same && x == DKind::Timestamp) return simple_type(DKind::Duration);
      return nullptr;
    }
    if (op == "_%_") return same && (x == DKind::Int || x == DKind::Uint) ? a : nullptr;
    return same && (x == DKind::Int || x == DKind::Uint || x == DKind::Double) ? a : nullptr;
  }

  static bool comparable(const TypePtr& a, const TypePtr& b) {
    if (numeric(a) && numeric(b)) return true;
    if (a->kind != b->kind) return false;
    switch (a->kind) {
      case DKind::Bool:
      case DKind::String:
      case DKind::Bytes:
      case DKind::Duration:
      case DKind::Timestamp:
        return true;
      default:
        return false;
    }
  }

  TypePtr call(const Expr& e) {
    // A namespaced function written as a receiver call on a name: format.dns1123Label().
    if (e.target && e.target->kind == ExprKind::Ident &&
        kLacking.count(e.target->name + "." + e.name)) {
      out_.unsupported.insert(e.target->name + "." + e.name);
      for (const auto& a : e.args)
        check(*a);
      return dyn_type();
    }
    TypePtr target = e.target ? check(*e.target) : nullptr;
    std::vector<TypePtr> args;
    for (const auto& a : e.args)
      args.push_back(check(*a));
    const std::string& fn = e.name;
    bool all_known = true;
    for (const TypePtr& a : args)
      all_known = all_known && known(a);
    if (fn == "_&&_" || fn == "_||_" || fn == "!_") {
      for (const TypePtr& a : args) {
        if (known(a) && !is(a, DKind::Bool)) {
          no_overload(e, args, nullptr);
          break;
        }
      }
      return simple_type(DKind::Bool);
    }
    if (fn == "_==_" || fn == "_!=_") {
      if (all_known && args[0]->kind != args[1]->kind && !is(args[0], DKind::Null) &&
          !is(args[1], DKind::Null)) {
        no_overload(e, args, nullptr);
      }
      return simple_type(DKind::Bool);
    }
    if (fn == "_<_" || fn == "_<=_" || fn == "_>_" || fn == "_>=_") {
      if (all_known && !comparable(args[0], args[1])) no_overload(e, args, nullptr);
      return simple_type(DKind::Bool);
    }
    if (fn == "_+_" || fn == "_-_" || fn == "_*_" || fn == "_/_" || fn == "_%_") {
      if (!all_known) return dyn_type();
      TypePtr r = arithmetic(fn, args[0], args[1]);
      if (!r) no_overload(e, args, nullptr);
      return r ? r : dyn_type();
    }
    if (fn == "-_") {
      if (all_known && !is(args[0], DKind::Int) && !is(args[0], DKind::Double)) {
        no_overload(e, args, nullptr);
      }
      return args[0];
    }
    if (fn == "@in") return simple_type(DKind::Bool);
    if (fn == "_?_:_") {
      if (known(args[0]) && !is(args[0], DKind::Bool)) no_overload(e, args, nullptr);
      if (all_known && args[1]->kind == args[2]->kind) return args[1];
      return dyn_type();
    }
    if (fn == "_[_]" || fn == "_[?_]") {
      if (is(args[0], DKind::List) || is(args[0], DKind::Map)) {
        return fn == "_[_]" ? args[0]->elem : dyn_type();
      }
      if (known(args[0])) no_overload(e, args, nullptr);
      return dyn_type();
    }
    if (kLacking.count(fn)) {
      out_.unsupported.insert(fn);
      return dyn_type();
    }
    if (!cel::find_function(e.target ? "." + fn : fn)) {
      if (e.target && !cel::find_function(fn)) {
        error(e, "undeclared reference to '" + fn + "' (in container '')");
      } else if (!e.target) {
        error(e, "undeclared reference to '" + fn + "' (in container '')");
      }
      return dyn_type();
    }
    if (e.target && kStringReceivers.count(fn) && known(target) && !is(target, DKind::String)) {
      no_overload(e, args, &target);
      return dyn_type();
    }
    if ((fn == "sum" || fn == "min" || fn == "max") && is(target, DKind::List)) {
      return target->elem;
    }
    if ((fn == "split" || fn == "findAll") && e.target) {
      return list_of(simple_type(DKind::String));
    }
    auto it = kResults.find(fn);
    if (it != kResults.end()) return simple_type(it->second);
    return dyn_type();
  }

  TypePtr comprehension(const Expr& e) {
    TypePtr range = check(*e.args[0]);
    TypePtr var = dyn_type(), var2 = dyn_type();
    if (e.macro == Macro::Bind) {
      var = range;
    } else if (e.macro == Macro::OptMap || e.macro == Macro::OptFlatMap) {
      var = dyn_type();
    } else if (is(range, DKind::List)) {
      var = e.var2.empty() ? range->elem : simple_type(DKind::Int);
      var2 = range->elem;
    } else if (is(range, DKind::Map)) {
      var = simple_type(DKind::String);
      var2 = range->elem;
    } else if (known(range)) {
      error(*e.args[0], "expression of type '" + type_string(*range) +
                            "' cannot be range of a comprehension (must be list, map, or "
                            "dynamic)");
    }
    scope_.emplace_back(e.var, var);
    if (!e.var2.empty()) scope_.emplace_back(e.var2, var2);
    std::vector<TypePtr> steps;
    for (std::size_t k = 1; k < e.args.size(); ++k)
      steps.push_back(check(*e.args[k]));
    scope_.resize(scope_.size() - (e.var2.empty() ? 1 : 2));
    switch (e.macro) {
      case Macro::All:
      case Macro::Exists:
      case Macro::ExistsOne:
        return simple_type(DKind::Bool);
      case Macro::Map:
      case Macro::TransformList:
        return list_of(steps[0]);
      case Macro::MapFilter:
      case Macro::TransformListFilter:
        return list_of(steps[1]);
      case Macro::Filter:
        return list_of(var);
      case Macro::Bind:
        return steps[0];
      default:
        return dyn_type();
    }
  }
};

}  // namespace

CheckResult check_expression(const cel::Expr& expr, const TypePtr& self) {
  CheckResult out;
  Checker checker(self, out);
  out.result = checker.check(expr);
  std::stable_sort(out.issues.begin(), out.issues.end(),
                   [](const cel::Issue& a, const cel::Issue& b) { return a.pos < b.pos; });
  return out;
}

}  // namespace respool::sandbox::schema::detail
