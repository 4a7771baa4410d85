#pragma once
// Internal: Boost.Beast's HTTP parser and serializer. GCC 12 under -fsanitize=address reports a
// false "may be used uninitialized" inside Beast's basic_parser (boost::optional in
// content_length_unchecked); the warning is silenced for these headers only.

#if defined(__GNUC__) && !defined(__clang__)  // Clang has no -Wmaybe-uninitialized
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <boost/beast/http.hpp>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
