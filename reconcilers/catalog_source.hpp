#pragma once
// The catalog file (--catalog), read at start and again whenever it changes (a ConfigMap
// mounted in a pod is updated in place by the kubelet). A changed file that does not parse is
// refused: the last good catalog stays in force and the error is logged.

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "operator/runtime/clock.hpp"
#include "reconcilers/policy/catalog.hpp"

namespace respool::reconcilers {

class CatalogSource {
  // Made only by the static factory: the constructor is public for std::make_unique, and only
  // this class can make the Key it takes.
  struct Key {
    explicit Key() = default;
  };

 public:
  CatalogSource(Key, std::filesystem::path path, runtime::Clock& clock);
  // Reads the file now; fails with a message naming the file and the field.
  static std::expected<std::unique_ptr<CatalogSource>, std::string> open(std::filesystem::path path,
                                                                         runtime::Clock& clock);
  ~CatalogSource();

  // The catalog in force (an immutable snapshot).
  std::shared_ptr<const policy::Catalog> get() const;

  // Checks the file every `period`; calls `on_change` after a good reload.
  void watch(runtime::Duration period, std::function<void()> on_change);
  void stop();
  // Reads the file again if it changed; true when a new catalog is in force.
  bool reload();
  // A further check a new catalog must pass (the operator's own limits); a message refuses it.
  void set_validator(std::function<std::optional<std::string>(const policy::Catalog&)> validator);

 private:
  std::expected<std::shared_ptr<const policy::Catalog>, std::string> read() const;

  std::filesystem::path path_;
  runtime::Clock& clock_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::shared_ptr<const policy::Catalog> catalog_;
  std::string fingerprint_;
  std::function<std::optional<std::string>(const policy::Catalog&)>
      validator_;  // content of the file in force, to notice real changes
  std::thread thread_;
};

}  // namespace respool::reconcilers
