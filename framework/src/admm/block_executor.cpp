#include "admm/block_executor.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace dede::internal {
namespace {

class LocalBlockExecutor final : public BlockExecutor {
 public:
  void Run(const std::vector<int>& blocks, const std::function<void(int)>& task) override {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, blocks.size(), 1),
                      [&](const tbb::blocked_range<std::size_t>& range) {
                        for (std::size_t k = range.begin(); k != range.end(); ++k) task(blocks[k]);
                      });
  }
  std::string name() const override { return "local (TBB)"; }
};

}  // namespace

std::unique_ptr<BlockExecutor> MakeLocalBlockExecutor() {
  return std::make_unique<LocalBlockExecutor>();
}

}  // namespace dede::internal
