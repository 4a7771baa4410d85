#include "reconcilers/catalog_source.hpp"

#include <fstream>
#include <sstream>

#include "operator/kube/yaml.hpp"
#include "operator/runtime/log.hpp"

namespace respool::reconcilers {

namespace {
std::expected<std::string, std::string> read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return std::unexpected("cannot read the catalog " + path.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

CatalogSource::CatalogSource(Key, std::filesystem::path path, runtime::Clock& clock)
    : path_(std::move(path)), clock_(clock) {}

CatalogSource::~CatalogSource() {
  stop();
}

std::expected<std::unique_ptr<CatalogSource>, std::string> CatalogSource::open(
    std::filesystem::path path, runtime::Clock& clock) {
  auto source = std::make_unique<CatalogSource>(Key{}, std::move(path), clock);
  auto text = read_text(source->path_);
  if (!text) return std::unexpected(text.error());
  auto json = kube::yaml_to_json(*text);
  if (!json) return std::unexpected(source->path_.string() + ": " + json.error());
  auto catalog = policy::parse_catalog(*json);
  if (!catalog) return std::unexpected(source->path_.string() + ": " + catalog.error());
  source->catalog_ = std::make_shared<const policy::Catalog>(std::move(*catalog));
  source->fingerprint_ = std::move(*text);
  return source;
}

std::shared_ptr<const policy::Catalog> CatalogSource::get() const {
  std::lock_guard lock(mu_);
  return catalog_;
}

bool CatalogSource::reload() {
  auto text = read_text(path_);
  if (!text) {
    runtime::log::warn("catalog", "cannot read the catalog; keeping the one in force",
                       {{"file", path_.string()}});
    return false;
  }
  {
    std::lock_guard lock(mu_);
    if (*text == fingerprint_) return false;
  }
  auto json = kube::yaml_to_json(*text);
  std::expected<policy::Catalog, std::string> catalog =
      json ? policy::parse_catalog(*json) : std::unexpected(json.error());
  if (catalog && validator_) {
    if (auto refused = validator_(*catalog)) catalog = std::unexpected(*refused);
  }
  if (!catalog) {
    runtime::log::error("catalog", "the changed catalog is invalid; keeping the one in force",
                        {{"file", path_.string()}, {"error", catalog.error()}});
    std::lock_guard lock(mu_);
    fingerprint_ = std::move(*text);  // report a bad file once, not on every check
    return false;
  }
  std::lock_guard lock(mu_);
  catalog_ = std::make_shared<const policy::Catalog>(std::move(*catalog));
  fingerprint_ = std::move(*text);
  runtime::log::info("catalog", "catalog reloaded", {{"file", path_.string()}});
  return true;
}

void CatalogSource::set_validator(
    std::function<std::optional<std::string>(const policy::Catalog&)> validator) {
  std::lock_guard lock(mu_);
  validator_ = std::move(validator);
}

void CatalogSource::watch(runtime::Duration period, std::function<void()> on_change) {
  thread_ = std::thread([this, period, on_change = std::move(on_change)] {
    std::unique_lock lock(mu_);
    while (!stopping_) {
      clock_.wait_for(cv_, lock, period, [this] { return stopping_; });
      if (stopping_) break;
      lock.unlock();
      bool changed = reload();
      if (changed && on_change) on_change();
      lock.lock();
    }
  });
}

void CatalogSource::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace respool::reconcilers
