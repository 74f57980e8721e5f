// Invariant checks: a broken invariant is a bug, so it aborts with file:line.
#pragma once

#include <cstdio>
#include <cstdlib>

#define DEDE_CHECK(cond)                                                                 \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "%s:%d: DEDE_CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)

#define DEDE_CHECK_MSG(cond, msg)                                                                 \
  do {                                                                                            \
    if (!(cond)) {                                                                                \
      std::fprintf(stderr, "%s:%d: DEDE_CHECK failed: %s: %s\n", __FILE__, __LINE__, #cond, msg); \
      std::abort();                                                                               \
    }                                                                                             \
  } while (0)
