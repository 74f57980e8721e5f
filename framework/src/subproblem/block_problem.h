// One block subproblem of the ADMM engine, in the form every block solver accepts:
//
//   minimize   sum_i ( q_i v_i^2 + c_i v_i + (p_i / 2) (v_i - t_i)^2 )
//            - sum_k w_k log(a_k' v + b_k)
//   subject to rows: a_j' v (<=, =, >=) rhs_j,   l_i <= v_i <= u_i,   v_i integral if flagged
//
// p_i is the ADMM penalty rho for variables that have a copy on the other side and 0 for
// locals; t_i is the consensus target. The engine rewrites c, p, t (and, after a parameter
// change, bounds, rhs, coefficients, q and w) in place between solves; the structure (which
// variables, rows, row sparsity, log terms) is fixed when the solver is created.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "dede/problem.h"

namespace dede::internal {

// Per-slot numbers of a block that are often the same for every slot (bounds, costs,
// curvature, penalty): one value while every slot holds it, a vector once one differs.
// Transport and link blocks keep five numbers instead of five arrays; the engine writes slots
// with set() and calls Compact() after a pass that may have made them equal again. "The same"
// is bitwise (0.0 and -0.0 differ), so reading a slot always gives the value written.
class SlotValues {
 public:
  // A writable slot (slots[i] = v, slots[i] += v) on a non-const SlotValues.
  class Ref {
   public:
    Ref(SlotValues* owner, std::size_t i) : owner_(owner), i_(i) {}
    Ref& operator=(double v) {
      owner_->set(i_, v);
      return *this;
    }
    Ref& operator=(const Ref& other) { return *this = double(other); }
    Ref& operator+=(double v) { return *this = double(*this) + v; }
    Ref& operator-=(double v) { return *this = double(*this) - v; }
    Ref& operator*=(double v) { return *this = double(*this) * v; }
    operator double() const { return std::as_const(*owner_)[i_]; }

   private:
    SlotValues* owner_;
    std::size_t i_;
  };
  class const_iterator {
   public:
    using value_type = double;
    using difference_type = std::ptrdiff_t;
    const_iterator(const SlotValues* owner, std::size_t i) : owner_(owner), i_(i) {}
    double operator*() const { return (*owner_)[i_]; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const const_iterator& o) const { return i_ == o.i_; }
    bool operator!=(const const_iterator& o) const { return i_ != o.i_; }

   private:
    const SlotValues* owner_;
    std::size_t i_;
  };

  SlotValues() = default;
  SlotValues(std::initializer_list<double> values) { *this = std::vector<double>(values); }
  SlotValues(const std::vector<double>& values) { *this = values; }  // NOLINT: implicit
  SlotValues(const SlotValues& other) { *this = other; }
  SlotValues(SlotValues&& other) noexcept { swap(other); }
  ~SlotValues() { Release(); }
  SlotValues& operator=(const SlotValues& other) {
    if (this == &other) return *this;
    Release();
    n_ = other.n_;
    value_ = other.value_;
    if (other.data_ != nullptr) {
      Reserve(n_);
      std::copy(other.data_, other.data_ + n_, data_);
    }
    return *this;
  }
  SlotValues& operator=(SlotValues&& other) noexcept {
    SlotValues moved(std::move(other));
    swap(moved);
    return *this;
  }
  SlotValues& operator=(std::initializer_list<double> values) {
    return *this = std::vector<double>(values);
  }
  SlotValues& operator=(const std::vector<double>& values) {
    Release();
    n_ = Count(values.size());
    if (n_ > 0) {
      Reserve(n_);
      std::copy(values.begin(), values.end(), data_);
    }
    Compact();
    return *this;
  }

  std::size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  // Every slot holds value().
  bool uniform() const { return data_ == nullptr; }
  double value() const { return value_; }
  // The slots, when !uniform().
  const double* data() const { return data_; }
  double operator[](std::size_t i) const { return data_ == nullptr ? value_ : data_[i]; }
  Ref operator[](std::size_t i) { return Ref(this, i); }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, n_}; }
  // For loops: slot i is data[i * stride], the stride 0 while uniform (no branch per slot).
  struct View {
    const double* data;
    std::size_t stride;
    double operator[](std::size_t i) const { return data[i * stride]; }
  };
  View view() const { return data_ == nullptr ? View{&value_, 0} : View{data_, 1}; }
  // One value per slot from now on (until assign or Compact), writable in place.
  double* Materialize() {
    if (data_ == nullptr) Spread();
    return data_;
  }
  std::vector<double> ToVector() const {
    return data_ == nullptr ? std::vector<double>(n_, value_)
                            : std::vector<double>(data_, data_ + n_);
  }

  void assign(std::size_t n, double v) {
    Release();
    n_ = Count(n);
    value_ = v;
  }
  void set(std::size_t i, double v) {
    if (data_ == nullptr) {
      if (Same(v, value_)) return;
      Spread();
    }
    data_[i] = v;
  }
  void resize(std::size_t n) {
    if (data_ == nullptr && (n <= n_ || n_ == 0 || Same(value_, 0.0))) {
      if (n_ == 0) value_ = 0.0;
      n_ = Count(n);
      return;
    }
    if (data_ == nullptr) Spread();
    if (n > cap_) Reserve(std::max<std::size_t>(n, 2 * static_cast<std::size_t>(cap_)));
    if (n > n_) std::fill(data_ + n_, data_ + n, 0.0);
    n_ = Count(n);
    if (n_ == 0) Release();
  }
  void push_back(double v) {
    resize(n_ + 1);
    set(n_ - 1, v);
  }
  void pop_back() { resize(n_ - 1); }
  // Back to one value if every slot holds the same.
  void Compact() {
    if (data_ == nullptr) return;
    for (std::uint32_t i = 1; i < n_; ++i)
      if (!Same(data_[i], data_[0])) return;
    if (n_ > 0) value_ = data_[0];
    Release();
  }
  // The values (one per slot, a uniform value spread) move to `storage` (size() slots, owned
  // by the caller, which keeps it for as long as this object holds it): a side's blocks then
  // read theirs as one array. Writes go there; Compact, anything that needs more room, and
  // copies leave it.
  void Place(double* storage) {
    if (data_ == storage) return;
    if (data_ != nullptr) {
      std::copy(data_, data_ + n_, storage);
    } else {
      std::fill(storage, storage + n_, value_);
    }
    Release();
    data_ = storage;  // cap_ 0: not ours
  }
  bool placed() const { return data_ != nullptr && cap_ == 0; }
  // The values back into storage of its own (before the placed storage goes away).
  void Unplace() {
    if (placed()) Reserve(n_);
  }
  void swap(SlotValues& other) noexcept {
    std::swap(n_, other.n_);
    std::swap(cap_, other.cap_);
    std::swap(value_, other.value_);
    std::swap(data_, other.data_);
  }

 private:
  static bool Same(double a, double b) {
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
  }
  static std::uint32_t Count(std::size_t n) {
    if (n > std::numeric_limits<std::uint32_t>::max()) std::abort();  // 4 G slots in a block
    return static_cast<std::uint32_t>(n);
  }
  // Room for n slots, keeping the first n_ (exact: a block's arrays are sized once; at least
  // one, since cap_ 0 with data marks storage placed from outside).
  void Reserve(std::size_t n) {
    n = std::max<std::size_t>(n, 1);
    double* grown = new double[n];
    if (data_ != nullptr) std::copy(data_, data_ + std::min<std::size_t>(n_, n), grown);
    Release();
    data_ = grown;
    cap_ = Count(n);
  }
  // One value per slot, each value_.
  void Spread() {
    Reserve(n_);
    std::fill(data_, data_ + n_, value_);
  }
  void Release() {
    if (cap_ != 0) delete[] data_;
    data_ = nullptr;
    cap_ = 0;
  }
  // 24 bytes: a block has eight of these (bounds, costs, penalty, row coefficients, images).
  double value_ = 0.0;
  double* data_ = nullptr;  // n_ values (room for cap_) once one differs; null while uniform
  std::uint32_t n_ = 0, cap_ = 0;
};

struct BlockRow {
  std::vector<int> index;  // local variable indices, distinct
  SlotValues coef;         // one value when all are the same (a capacity row: all 1)
  Sense sense = Sense::kLessEqual;
  double rhs = 0.0;
};

struct BlockLog {
  std::vector<int> index;
  std::vector<double> coef;
  double constant = 0.0;
  double weight = 1.0;  // >= 0: the block minimizes -weight * log(a'v + b)
};

// Slots defined by another slot of the block: v[slot[k]] = offset[k] + scale[k] * v[base[k]]
// (an allocation entry declared the image of a local: Problem::AddEntry with an EntryImage).
// An image slot appears in no row and no log term, and a base is no image. The image_row and
// aggregate solvers take images (CreateBlockSolver picks one of them whenever a block has
// any): they fold each into its base with the two helpers below.
struct BlockImages {
  std::vector<int> slot, base;
  SlotValues offset, scale;  // one value each while all are the same (0 and 1: a path model)
  std::size_t size() const { return slot.size(); }
  bool empty() const { return slot.empty(); }
  void push_back(int s, int b, double off, double sc) {
    slot.push_back(s);
    base.push_back(b);
    offset.push_back(off);
    scale.push_back(sc);
  }
};

// Folding an image v = offset + scale * w (scale != 0) into its base w: the interval of w that
// keeps v within [lo, hi], and the linear term the image's own curvature h and linear term g
// add to w's (its curvature adds h scale^2).
inline std::pair<double, double> ImageBaseInterval(double lo,
                                                   double hi,
                                                   double offset,
                                                   double scale) {
  double from = (lo - offset) / scale, to = (hi - offset) / scale;
  if (scale < 0.0) std::swap(from, to);
  return {from, to};
}
inline double ImageBaseLinear(double h, double g, double offset, double scale) {
  return scale * (h * offset + g);
}

struct BlockProblem {
  int num_vars() const { return static_cast<int>(lower.size()); }
  // Prefetches the per-slot arrays a solve reads (see BlockSolver::Prefetch): the first line
  // of each, and the whole of a block with images (a pair block: its solver reads every slot
  // of them at once, about 1 kB on Kdl).
  void Prefetch() const {
    const std::size_t bytes = images.empty() ? 64 : 1024;
    const auto fetch = [bytes](const void* data, std::size_t size) {
      const char* p = static_cast<const char*>(data);
      for (std::size_t off = 0; off < std::min(size, bytes); off += 64) __builtin_prefetch(p + off);
    };
    for (const SlotValues* s : {&lower, &upper, &linear, &quadratic, &prox_weight})
      if (!s->uniform()) fetch(s->data(), s->size() * sizeof(double));
    if (!prox_target.empty()) __builtin_prefetch(prox_target.data());
    if (!images.empty()) {
      fetch(images.slot.data(), images.size() * sizeof(int));
      fetch(images.base.data(), images.size() * sizeof(int));
    }
    if (!rows.empty()) {
      __builtin_prefetch(rows.data());
      __builtin_prefetch(rows[0].index.data());
    }
  }

  SlotValues lower, upper;
  std::vector<std::uint8_t> integral;
  SlotValues linear;                // c_i
  SlotValues quadratic;             // q_i >= 0
  SlotValues prox_weight;           // p_i >= 0
  std::vector<double> prox_target;  // t_i
  std::vector<BlockRow> rows;
  std::vector<BlockLog> logs;
  BlockImages images;
  // Bumped by the engine whenever anything but linear / prox_target changed (bounds, rhs,
  // coefficients, quadratic, prox_weight, log weights), so solvers can skip re-loading them.
  std::uint64_t revision = 0;
};

enum class BlockStatus : std::uint8_t { kOptimal, kInfeasible, kUnbounded, kNodeLimit, kError };
const char* BlockStatusName(BlockStatus s);

struct BlockSolverOptions {
  double tolerance = 1e-10;  // root finding / KKT tolerance of the fast solvers
  int node_limit = 20000;    // branch and bound
  bool force_clp = false;    // tests and benchmarks: bypass the fast paths
  // Branch and bound stops exploring when steady_clock's time_since_epoch() in nanoseconds
  // passes *deadline_ns (0: no deadline), returning kNodeLimit with the best integral point
  // found (or *v unchanged if none). Owned by the caller, who may move it between solves.
  const std::atomic<std::int64_t>* deadline_ns = nullptr;
};

class BlockSolver {
 public:
  virtual ~BlockSolver() = default;
  // Solves `problem` (same structure as at creation). *v holds the previous solution on entry
  // (a warm start; size num_vars) and the new one on exit. Not thread-safe per instance;
  // distinct instances may run concurrently.
  virtual BlockStatus Solve(const BlockProblem& problem, std::vector<double>* v) = 0;
  // The engine's path for a solver that takes its targets from, and writes its solution into,
  // the caller's arrays: problem.prox_target is not read (it may be empty), t[0 .. num_vars)
  // are the targets and v[0 .. num_vars) receives the solution (partly written when the status
  // is not kOptimal; its content on entry is not used). Only where solves_in_place().
  virtual bool solves_in_place() const { return false; }
  // A hint that Solve runs soon: software prefetches of the arrays it reads first (the engine
  // calls it one block ahead, so that a half step over thousands of small blocks does not
  // wait on each block's scattered heap data in turn). No effect on results.
  virtual void Prefetch() const {}
  // Prefetches `bytes` from `object` (a hint: an address past the object never faults).
  static void PrefetchObject(const void* object, std::size_t bytes = 512) {
    const char* p = static_cast<const char*>(object);
    for (std::size_t off = 0; off < bytes; off += 64) __builtin_prefetch(p + off);
  }
  virtual BlockStatus SolveInPlace(const BlockProblem& problem, const double* t, double* v);
  // A solver that solves in place and reads its targets only through the linear term
  // g_i = linear_i - prox_weight_i t_i (SeparableCore::LoadLinear's arithmetic) may take g from
  // the caller instead: the engine forms it in the pass that forms the targets, one pass over
  // the block instead of two, with the same bits. g[0 .. num_vars) is only read, until the
  // call returns; v as in SolveInPlace. Only where takes_linear().
  virtual bool takes_linear() const { return false; }
  virtual BlockStatus SolveFromLinear(const BlockProblem& problem, const double* g, double* v);
  // "clip", "one_row", "log", "clp", "bnb(clp)", ... for summaries and benchmarks.
  virtual std::string name() const = 0;
  // Human-readable reason for the last non-optimal status.
  virtual std::string last_error() const { return {}; }
};

// Picks the fastest exact solver for the block's structure:
//  * any integral variable -> branch and bound over the continuous solver below;
//  * declared images (BlockProblem::images) -> image_row when the folded block is at most one
//    row over strictly convex bases, else aggregate over whichever solver below the block
//    with its images (and any eliminable rows) folded gets, Clp included;
//  * no rows, separable terms -> closed form per variable (clip);
//  * one row, every variable strictly convex (q_i + p_i/2 > 0 or a one-variable log) ->
//    one-dimensional search on the row's multiplier;
//  * one multi-variable log term and at most one row -> nested root finding;
//  * two rows, every variable of both strictly convex -> Newton on the second row's
//    multiplier over the one-row search (two_row);
//  * otherwise, if some variables are affine images of a single other variable (their only
//    row is a two-variable equality) and folding them leaves a block of the shapes above ->
//    that solver on the reduced block (aggregate);
//  * otherwise Clp (QP), kept alive across solves.
// Returns nullptr and sets *error when no solver supports the structure.
std::unique_ptr<BlockSolver> CreateBlockSolver(const BlockProblem& structure,
                                               const BlockSolverOptions& options,
                                               std::string* error);

}  // namespace dede::internal
