// The distributed block executor (world.h: MakeBlockExecutor).
//
// Each process owns a contiguous range of each side's blocks, balanced by their work, and
// runs them on its own TBB threads. Three exchanges:
//   Route  the cut: the values of the pairs whose two sides live on different processes,
//          along lists the engine sets up once (MPI_Alltoallv; every process sends each other
//          one exactly the values it reads).
//   Share  the whole state: each block's output (block_executor.h: Exchange) is packed by its
//          owner at its place in one buffer, laid out by block index (so the processes'
//          ranges follow each other), gathered by MPI_Allgatherv, and unpacked by everyone
//          else. The state every process holds is then bit for bit the single-process one.
//   MergeBits  every variable from its owner, in place: the others hold zero bits there, and
//          an MPI_Allreduce with MPI_BOR leaves the owner's bits everywhere (no buffer of the
//          whole, no per-block layout, so a process needs no other process's blocks).
// Either way each value a block reads is the one its single-process run reads, so the
// residuals, the penalty updates and the allocation do not depend on the number of processes.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "mpi/world.h"

#if DEDE_WITH_MPI
#include <mpi.h>
#endif

namespace dede::internal::mpi {

#if DEDE_WITH_MPI
namespace {

class MpiBlockExecutor final : public BlockExecutor {
 public:
  explicit MpiBlockExecutor(double timeout_seconds) : timeout_seconds_(timeout_seconds) {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    watchdog_ = std::jthread([this](std::stop_token stop) { Watch(stop); });
  }
  ~MpiBlockExecutor() override {
    watchdog_.request_stop();
    watchdog_.join();
    MPI_Comm_free(&comm_);
  }

  void Run(const std::vector<int>& blocks, const std::function<void(int)>& task) override {
    local_->Run(blocks, task);
  }
  std::string name() const override {
    return "Open MPI (" + std::to_string(size_) + " processes) x " + local_->name();
  }
  int rank() const override { return rank_; }
  int processes() const override { return size_; }
  Traffic traffic() const override { return traffic_; }

  // Process r owns the blocks whose work ends in (r W / N, (r + 1) W / N] of the side's
  // running total W: contiguous ranges of about equal work.
  void Partition(int side, const std::vector<double>& work) override {
    std::vector<int>& first = first_[side];
    const int nb = static_cast<int>(work.size());
    first.assign(static_cast<std::size_t>(size_) + 1, nb);
    first[0] = 0;
    double total = 0;
    for (double w : work) total += std::max(w, 0.0) + 1.0;  // + 1: empty blocks count too
    double sum = 0;
    int r = 1;
    for (int b = 0; b < nb && r < size_; ++b) {
      while (r < size_ && sum >= total * r / size_) first[static_cast<std::size_t>(r++)] = b;
      sum += std::max(work[static_cast<std::size_t>(b)], 0.0) + 1.0;
    }
  }
  bool Owns(int side, int block) const override {
    const std::vector<int>& first = first_[side];
    return first.empty() || (block >= first[static_cast<std::size_t>(rank_)] &&
                             block < first[static_cast<std::size_t>(rank_) + 1]);
  }

  int Owner(int side, int block) const override {
    const std::vector<int>& first = first_[side];
    if (first.empty()) return 0;
    return static_cast<int>(std::upper_bound(first.begin(), first.end() - 1, block) -
                            first.begin()) -
           1;
  }

  void SetRoute(std::vector<std::vector<std::uint32_t>> to,
                std::vector<std::vector<std::uint32_t>> from) override {
    route_[0].Set(to, size_);
    route_[1].Set(from, size_);
  }

  void Route(double* data, bool backward) override {
    const auto start = std::chrono::steady_clock::now();
    const Lists& out = route_[backward ? 1 : 0];
    const Lists& in = route_[backward ? 0 : 1];
    route_send_.resize(out.positions.size());
    route_receive_.resize(in.positions.size());
    ForRange(0, static_cast<int>(out.positions.size()), [&](int i) {
      route_send_[static_cast<std::size_t>(i)] = data[out.positions[static_cast<std::size_t>(i)]];
    });
    {
      const auto mpi_start = std::chrono::steady_clock::now();
      const Waiting waiting(this);
      MPI_Alltoallv(route_send_.data(),
                    out.counts.data(),
                    out.displs.data(),
                    MPI_DOUBLE,
                    route_receive_.data(),
                    in.counts.data(),
                    in.displs.data(),
                    MPI_DOUBLE,
                    comm_);
      traffic_.mpi_seconds += SecondsSince(mpi_start);
    }
    ForRange(0, static_cast<int>(in.positions.size()), [&](int i) {
      data[in.positions[static_cast<std::size_t>(i)]] = route_receive_[static_cast<std::size_t>(i)];
    });
    ++traffic_.exchanges;
    traffic_.bytes_sent += out.positions.size() * sizeof(double);
    traffic_.bytes_received += in.positions.size() * sizeof(double);
    traffic_.seconds += SecondsSince(start);
  }

  void Share(int side, const Exchange& exchange) override {
    const auto start = std::chrono::steady_clock::now();
    const std::vector<int>& first = first_[side];
    const int nb = first.back();
    offset_.resize(static_cast<std::size_t>(nb) + 1);
    offset_[0] = 0;
    for (int b = 0; b < nb; ++b) offset_[b + 1] = offset_[b] + exchange.width(b);
    if (offset_[nb] > static_cast<std::size_t>(INT_MAX)) {
      throw std::runtime_error("the distributed exchange of " + std::to_string(offset_[nb]) +
                               " values exceeds MPI's count limit (2^31 - 1)");
    }
    counts_.resize(static_cast<std::size_t>(size_));
    displs_.resize(static_cast<std::size_t>(size_));
    for (int r = 0; r < size_; ++r) {
      displs_[r] = static_cast<int>(offset_[first[r]]);
      counts_[r] = static_cast<int>(offset_[first[r + 1]] - offset_[first[r]]);
    }
    buffer_.resize(offset_[nb]);
    const int own_first = first[rank_], own_last = first[rank_ + 1];
    ForRange(own_first, own_last, [&](int b) { exchange.pack(b, buffer_.data() + offset_[b]); });
    {
      const auto mpi_start = std::chrono::steady_clock::now();
      const Waiting waiting(this);
      MPI_Allgatherv(MPI_IN_PLACE,
                     0,
                     MPI_DATATYPE_NULL,
                     buffer_.data(),
                     counts_.data(),
                     displs_.data(),
                     MPI_DOUBLE,
                     comm_);
      traffic_.mpi_seconds += SecondsSince(mpi_start);
    }
    ForRange(0, nb, [&](int b) {
      if (b < own_first || b >= own_last) exchange.unpack(b, buffer_.data() + offset_[b]);
    });
    ++traffic_.exchanges;
    const std::uint64_t own = static_cast<std::uint64_t>(counts_[rank_]) * sizeof(double);
    traffic_.bytes_sent += own * static_cast<std::uint64_t>(size_ - 1);
    traffic_.bytes_received += offset_[nb] * sizeof(double) - own;
    traffic_.seconds += SecondsSince(start);
  }

  unsigned Agree(unsigned bits) override {
    const auto start = std::chrono::steady_clock::now();
    unsigned out = 0;
    {
      const Waiting waiting(this);
      MPI_Allreduce(&bits, &out, 1, MPI_UNSIGNED, MPI_BOR, comm_);
    }
    const double seconds = SecondsSince(start);
    traffic_.seconds += seconds;
    traffic_.mpi_seconds += seconds;
    return out;
  }

  void MergeBits(void* data, std::size_t bytes, bool to_root) override {
    const auto start = std::chrono::steady_clock::now();
    // In pieces of 4 MiB, as 64-bit words where they fit: Open MPI's reduction algorithms
    // take a scratch buffer the size of what they reduce (a whole Kdl allocation, 12 MB per
    // process, in one call), and MPI counts are int.
    constexpr std::size_t kPiece = std::size_t{4} << 20;
    auto* at = static_cast<unsigned char*>(data);
    for (std::size_t done = 0; done < bytes;) {
      const std::size_t n = std::min(kPiece, bytes - done);
      const bool words = n % sizeof(std::uint64_t) == 0;
      {
        const Waiting waiting(this);
        const int count = static_cast<int>(words ? n / sizeof(std::uint64_t) : n);
        const MPI_Datatype type = words ? MPI_UINT64_T : MPI_BYTE;
        if (!to_root) {
          MPI_Allreduce(MPI_IN_PLACE, at + done, count, type, MPI_BOR, comm_);
        } else if (rank_ == 0) {
          MPI_Reduce(MPI_IN_PLACE, at + done, count, type, MPI_BOR, 0, comm_);
        } else {
          MPI_Reduce(at + done, nullptr, count, type, MPI_BOR, 0, comm_);
        }
      }
      done += n;
    }
    ++traffic_.exchanges;
    // What a bandwidth-optimal reduction sends and receives per process (Open MPI picks its
    // own algorithm): 2 (N - 1) / N of the data each way for all, (N - 1) / N to the root.
    const std::uint64_t moved = static_cast<std::uint64_t>(bytes) * (to_root ? 1 : 2) *
                                static_cast<std::uint64_t>(size_ - 1) /
                                static_cast<std::uint64_t>(size_);
    traffic_.bytes_sent += moved;
    traffic_.bytes_received += moved;
    // Nothing but the MPI calls: all of it is time in MPI.
    const double seconds = SecondsSince(start);
    traffic_.seconds += seconds;
    traffic_.mpi_seconds += seconds;
  }

  std::vector<double> AllGather(const std::vector<double>& local) override {
    std::vector<double> all(local.size() * static_cast<std::size_t>(size_));
    const Waiting waiting(this);
    MPI_Allgather(local.data(),
                  static_cast<int>(local.size()),
                  MPI_DOUBLE,
                  all.data(),
                  static_cast<int>(local.size()),
                  MPI_DOUBLE,
                  comm_);
    return all;
  }

 private:
  // The watchdog: an exchange that waits longer than the timeout means a process of the
  // launch hangs (a dead one makes mpirun end the launch by itself). This process then exits
  // at once with code 3, and mpirun ends every other process.
  static double SecondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  static std::int64_t NowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  struct Waiting {
    explicit Waiting(MpiBlockExecutor* e) : executor(e) { e->waiting_since_.store(NowNs()); }
    ~Waiting() { executor->waiting_since_.store(0); }
    MpiBlockExecutor* executor;
  };
  void Watch(std::stop_token stop) {
    while (!stop.stop_requested()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      const std::int64_t since = waiting_since_.load();
      if (since == 0 || static_cast<double>(NowNs() - since) * 1e-9 <= timeout_seconds_) continue;
      ExitHung("the others in an exchange of the ADMM engine", timeout_seconds_);
    }
  }

  // One direction of the route: every process's positions, concatenated in rank order.
  struct Lists {
    std::vector<std::uint32_t> positions;
    std::vector<int> counts, displs;
    void Set(const std::vector<std::vector<std::uint32_t>>& by_rank, int size) {
      counts.assign(static_cast<std::size_t>(size), 0);
      displs.assign(static_cast<std::size_t>(size), 0);
      positions.clear();
      for (int r = 0; r < size && r < static_cast<int>(by_rank.size()); ++r) {
        const std::vector<std::uint32_t>& list = by_rank[static_cast<std::size_t>(r)];
        if (positions.size() + list.size() > static_cast<std::size_t>(INT_MAX)) {
          throw std::runtime_error("the distributed route's " +
                                   std::to_string(positions.size() + list.size()) +
                                   " values exceed MPI's count limit (2^31 - 1)");
        }
        displs[static_cast<std::size_t>(r)] = static_cast<int>(positions.size());
        counts[static_cast<std::size_t>(r)] = static_cast<int>(list.size());
        positions.insert(positions.end(), list.begin(), list.end());
      }
    }
  };

  template <typename F>
  static void ForRange(int begin, int end, F&& f) {
    tbb::parallel_for(tbb::blocked_range<int>(begin, end, 256),
                      [&](const tbb::blocked_range<int>& range) {
                        for (int b = range.begin(); b != range.end(); ++b) f(b);
                      });
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  std::unique_ptr<BlockExecutor> local_ = MakeLocalBlockExecutor();
  std::vector<int> first_[2];  // per side: process r owns [first[r], first[r + 1])
  std::vector<std::size_t> offset_;
  std::vector<int> counts_, displs_;
  std::vector<double> buffer_;
  Lists route_[2];  // what this process sends (0) and receives (1) on a forward Route
  std::vector<double> route_send_, route_receive_;
  Traffic traffic_;
  double timeout_seconds_;
  std::atomic<std::int64_t> waiting_since_{0};  // steady ns when an exchange began, 0: none
  std::jthread watchdog_;
};

}  // namespace

std::unique_ptr<BlockExecutor> MakeBlockExecutor() {
  if (Size() <= 1) return nullptr;
  return std::make_unique<MpiBlockExecutor>(ExchangeTimeoutSeconds());
}

#else

std::unique_ptr<BlockExecutor> MakeBlockExecutor() { return nullptr; }

#endif

}  // namespace dede::internal::mpi
