#pragma once
// What a Standard diagnosis gathers about a Job (O11), within bounds: one LIST of its pods (by
// its controller-uid label), one LIST of its events (involvedObject.uid, as `kubectl describe`
// asks), for each failed run the end of its log (worker_failure.hpp: at most three requests and
// 192 KiB), one GET per node its pods ran on, and from the caches its running records and the
// NodeOperations on those nodes since it was created. So a job of W workers on N nodes with F
// failed runs costs 2 + N + F to 2 + N + 3F requests.

#include <string>

#include "reconcilers/context.hpp"
#include "reconcilers/policy/standard_diagnosis.hpp"

namespace respool::reconcilers {

struct Gathering {
  policy::JobEvidence evidence;
  int pods = 0;  // the Job's pods found
  long long requests = 0, log_bytes = 0;
};

// `job`: the Job from the cache (its metadata at least: namespace, name, uid, annotations).
Outcome<Gathering> gather_job_evidence(const Context& ctx, const kube::Unstructured& job);

}  // namespace respool::reconcilers
