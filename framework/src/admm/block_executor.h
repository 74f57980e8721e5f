// Where ADMM blocks are solved: the one seam between the engine and the machines it runs on.
//
// Each half step hands one side's blocks (in the order they should start: biggest first) and a
// task. The task for block b reads only the consensus state of b's own variables and writes
// only b's values and those variables' consensus slots, so blocks may run anywhere, in any
// order, and the result does not depend on it.
//
// The local executor runs every block on the threads of the calling TBB arena with work
// stealing. The distributed one (mpi/mpi_block_executor.cpp, Open MPI) gives each process a
// fixed range of each side's blocks, balanced by their work: Run solves only the process's
// own blocks. Between the half steps of an ordinary iteration only the cut travels (Route:
// the values of the consensus pairs whose two sides live on different processes, along lists
// set up once); where a step needs every variable (the checks' objective, the repair, the
// allocation), MergeBits gives every process each value from its owner; where a step reads
// the whole state (Anderson, per-block penalty factors), Share brings every process the
// outputs of the others, so that it runs unchanged. Decisions that read a clock or a signal go
// through Agree, so every process takes them together.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dede::internal {

class BlockExecutor {
 public:
  // The output of the blocks of one side after a Run: `width(b)` doubles per block, written
  // by `pack(b, out)` on the block's owner and read by `unpack(b, in)` on every other process.
  struct Exchange {
    std::function<std::size_t(int)> width;
    std::function<void(int, double*)> pack;
    std::function<void(int, const double*)> unpack;
  };
  // What the exchanges cost this process since the executor was made.
  struct Traffic {
    std::uint64_t exchanges = 0;
    std::uint64_t bytes_sent = 0, bytes_received = 0;
    double seconds = 0;      // in Share and Agree, waiting included
    double mpi_seconds = 0;  // of which inside the MPI calls (transfer and waiting)
  };

  virtual ~BlockExecutor() = default;
  // Runs task(b) once for every b in `blocks` (blocks this process owns: see Owns) and
  // returns when all have finished.
  virtual void Run(const std::vector<int>& blocks, const std::function<void(int)>& task) = 0;
  virtual std::string name() const = 0;
  // Fixes which blocks of a side this process runs, given every block's work estimate (the
  // same on every process). The local executor runs them all.
  virtual void Partition(int /*side*/, const std::vector<double>& /*work*/) {}
  virtual bool Owns(int /*side*/, int /*block*/) const { return true; }
  // The process that runs a block of a side.
  virtual int Owner(int /*side*/, int /*block*/) const { return 0; }
  // After a Run on `side`: every block's output on every process. Nothing for one process.
  virtual void Share(int /*side*/, const Exchange& /*exchange*/) {}
  // The cut, set up once per problem: this process sends data[to[r][i]] to process r, and
  // writes what process r sends into data[from[r][i]] (to[r] here and from[me] there list
  // the same values in the same order). Empty lists for itself.
  virtual void SetRoute(std::vector<std::vector<std::uint32_t>> /*to*/,
                        std::vector<std::vector<std::uint32_t>> /*from*/) {}
  // One exchange along the route (backward: from `from` to `to`, the reverse direction),
  // reading and writing `data`. Nothing for one process.
  virtual void Route(double* /*data*/, bool /*backward*/) {}
  // The bitwise OR of `bits` over every process.
  virtual unsigned Agree(unsigned bits) { return bits; }
  // In place, the bitwise OR of every process's `bytes` bytes at `data`: where each value has
  // one owner that wrote it and every other process holds zero bits (or every process holds
  // the same bits), each process ends with the owner's value, bit for bit, without a layout
  // by block or a buffer of the whole. With to_root, only process 0 ends with the merged
  // bytes (the others' are left as they were). Nothing for one process.
  virtual void MergeBits(void* /*data*/, std::size_t /*bytes*/, bool /*to_root*/ = false) {}
  // Every process's `local` (all of the same length), in rank order, on every process.
  virtual std::vector<double> AllGather(const std::vector<double>& local) { return local; }
  virtual int rank() const { return 0; }
  virtual int processes() const { return 1; }
  virtual Traffic traffic() const { return {}; }
};

// Threads of the current TBB arena, one block per chunk, idle threads steal.
std::unique_ptr<BlockExecutor> MakeLocalBlockExecutor();

}  // namespace dede::internal
