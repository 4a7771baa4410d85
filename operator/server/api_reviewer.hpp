#pragma once
// The AccessReviewer the endpoints use: TokenReview (authentication.k8s.io/v1) and
// SubjectAccessReview (authorization.k8s.io/v1) created through the API client. Their
// ServiceAccount needs `create` on both (the chart's ClusterRoles grant it when
// metrics.secure is on).

#include "operator/kube/client.hpp"
#include "operator/server/metrics_auth.hpp"

namespace respool::server {

class ApiReviewer final : public AccessReviewer {
 public:
  explicit ApiReviewer(kube::Client& client) : client_(client) {}
  std::expected<std::optional<ReviewedUser>, std::string> review_token(
      std::string_view token) override;
  std::expected<bool, std::string> review_access(const ReviewedUser& user, std::string_view verb,
                                                 std::string_view path) override;

 private:
  kube::Client& client_;
};

}  // namespace respool::server
