#pragma once
// Reading Diagnoses back in the diagnosis tests: the list, one by name, whether it is Completed,
// and the Diagnosed events that name it on its Job.

#include <optional>
#include <string>
#include <vector>

#include "test/reconcilers/training_fixtures.hpp"

namespace respool::test::training {

inline std::vector<Json> diagnoses(Harness& h) {
  auto list = h.client().list(kube::resources::diagnoses, "default");
  REQUIRE(list);
  return (*list)["items"].get<std::vector<Json>>();
}

inline std::optional<Json> diagnosis(Harness& h, const std::string& name) {
  auto d = h.client().get(kube::resources::diagnoses, "default", name);
  if (!d) return std::nullopt;
  return *d;
}

inline bool completed(const std::optional<Json>& d) {
  return d && d->value("status", Json::object()).value("phase", "") == "Completed";
}

// Asks for a Standard diagnosis `name` of the Job `job_name` (as `kubectl create` does).
inline void ask_diagnosis(Harness& h, const std::string& name, const std::string& job_name,
                          const std::string& description = "") {
  Json spec = {{"job", job_name}};
  if (!description.empty()) spec["description"] = description;
  REQUIRE(h.client().create(kube::resources::diagnoses, "default",
                            Json{{"apiVersion", "respool.io/v1alpha1"},
                                 {"kind", "Diagnosis"},
                                 {"metadata", {{"name", name}, {"namespace", "default"}}},
                                 {"spec", spec}}));
}

inline int diagnosed_events(Harness& h, const std::string& job_name, const std::string& report) {
  int n = 0;
  for (const auto& e : h.events_for(job_name))
    if (e.value("reason", "") == "Diagnosed" &&
        e.value("note", "").find("diagnosis " + report + ":") != std::string::npos)
      n += std::max(1, e.value("series", Json::object()).value("count", 1));
  return n;
}

}  // namespace respool::test::training
