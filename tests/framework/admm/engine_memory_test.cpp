// What the ADMM engine holds per allocation entry, and that building it never holds much more
// than that (issue 18: the set-up's peak once sat 30-40 bytes an entry above the iterations'
// state). This binary replaces the global operator new and delete to count its heap, and is
// its own executable so that no other test pays for the counting. Allocations made with
// malloc directly (inside Clp) are not counted; the engine's are all through new.
#include <gtest/gtest.h>
#include <malloc.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>

#include "dede/host_solvers.h"
#include "dede/solver.h"
#include "synthetic.h"

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define DEDE_COUNT_HEAP 1
#endif

namespace {

std::atomic<std::int64_t> g_current{0};
std::atomic<std::int64_t> g_peak{0};

#ifdef DEDE_COUNT_HEAP
void Count(std::int64_t delta) {
  const std::int64_t now = g_current.fetch_add(delta, std::memory_order_relaxed) + delta;
  std::int64_t peak = g_peak.load(std::memory_order_relaxed);
  while (now > peak && !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

void* Allocate(std::size_t n, std::size_t alignment) {
  void* p = alignment <= alignof(std::max_align_t)
                ? std::malloc(n == 0 ? 1 : n)
                : std::aligned_alloc(alignment, (n + alignment - 1) / alignment * alignment);
  if (p == nullptr) throw std::bad_alloc();
  Count(static_cast<std::int64_t>(malloc_usable_size(p)));
  return p;
}

void Release(void* p) {
  if (p == nullptr) return;
  Count(-static_cast<std::int64_t>(malloc_usable_size(p)));
  std::free(p);
}
#endif

}  // namespace

#ifdef DEDE_COUNT_HEAP
void* operator new(std::size_t n) { return Allocate(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) {
  return Allocate(n, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept { Release(p); }
void operator delete(void* p, std::size_t) noexcept { Release(p); }
void operator delete(void* p, std::align_val_t) noexcept { Release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { Release(p); }
#endif

namespace dede {
namespace {

// A congested transport LP of 100,000 entries (1,000 resources x 1,000 demands, 100 resources
// a demand): the engine holds at most 100 bytes an entry (95 here: z, u, x and the target 32,
// the slots 16, the rows' index 8, the entries' costs on the resource side 8 (the demand side
// holds none: AdmmOptions::entry_cost_side), the pair's position 4, the 2,000 blocks' objects
// about 20; x and the costs' array counted since they are allocated through operator new), and
// neither building it nor solving holds more than 8 bytes an entry above what it holds after
// (0 here; the entries' pairs alone once added 16).
TEST(EngineMemory, TransportEntriesCostAtMost100BytesWithNoSetUpPeakAboveThem) {
#ifndef DEDE_COUNT_HEAP
  GTEST_SKIP() << "the sanitizers' allocators replace operator new";
#endif
  tools::SyntheticSpec spec;
  spec.resources = 1000;
  spec.demands = 1000;
  spec.entries_per_demand = 100;
  const auto problem = tools::MakeTransportLp(spec);
  const double entries = static_cast<double>(problem->num_variables());
  ASSERT_EQ(entries, 100000.0);
  AdmmOptions options;
  options.num_threads = 1;
  options.max_iterations = 20;
  options.check_termination_every = 20;
  options.rho_update = RhoUpdate::kFixed;
  options.repair = false;
  const std::int64_t base = g_current.load();
  g_peak.store(base);
  AdmmSolver solver(*problem, options);
  const double built = static_cast<double>(g_current.load() - base);
  const double build_peak = static_cast<double>(g_peak.load() - base);
  Allocation allocation;
  SolveSummary summary;
  solver.Solve(&allocation, &summary);
  ASSERT_EQ(summary.iterations, 20) << summary.message;
  // The solve adds the trace's buffer, which becomes the allocation (8 bytes an entry).
  const double solved = static_cast<double>(g_current.load() - base);
  const double solve_peak = static_cast<double>(g_peak.load() - base);
  std::printf("engine: %.1f bytes an entry built, set-up peak %.1f above, solve peak %.1f\n",
              built / entries,
              (build_peak - built) / entries,
              (solve_peak - solved) / entries);
  EXPECT_GT(built / entries, 64.0);  // the count sees the engine at all
  EXPECT_LE(built / entries, 100.0);
  EXPECT_LE((build_peak - built) / entries, 8.0);
  EXPECT_LE((solve_peak - solved) / entries, 8.0);
}

}  // namespace
}  // namespace dede
