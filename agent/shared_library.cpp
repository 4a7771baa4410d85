#include "agent/shared_library.hpp"

#include <dlfcn.h>

namespace respool::agent {

std::expected<std::shared_ptr<SharedLibrary>, std::string> SharedLibrary::open(
    const std::string& path) {
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    return std::unexpected(why ? std::string(why) : path + ": cannot be loaded");
  }
  return std::shared_ptr<SharedLibrary>(new SharedLibrary(handle, path));
}

SharedLibrary::~SharedLibrary() {
  dlclose(handle_);
}

void* SharedLibrary::raw_symbol(const char* name) const {
  return dlsym(handle_, name);
}

}  // namespace respool::agent
