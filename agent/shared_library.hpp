#pragma once
// A library opened with dlopen at run time (NVML, DCMI: the node has them, the image does not),
// closed with the last reference. Symbols are looked up by name; a missing one is nullptr, so
// that the caller can report it and go on with the others.

#include <expected>
#include <memory>
#include <string>

namespace respool::agent {

class SharedLibrary {
 public:
  // dlopen(path, RTLD_NOW | RTLD_LOCAL); the error is dlerror()'s text.
  static std::expected<std::shared_ptr<SharedLibrary>, std::string> open(const std::string& path);
  ~SharedLibrary();
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;

  template <class Fn>
  Fn symbol(const char* name) const {
    return reinterpret_cast<Fn>(raw_symbol(name));
  }
  const std::string& path() const { return path_; }

 private:
  SharedLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  void* raw_symbol(const char* name) const;
  void* handle_;
  std::string path_;
};

}  // namespace respool::agent
