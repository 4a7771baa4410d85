#include "operator/server/api_reviewer.hpp"

namespace respool::server {

namespace {

const kube::Resource token_reviews{"authentication.k8s.io", "v1", "tokenreviews", "TokenReview",
                                   false};
const kube::Resource access_reviews{"authorization.k8s.io", "v1", "subjectaccessreviews",
                                    "SubjectAccessReview", false};

std::vector<std::string> strings(const kube::Json& array) {
  std::vector<std::string> out;
  if (!array.is_array()) return out;
  for (const auto& item : array)
    if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

ReviewedUser user_of(const kube::Json& user) {
  ReviewedUser out;
  out.name = user.value("username", "");
  out.uid = user.value("uid", "");
  out.groups = strings(user.value("groups", kube::Json::array()));
  const kube::Json extra = user.value("extra", kube::Json::object());
  if (extra.is_object()) {
    for (const auto& [key, values] : extra.items())
      out.extra[key] = strings(values);
  }
  return out;
}

}  // namespace

std::expected<std::optional<ReviewedUser>, std::string> ApiReviewer::review_token(
    std::string_view token) {
  const kube::Json review = {{"apiVersion", token_reviews.api_version()},
                             {"kind", token_reviews.kind},
                             {"spec", {{"token", token}}}};
  auto answer = client_.create(token_reviews, "", review);
  if (!answer) return std::unexpected("TokenReview: " + answer.error().describe());
  const kube::Json status = answer->value("status", kube::Json::object());
  if (!status.value("authenticated", false)) return std::optional<ReviewedUser>{};
  ReviewedUser user = user_of(status.value("user", kube::Json::object()));
  if (user.name.empty()) return std::optional<ReviewedUser>{};
  return user;
}

std::expected<bool, std::string> ApiReviewer::review_access(const ReviewedUser& user,
                                                            std::string_view verb,
                                                            std::string_view path) {
  kube::Json spec = {{"user", user.name},
                     {"groups", user.groups},
                     {"nonResourceAttributes", {{"path", path}, {"verb", verb}}}};
  if (!user.uid.empty()) spec["uid"] = user.uid;
  if (!user.extra.empty()) spec["extra"] = user.extra;
  const kube::Json review = {
      {"apiVersion", access_reviews.api_version()}, {"kind", access_reviews.kind}, {"spec", spec}};
  auto answer = client_.create(access_reviews, "", review);
  if (!answer) return std::unexpected("SubjectAccessReview: " + answer.error().describe());
  const kube::Json status = answer->value("status", kube::Json::object());
  return status.value("allowed", false) && !status.value("denied", false);
}

}  // namespace respool::server
