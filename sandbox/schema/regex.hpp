#pragma once
// <regex>, without GCC 12's false -Wmaybe-uninitialized inside std::function that its
// instantiations trigger under -fsanitize (GCC bug 105562).

#if defined(__GNUC__) && !defined(__clang__)  // Clang has no -Wmaybe-uninitialized
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <regex>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
