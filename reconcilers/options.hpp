#pragma once
// What the operator's flags tell the controllers.

#include <filesystem>
#include <string>

namespace respool::reconcilers {

struct Options {
  std::filesystem::path catalog_file;  // --catalog
  std::string operator_namespace;      // where plug-ins without a namespace go
  std::string job_selector;            // label selector of pods that count as jobs ("" = all)
  int workers = 2;                     // per controller
  bool training_jobs = true;           // the training-job controller (--training-jobs)
};

}  // namespace respool::reconcilers
