// Where ADMM blocks are solved: the one seam between the engine and the machines it runs on.
//
// Each half step hands one side's blocks (in the order they should start: biggest first) and a
// task. The task for block b reads only the consensus state of b's own variables and writes
// only b's values and those variables' consensus slots, so blocks may run anywhere, in any
// order, and the result does not depend on it. The local executor runs them on the threads of
// the calling TBB arena with work stealing. A distributed executor (Open MPI) keeps the same
// contract: each rank owns a fixed subset of blocks with their solvers; per half step it
// receives the consensus values its blocks read, runs the same tasks, and sends back the slots
// they wrote; the engine's residual reductions stay on the root.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dede::internal {

class BlockExecutor {
 public:
  virtual ~BlockExecutor() = default;
  // Runs task(b) once for every b in `blocks` and returns when all have finished.
  virtual void Run(const std::vector<int>& blocks, const std::function<void(int)>& task) = 0;
  virtual std::string name() const = 0;
};

// Threads of the current TBB arena, one block per chunk, idle threads steal.
std::unique_ptr<BlockExecutor> MakeLocalBlockExecutor();

}  // namespace dede::internal
