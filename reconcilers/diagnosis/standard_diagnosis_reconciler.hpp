#pragma once
// Standard diagnosis on demand (issue 29, O11). Its key is a Diagnosis of type Standard
// ("namespace/name") that is not Completed or Failed yet.
//   observe  the Diagnosis and its Job from the caches
//   decide   a Job that does not exist ends the Diagnosis Failed (JobNotFound)
//   act      gather the Job's evidence within bounds (job_evidence.hpp); pure results
//            (policy/standard_diagnosis)
//   report   the report in the Diagnosis' status, written once (guarded by its resourceVersion),
//            and a Diagnosed event on the Job
// Nothing is written before the report: an operator restarted mid-diagnosis gathers again and
// writes the one report.

#include <string>

#include "operator/runtime/controller.hpp"
#include "reconcilers/context.hpp"

namespace respool::reconcilers {

class StandardDiagnosisReconciler {
 public:
  StandardDiagnosisReconciler(Context& ctx, const runtime::Informer<kube::Unstructured>& diagnoses)
      : ctx_(ctx), diagnoses_(diagnoses) {}
  Outcome<runtime::ReconcileResult> reconcile(const std::string& key);

  // Whether a cached Diagnosis (its summary, diagnosis_setup.cpp) still asks for a report.
  static bool pending(const kube::Unstructured& diagnosis);

 private:
  Context& ctx_;
  const runtime::Informer<kube::Unstructured>& diagnoses_;
};

}  // namespace respool::reconcilers
