// Printers of certificates.k8s.io kinds (CertificateSigningRequest).

#include "sandbox/apiserver/printers/printers.hpp"
#include "sandbox/apiserver/printers/tables.hpp"

namespace respool::sandbox::printers {
namespace {

std::string csr_status_text(const Json& o) {
  bool approved = false, denied = false, failed = false;
  const Json& conds = at(o, {"status", "conditions"});
  if (conds.is_array()) {
    for (const Json& c : conds) {
      std::string t = text(at(c, {"type"}));
      approved = approved || t == "Approved";
      denied = denied || t == "Denied";
      failed = failed || t == "Failed";
    }
  }
  std::string s = denied ? "Denied" : approved ? "Approved" : "Pending";
  if (failed) s += ",Failed";
  if (!text(at(o, {"status", "certificate"})).empty()) s += ",Issued";
  return s;
}

}  // namespace

const PrinterDef certificate_signing_request{
    {{"Age", "string", kAgeDesc},
     {"SignerName", "string", "Requested signer for the request."},
     {"Requestor", "string", "Name of the user that created the request."},
     {"RequestedDuration", "string",
      "expirationSeconds is the requested duration of validity of "
      "the issued certificate."},
     {"Condition", "string", "Conditions applied to the request."}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      const Json& secs = at(o, {"spec", "expirationSeconds"});
      std::string duration = "<none>";
      if (secs.is_number_integer()) {
        duration = human_duration(std::chrono::seconds(secs.get<long long>()));
      }
      return {name_of(o),
              age(o, now),
              text(at(o, {"spec", "signerName"}), "<none>"),
              text(at(o, {"spec", "username"})),
              duration,
              csr_status_text(o)};
    }};

}  // namespace respool::sandbox::printers
