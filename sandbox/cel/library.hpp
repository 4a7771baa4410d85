#pragma once
// The function libraries of the evaluator, each filling the one table `find_function` reads:
// keys are `name` for global functions and `.name` for receiver-style ones.

#include <string>
#include <unordered_map>

#include "sandbox/cel/eval.hpp"

namespace respool::sandbox::cel {

using FunctionTable = std::unordered_map<std::string, Function>;

void add_operators(FunctionTable& table);       // arithmetic, comparison, index, in, size
void add_conversions(FunctionTable& table);     // int() uint() double() string() ... type()
void add_time_functions(FunctionTable& table);  // timestamp and duration accessors
void add_strings(FunctionTable& table);         // contains... and the strings extension
void add_format(FunctionTable& table);          // "...".format([...])
void add_lists(FunctionTable& table);           // Kubernetes lists, sets, optional
void add_regex(FunctionTable& table);           // matches, find, findAll (RE2)
void add_network(FunctionTable& table);         // Kubernetes url, ip, cidr
void add_quantity(FunctionTable& table);        // Kubernetes quantity
void add_named_formats(FunctionTable& table);   // Kubernetes format.dns1123Label() ... validate()

// Helpers the libraries share.
Value int_or_error(Int128 v);                       // "integer overflow" outside int64
bool int_index(const Value& v, std::int64_t& out);  // int, uint or integral double
Value list_index_of(CallContext& c, bool last);     // list.indexOf(x), list.lastIndexOf(x)

}  // namespace respool::sandbox::cel
