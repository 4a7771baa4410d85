#pragma once
// <regex>, without GCC 12's false -Wmaybe-uninitialized inside std::function that its
// instantiations trigger under -fsanitize (GCC bug 105562).

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <regex>
#pragma GCC diagnostic pop
