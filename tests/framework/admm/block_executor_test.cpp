#include "admm/block_executor.h"

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <memory>
#include <numeric>
#include <vector>

namespace dede::internal {
namespace {

TEST(LocalBlockExecutor, RunsEveryBlockExactlyOnceInsideTheCallersArena) {
  std::unique_ptr<BlockExecutor> executor = MakeLocalBlockExecutor();
  std::vector<int> blocks(20000);
  std::iota(blocks.rbegin(), blocks.rend(), 0);  // any order: the engine passes biggest first
  for (int threads : {1, 2}) {
    std::vector<std::atomic<int>> runs(blocks.size());
    std::atomic<int> max_concurrency{0}, active{0};
    tbb::task_arena arena(threads);
    arena.execute([&] {
      executor->Run(blocks, [&](int b) {
        const int now = ++active;
        int seen = max_concurrency.load();
        while (now > seen && !max_concurrency.compare_exchange_weak(seen, now)) {
        }
        ++runs[b];
        --active;
      });
    });
    for (std::size_t b = 0; b < runs.size(); ++b) ASSERT_EQ(runs[b].load(), 1) << "block " << b;
    EXPECT_LE(max_concurrency.load(), threads) << "the executor left the caller's arena";
  }
  executor->Run({}, [](int) { FAIL() << "no block to run"; });
}

}  // namespace
}  // namespace dede::internal
