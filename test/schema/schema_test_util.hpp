#pragma once
// Helpers shared by the schema tests: JSON literals and readable FieldError output.

#include <ostream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sandbox/schema/schema.hpp"

namespace respool::sandbox::schema {

inline std::ostream& operator<<(std::ostream& out, const FieldError& error) {
  return out << "{" << error.reason << ", " << error.field << ", " << error.message << "}";
}

}  // namespace respool::sandbox::schema

namespace schema_test {

using respool::sandbox::schema::FieldError;
using respool::sandbox::schema::Json;

inline Json json(const char* text) {
  return Json::parse(text);
}

// Wraps a property schema as spec.x of a resource schema, the shape most cases need.
inline Json spec_with(const Json& x_schema) {
  return {{"type", "object"},
          {"properties", {{"spec", {{"type", "object"}, {"properties", {{"x", x_schema}}}}}}}};
}

inline Json object_with(const Json& x) {
  return {{"spec", {{"x", x}}}};
}

}  // namespace schema_test
