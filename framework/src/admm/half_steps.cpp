// One ADMM iteration's work: the x half step (resource blocks) with over-relaxation, the global
// scalar alpha in closed form, the optional Anderson step, and the z half step (demand blocks)
// with the dual update, all fused per pair.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "admm/admm_engine.h"

namespace dede::internal {

namespace {

// The address one cache line after *p, for a prefetch (which reads nothing).
const void* NextLine(const double* p) {
  return reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(p) + 64);
}

using engine::PairState;

// What the demand half step hands a block's solver per slot: the target t = xh + u, or, for a
// solver that takes its linear term from the caller (BlockSolver::takes_linear), that term
// g = c - p t with the block's cost c and penalty p, in SeparableCore::LoadLinear's
// arithmetic (the same bits), so that the solver does not make a second pass to form it.
struct SlotInput {
  bool linear = false;
  SlotValues::View c{nullptr, 0}, p{nullptr, 0};  // (when linear)

  double operator()(std::size_t slot, double t) const { return linear ? c[slot] - p[slot] * t : t; }
  // The same from slot `first` on, for a loop counting from 0 there.
  SlotInput From(std::size_t first) const {
    if (!linear) return *this;
    return {true, {c.data + first * c.stride, c.stride}, {p.data + first * p.stride, p.stride}};
  }
};

// The demand half step's loops for a block whose pairs are one range (Block::run_from):
// the same arithmetic as the general loops in HalfStep, without the per-slot pair lookup and
// the checks for locals and alpha copies (restrict: the stores do not alias the loads). Two
// pairs at a time in SSE2 registers (every x86-64 has them): each lane does the scalar loop's
// operations in its order, so the bits are the scalar loop's; the indexed loads and stores of
// x and the targets stay scalar. `two_arrays`: the targets are not written over x, so their
// line is fetched apart.
//   gather:  xh = a x + (1 - a) z and the block's input for the target xh + u
template <bool linear, bool two_arrays>
void GatherRun(std::size_t n,
               double a,
               const PairState* __restrict q,
               const std::uint32_t* __restrict pos,
               const double* __restrict flat_x,
               const double* __restrict flat_t,
               const SlotInput& in,
               double* __restrict xh,
               double* __restrict input) {
  const double* __restrict c = in.c.data;
  const double* __restrict p = in.p.data;
  const std::size_t cs = in.c.stride, ps = in.p.stride;
  const double b = 1 - a;
  // (The resource's next line: see the general loop in HalfStep.)
  const auto prefetch = [&](std::uint32_t j) {
    __builtin_prefetch(NextLine(flat_x + j));
    if constexpr (two_arrays) __builtin_prefetch(NextLine(flat_t + j), 1);
  };
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128d va = _mm_set1_pd(a), vb = _mm_set1_pd(b);
  for (; i + 2 <= n; i += 2) {
    const std::uint32_t j0 = pos[i], j1 = pos[i + 1];
    prefetch(j0);
    prefetch(j1);
    const __m128d x = _mm_set_pd(flat_x[j1], flat_x[j0]);
    const __m128d q0 = _mm_loadu_pd(&q[i].z), q1 = _mm_loadu_pd(&q[i + 1].z);  // (z, u) each
    const __m128d z = _mm_unpacklo_pd(q0, q1), u = _mm_unpackhi_pd(q0, q1);
    const __m128d h = _mm_add_pd(_mm_mul_pd(va, x), _mm_mul_pd(vb, z));
    _mm_storeu_pd(xh + i, h);
    const __m128d t = _mm_add_pd(h, u);
    if constexpr (linear) {
      const __m128d cc = _mm_set_pd(c[(i + 1) * cs], c[i * cs]);
      const __m128d pp = _mm_set_pd(p[(i + 1) * ps], p[i * ps]);
      _mm_storeu_pd(input + i, _mm_sub_pd(cc, _mm_mul_pd(pp, t)));
    } else {
      _mm_storeu_pd(input + i, t);
    }
  }
#endif
  for (; i < n; ++i) {
    const std::uint32_t j = pos[i];
    prefetch(j);
    xh[i] = a * flat_x[j] + b * q[i].z;
    const double t = xh[i] + q[i].u;
    if constexpr (linear) {
      input[i] = c[i * cs] - p[i * ps] * t;
    } else {
      input[i] = t;
    }
  }
}

//   scatter: z = v, u += xh - z, and the resource side's next target z - u
void ScatterRun(std::size_t n,
                const double* __restrict v,
                const double* __restrict xh,
                PairState* __restrict q,
                const std::uint32_t* __restrict pos,
                double* __restrict flat_t) {
  std::size_t i = 0;
#if defined(__SSE2__)
  for (; i + 2 <= n; i += 2) {
    const __m128d z = _mm_loadu_pd(v + i);
    const __m128d d = _mm_sub_pd(_mm_loadu_pd(xh + i), z);  // xh - z
    const __m128d q0 = _mm_loadu_pd(&q[i].z), q1 = _mm_loadu_pd(&q[i + 1].z);
    const __m128d u = _mm_add_pd(_mm_unpackhi_pd(q0, q1), d);  // u + (xh - z)
    _mm_storeu_pd(&q[i].z, _mm_unpacklo_pd(z, u));
    _mm_storeu_pd(&q[i + 1].z, _mm_unpackhi_pd(z, u));
    const __m128d t = _mm_sub_pd(z, u);
    _mm_storel_pd(flat_t + pos[i], t);
    _mm_storeh_pd(flat_t + pos[i + 1], t);
  }
#endif
  for (; i < n; ++i) {
    const double z_new = v[i];
    q[i].z = z_new;
    q[i].u += xh[i] - z_new;
    flat_t[pos[i]] = z_new - q[i].u;
  }
}

}  // namespace

using namespace engine;

// One half step's pass over the blocks of one side (HalfStep). What every block's solve reads
// is copied here once (locals: the stores in the loops could alias members read through the
// engine); each block's status is written by the task that solves it. The demand blocks'
// loops are instantiated per process layout (Index: ProcessLayout::WholeIndex or HeldIndex).
class AdmmEngine::HalfStepPass {
 public:
  HalfStepPass(AdmmEngine& engine, int side, bool integer_phase, bool measure)
      : e_(engine),
        side_(side),
        integer_phase_(integer_phase),
        measure_(measure),
        // A half step can outlast the whole budget (a cold first iteration of thousands of
        // QP blocks): blocks not yet started when the deadline passes or a stop is requested
        // keep their previous values, and the solve ends after this half step.
        deadline_(engine.deadline_ns_.load(std::memory_order_relaxed)),
        a_(engine.relaxation_),
        alpha_(engine.alpha_),
        xh_ready_(engine.xh_ready_),
        status_(engine.blocks_[side].size(), BlockStatus::kOptimal) {}

  // Solves block b of the side (a task of the executor).
  template <typename Index>
  void RunBlock(int b, Index local);
  std::vector<BlockStatus>& status() { return status_; }
  // False, with the reason, when a block failed or did not run (HalfStep's result).
  bool Outcome(std::string* message, Termination* termination) const;

 private:
  // Where a demand block's pairs are one range (Block::run_from): its slots [s0, rest) and
  // the range's first place in the held pairs.
  struct RunRange {
    bool run = false;
    std::size_t s0 = 0, rest = 0, begin = 0;
  };
  // Whether block b is skipped: an earlier block hit the deadline or a stop came.
  bool Skip(int b, const Block& block);
  void PrefetchAhead(int b) const;
  BlockSolver* SolverOf(const Block& block) const {
    return integer_phase_ && block.has_integers ? block.extra->integer_solver.get()
                                                : block.solver.get();
  }
  void SolveResourceBlock(int b, Block& block);
  template <typename Index>
  void SolveDemandBlock(int b, Block& block, Index local);
  // The demand block's targets xh + u (or its solver's linear term) into target, each pair's
  // xh into xh_block.
  template <typename Index>
  RunRange GatherTargets(const Block& block,
                         Index local,
                         const SlotInput& input,
                         bool in_place,
                         double* target,
                         double* xh_block) const;
  // After the solve v: z = v, u += xh - z and the resource side's next target z - u.
  template <typename Index>
  void ScatterPairs(const Block& block,
                    Index local,
                    const RunRange& range,
                    const double* v,
                    const double* xh_block);
  // The same on a check, with the block's terms of the residuals and the bound.
  template <typename Index>
  void MeasurePairs(
      int b, const Block& block, Index local, const double* v, const double* xh_block);

  AdmmEngine& e_;
  const int side_;
  const bool integer_phase_, measure_;
  const std::int64_t deadline_;
  const double a_, alpha_;
  const bool xh_ready_;
  std::atomic<bool> interrupted_{false};
  std::vector<BlockStatus> status_;
};

bool AdmmEngine::HalfStepPass::Skip(int b, const Block& block) {
  if (interrupted_.load(std::memory_order_relaxed)) {
    status_[b] = kSkipped;
    return true;
  }
  // The clock is read before every eighth block and before every large one (a read costs
  // 56 ns here, and Kdl TE has 30,000 blocks per iteration), a stop request before each.
  const bool read_clock = deadline_ > 0 && ((b & 7) == 0 || block.work >= kClockEveryBlockWork);
  if ((read_clock &&
       std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
               .count() > deadline_) ||
      e_.stop_.stop_requested()) {
    interrupted_ = true;
    status_[b] = kSkipped;
    return true;
  }
  return false;
}

// The blocks that follow (light blocks run in index order): their heap data in turn, one
// level per block ahead, so that small blocks do not wait on it (a hint; no effect on the
// results).
void AdmmEngine::HalfStepPass::PrefetchAhead(int b) const {
  const std::vector<Block>& blocks = e_.blocks_[side_];
  const std::size_t nb = blocks.size();
  const std::size_t next = static_cast<std::size_t>(b);
  if (next + 3 < nb) BlockSolver::PrefetchObject(&blocks[next + 3], sizeof(Block));
  if (next + 2 < nb) {
    const Block& b2 = blocks[next + 2];
    if (b2.solver) BlockSolver::PrefetchObject(b2.solver.get());
    __builtin_prefetch(b2.vars.data());
    __builtin_prefetch(b2.v.data());
    b2.problem.Prefetch();
  }
  if (next + 1 < nb && blocks[next + 1].solver) blocks[next + 1].solver->Prefetch();
}

template <typename Index>
void AdmmEngine::HalfStepPass::RunBlock(int b, Index local) {
  Block& block = e_.blocks_[side_][b];
  if (block.vars.empty()) return;
  if (Skip(b, block)) return;
  PrefetchAhead(b);
  if (side_ == 0) {
    SolveResourceBlock(b, block);
  } else {
    SolveDemandBlock(b, block, local);
  }
}

// The targets and the solution stay in the flat arrays (a local's target there is never
// written: its penalty is 0); with the targets over x, the same range.
void AdmmEngine::HalfStepPass::SolveResourceBlock(int b, Block& block) {
  BlockProblem& bp = block.problem;
  const bool integral = integer_phase_ && block.has_integers;
  double* x = e_.side0_x_.data() + e_.Side0Offset(b);
  if (integral) bp.integral = block.extra->integral_flags;
  const BlockStatus st = SolveBlock(SolverOf(block), &bp, e_.Targets() + e_.Side0Offset(b), x);
  if (integral) std::fill(bp.integral.begin(), bp.integral.end(), 0);
  status_[b] = st;
  // The block's part of the check's bound, before the demand half step overwrites x.
  if (measure_ && e_.bound_now_) e_.side0_value_[static_cast<std::size_t>(b)] = BlockValue(bp, x);
}

template <typename Index>
void AdmmEngine::HalfStepPass::SolveDemandBlock(int b, Block& block, Index local) {
  BlockProblem& bp = block.problem;
  const std::size_t n = block.vars.size();
  const bool integral = integer_phase_ && block.has_integers;
  BlockSolver* solver = SolverOf(block);
  const bool in_place = solver->solves_in_place();
  // The targets xh + u (or the solver's linear term formed from them: SlotInput) in a
  // per-thread buffer for a solver that solves in place, else in its problem.
  SlotInput input;
  if (in_place && solver->takes_linear()) input = {true, bp.linear.view(), bp.prox_weight.view()};
  thread_local std::vector<double> buffer;
  if (in_place && buffer.size() < n) buffer.resize(n);
  double* target = in_place ? buffer.data() : bp.prox_target.data();
  // Each pair's xh, kept for the updates after the solve (which would otherwise read x and z
  // and recompute it).
  thread_local std::vector<double> xh_buffer;
  if (xh_buffer.size() < n) xh_buffer.resize(n);
  double* xh_block = xh_buffer.data();
  const RunRange range = GatherTargets(block, local, input, in_place, target, xh_block);
  // The solution: into the block's v, or, for a block that keeps none, into a per-thread
  // buffer from which the pairs take their z below.
  thread_local std::vector<double> out_buffer;
  if (block.values_in_pairs && out_buffer.size() < n) out_buffer.resize(n);
  double* out = block.values_in_pairs ? out_buffer.data() : block.v.data();
  if (integral) bp.integral = block.extra->integral_flags;
  const BlockStatus st = !in_place      ? solver->Solve(bp, &block.v)
                         : input.linear ? solver->SolveFromLinear(bp, target, out)
                                        : solver->SolveInPlace(bp, target, out);
  if (integral) std::fill(bp.integral.begin(), bp.integral.end(), 0);
  status_[b] = st;
  if (st != BlockStatus::kOptimal && st != BlockStatus::kNodeLimit) return;
  // (Solve may have swapped block.v's storage with its own: read it afresh.)
  const double* v = block.values_in_pairs ? out : block.v.data();
  if (measure_) {
    MeasurePairs(b, block, local, v, xh_block);
  } else {
    ScatterPairs(block, local, range, v, xh_block);
  }
}

template <typename Index>
AdmmEngine::HalfStepPass::RunRange AdmmEngine::HalfStepPass::GatherTargets(const Block& block,
                                                                           Index local,
                                                                           const SlotInput& input,
                                                                           bool in_place,
                                                                           double* target,
                                                                           double* xh_block) const {
  const std::size_t n = block.vars.size();
  const BlockVar* vars = block.vars.data();
  const PairState* ps = e_.ps_.data();
  const std::uint32_t* pos0 = e_.side0_pos_.data();
  const double* flat_x = e_.side0_x_.data();
  double* flat_t = e_.Targets();
  const double* xh_all = e_.xh_.data();
  const double a = a_;
  // A block whose pairs are one range reads them as one (the common case: a demand's
  // entries, after its own variables); the first pair's place, and with it the range's, is
  // its local number. The slots after the run (a max-min copy) go through the general loop:
  // [rest, n).
  RunRange range;
  range.run = block.run_from >= 0 && !xh_ready_;
  range.s0 = range.run ? static_cast<std::size_t>(block.run_from) : 0;
  range.rest = range.run ? n - block.run_tail : 0;
  range.begin = range.run ? local(vars[range.s0].pair) : 0;
  if (range.run) {
    const std::size_t s0 = range.s0;
    if (in_place) {
      for (std::size_t i = 0; i < s0; ++i) target[i] = input(i, 0.0);  // locals, as below
    }
    const auto gather = [&](auto linear, auto two_arrays) {
      GatherRun<decltype(linear)::value, decltype(two_arrays)::value>(range.rest - s0,
                                                                      a,
                                                                      ps + range.begin,
                                                                      pos0 + range.begin,
                                                                      flat_x,
                                                                      flat_t,
                                                                      input.From(s0),
                                                                      xh_block + s0,
                                                                      target + s0);
    };
    const bool two_arrays = flat_t != flat_x;
    if (input.linear) {
      if (two_arrays) {
        gather(std::true_type{}, std::true_type{});
      } else {
        gather(std::true_type{}, std::false_type{});
      }
    } else if (two_arrays) {
      gather(std::false_type{}, std::true_type{});
    } else {
      gather(std::false_type{}, std::false_type{});
    }
  }
  for (std::size_t i = range.rest; i < n; ++i) {
    const int p = vars[i].pair;
    if (p < 0) {
      // A local's target is 0 (its penalty is 0): the buffer holds another block's.
      if (in_place) target[i] = input(i, 0.0);
      continue;
    }
    // x and the target sit in the entry's resource's range of the flat arrays, in demand
    // order there, so the demand blocks that follow walk each resource's range forward: the
    // line after this entry's is the one the resource's next demands will read. Fetched now
    // it is in cache by then; the hardware prefetcher cannot follow a thousand interleaved
    // streams (a hint: no effect on the results; the address is formed as an integer, since
    // the line after the last element's is past the array's end).
    const std::size_t li = local(p);
    const std::uint32_t j = pos0[li];
    if (j != kNoSlot) {
      __builtin_prefetch(NextLine(flat_x + j));
      __builtin_prefetch(NextLine(flat_t + j), 1);
    }
    // xh of the held pair at li (z still the previous one).
    if (xh_ready_) {
      xh_block[i] = xh_all[li];
    } else {
      const double x = j != kNoSlot ? flat_x[j] : alpha_;
      xh_block[i] = a * x + (1 - a) * ps[li].z;
    }
    target[i] = input(i, xh_block[i] + ps[li].u);
  }
  return range;
}

template <typename Index>
void AdmmEngine::HalfStepPass::ScatterPairs(const Block& block,
                                            Index local,
                                            const RunRange& range,
                                            const double* v,
                                            const double* xh_block) {
  const BlockVar* vars = block.vars.data();
  PairState* ps = e_.ps_.data();
  const std::uint32_t* pos0 = e_.side0_pos_.data();
  double* flat_t = e_.Targets();
  if (range.run) {
    const std::size_t s0 = range.s0;
    ScatterRun(
        range.rest - s0, v + s0, xh_block + s0, ps + range.begin, pos0 + range.begin, flat_t);
  }
  for (std::size_t i = range.rest; i < block.vars.size(); ++i) {
    const int p = vars[i].pair;
    if (p < 0) continue;
    const double xh = xh_block[i];
    const std::size_t li = local(p);
    PairState& q = ps[li];
    const double z_new = v[i];
    q.z = z_new;
    q.u += xh - z_new;
    const std::uint32_t j = pos0[li];
    if (j != kNoSlot) flat_t[j] = z_new - q.u;
  }
}

// A check: the dual residual and the dual norm carry each pair's penalty factor.
template <typename Index>
void AdmmEngine::HalfStepPass::MeasurePairs(
    int b, const Block& block, Index local, const double* v, const double* xh_block) {
  const BlockVar* vars = block.vars.data();
  const PairState* ps = e_.ps_.data();
  const std::uint32_t* pos0 = e_.side0_pos_.data();
  const double* flat_x = e_.side0_x_.data();
  double* flat_t = e_.Targets();
  Norms acc;
  if (e_.bound_now_) e_.DemandBound(block, v, xh_block, &acc);  // (before the pairs' update)
  for (std::size_t i = 0; i < block.vars.size(); ++i) {
    const int p = vars[i].pair;
    if (p < 0) continue;
    const std::size_t li = local(p);
    const std::uint32_t j = pos0[li];
    const double x = j != kNoSlot ? flat_x[j] : alpha_;
    e_.AssignZMeasured(p, x, xh_block[i], v[i], &acc);
    if (j != kNoSlot) flat_t[j] = ps[li].z - ps[li].u;
  }
  e_.norms_[b] = acc;
}

bool AdmmEngine::HalfStepPass::Outcome(std::string* message, Termination* termination) const {
  bool failed = false;
  bool skipped = false;
  for (BlockStatus st : status_) {
    skipped = skipped || st == kSkipped;
    failed =
        failed || (st != kSkipped && st != BlockStatus::kOptimal && st != BlockStatus::kNodeLimit);
  }
  // Blocks of the demand side that did not run wrote no targets.
  if (side_ == 1 && (failed || skipped)) e_.InvalidateTargets();
  if (!failed) {
    if (!skipped) return true;
    // Reported as a time limit or a cancellation, not as a failure: the values are usable.
    const bool stop = e_.stop_.stop_requested();
    *termination = stop ? Termination::kCancelled : Termination::kTimeLimit;
    *message = std::string(stop ? "Stop requested" : "Time limit reached") + " during the " +
               (side_ == 0 ? "resource" : "demand") +
               " half step (blocks not yet solved kept their previous values).";
    return false;
  }
  for (std::size_t b = 0; b < status_.size(); ++b) {
    if (status_[b] == BlockStatus::kOptimal || status_[b] == BlockStatus::kNodeLimit ||
        status_[b] == kSkipped)
      continue;
    const BlockSolver* solver = SolverOf(e_.blocks_[side_][b]);
    *termination =
        status_[b] == BlockStatus::kInfeasible ? Termination::kInfeasible : Termination::kFailure;
    // (A block another process solved: its solver is there.)
    *message =
        std::string(side_ == 0 ? "Resource" : "Demand") + " block " + std::to_string(b) + " (" +
        (solver != nullptr ? solver->name() : "solved by another process") +
        "): " + BlockStatusName(status_[b]) +
        (solver == nullptr || solver->last_error().empty() ? "" : ": " + solver->last_error());
    return false;
  }
  return true;
}

// Solves every block of one side against the other side's current values. The per-pair
// updates of the iteration are fused into the demand side's block loops, so that they run in
// parallel and touch each pair once per iteration:
//   resource side: x = solve(z - u)            (targets written by the demand side)
//   demand side:   xh = a x + (1 - a) z,  z = solve(xh + u),  u += xh - z,
//                  the resource side's next target z - u (and the residual norms on a check)
// The demand side reads x from, and writes the targets into, the resource side's flat arrays
// in pair order: each resource block's range is visited in its own order as the demand blocks
// advance (as many short streams as resource blocks), where the resource side visiting the
// pairs would jump across the whole pair array for every entry.
// Two seams: this process's own blocks are solved here, in the pairs' layout on this process
// (ProcessLayout: the loops are instantiated for each), and what the other processes need of
// them, and this one of theirs, travels after (ShareHalfStep, share.cpp).
bool AdmmEngine::HalfStep(
    int side, bool integer_phase, bool measure, std::string* message, Termination* termination) {
  if (side == 0) {
    xh_ready_ = false;  // a new iteration
    if (targets_stale_) WriteResourceTargets();
  }
  HalfStepPass pass(*this, side, integer_phase, measure);
  layout_.WithIndex(
      [&](auto index) { ForEachBlock(side, [&](int b) { pass.RunBlock(b, index); }); });
  ShareHalfStep(side, measure, &pass.status());
  return pass.Outcome(message, termination);
}

// Closed-form update of the global scalar alpha, which lives on side 1 - global_side_, with
// the same fused per-pair updates as HalfStep.
void AdmmEngine::UpdateGlobalAlpha(int side, bool measure) {
  if (global_side_ < 0 || side == global_side_ || global_pairs_.empty() || filling_) return;
  const GlobalTerm& global = problem_.global_term();
  const double a = relaxation_;
  double sum = 0;
  if (side == 0) {
    // alpha is a resource-side (x) value, t_b demand-side: max-min over demands. It is x of
    // every global pair (X()); the demand half step forms their xh from it.
    // alpha = argmin -w alpha + rho/2 sum_b (alpha - z_b + u_b)^2.
    double wsum = 0;
    for (int p : global_pairs_) {
      sum += PairWeight(p) * (Ps(p).z - Ps(p).u);
      wsum += PairWeight(p);
    }
    alpha_ = sum / wsum + global.weight / (rho_ * wsum);
    return;
  }
  // alpha is a demand-side (z) value, t_b resource-side: min-max over resources. No demand
  // block holds the t_b: their xh is formed here.
  // alpha = argmin w alpha + rho/2 sum_b (xh_b - alpha + u_b)^2.
  std::vector<double>& xh = global_xh_;
  xh.resize(global_pairs_.size());
  for (std::size_t k = 0; k < global_pairs_.size(); ++k) {
    const int p = global_pairs_[k];
    xh[k] = xh_ready_ ? xh_[Local(p)] : a * X(p) + (1 - a) * Ps(p).z;
  }
  double wsum = 0;
  for (std::size_t k = 0; k < global_pairs_.size(); ++k) {
    const int p = global_pairs_[k];
    sum += PairWeight(p) * (xh[k] + Ps(p).u);
    wsum += PairWeight(p);
  }
  alpha_ = sum / wsum - global.weight / (rho_ * wsum);
  Norms acc;
  for (std::size_t k = 0; k < global_pairs_.size(); ++k) {
    const int p = global_pairs_[k];
    if (measure) {
      if (bound_now_) AddBoundTerms(p, X(p), xh[k], alpha_, 0.0, false, true, &acc);
      AssignZMeasured(p, X(p), xh[k], alpha_, &acc);
    } else {
      Ps(p).z = alpha_;
      Ps(p).u += xh[k] - alpha_;
    }
    // t_b's block is a resource block: its next target.
    Targets()[Side0Pos(p)] = Ps(p).z - Ps(p).u;
  }
  if (measure) norms_.back() = acc;
}

// Between the half steps: q = xh + u is the demand half step's target and the whole state of
// the iteration, so it is what the accelerator extrapolates; the demand half step then reads
// xh = q_next - u (and sets u = q_next - z). Pairs are independent: any split is deterministic.
// (Anderson keeps the whole state on every process: ps_ and xh_ hold every pair.)
void AdmmEngine::Accelerate() {
  MaterializeXh();
  const std::size_t np = ps_.size();
  anderson_f_.resize(np);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, np, 4096),
                    [&](const tbb::blocked_range<std::size_t>& range) {
                      for (std::size_t p = range.begin(); p != range.end(); ++p)
                        anderson_f_[p] = xh_[p] + ps_[p].u;
                    });
  anderson_->Apply(anderson_f_, &anderson_next_);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, np, 4096),
                    [&](const tbb::blocked_range<std::size_t>& range) {
                      for (std::size_t p = range.begin(); p != range.end(); ++p)
                        xh_[p] = anderson_next_[p] - ps_[p].u;
                    });
}

}  // namespace dede::internal

namespace dede::internal {

using namespace engine;

void AdmmEngine::MarkPairRuns() {
  for (Block& block : blocks_[1]) {
    block.run_from = -1;
    block.run_tail = 0;
    const std::size_t n = block.vars.size();  // (none here for another process's block)
    // [s0, s1): the run; before it locals only; after it at most kMaxRunTail slots of any kind
    // (a max-min copy's is the block's last).
    std::size_t s0 = 0;
    while (s0 < n && block.vars[s0].pair < 0) ++s0;
    if (s0 == n) continue;
    const auto first = static_cast<std::size_t>(block.vars[s0].pair);
    std::size_t s1 = s0;
    while (s1 < n && block.vars[s1].pair >= 0 &&
           static_cast<std::size_t>(block.vars[s1].pair) == first + (s1 - s0) &&
           static_cast<std::size_t>(block.vars[s1].pair) < layout_.entry_pairs() &&
           side0_pos_[Local(block.vars[s1].pair)] != kNoSlot) {
      ++s1;
    }
    if (s1 == s0 || n - s1 > kMaxRunTail) continue;
    block.run_from = static_cast<std::int32_t>(s0);
    block.run_tail = static_cast<std::uint8_t>(n - s1);
  }
}

void AdmmEngine::BuildSideArrays() {
  const std::vector<Block>& blocks = blocks_[0];
  side0_offset_.assign(blocks.size() + 1, 0);
  side0_all_paired_.assign(blocks.size(), 1);
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    side0_offset_[b + 1] = side0_offset_[b] + blocks[b].vars.size();
    for (const BlockVar& bv : blocks[b].vars)
      if (bv.pair < 0) side0_all_paired_[b] = 0;
  }
  side0_base_ = 0;
  side0_size_ = side0_offset_.back();
  side0_pos_.assign(pairs_.size(), kNoSlot);
  for (std::size_t p = 0; p < pairs_.size(); ++p) {
    const Pair& pr = pairs_[p];
    if (pr.block[0] >= 0)
      side0_pos_[p] = static_cast<std::uint32_t>(side0_offset_[pr.block[0]] + pr.slot[0]);
  }
}

BlockStatus AdmmEngine::SolveBlock(BlockSolver* solver,
                                   BlockProblem* bp,
                                   const double* t,
                                   double* v) {
  if (solver->solves_in_place()) return solver->SolveInPlace(*bp, t, v);
  const std::size_t n = bp->lower.size();
  if (t != bp->prox_target.data()) bp->prox_target.assign(t, t + n);
  thread_local std::vector<double> scratch;
  scratch.assign(v, v + n);
  const BlockStatus st = solver->Solve(*bp, &scratch);
  if (st == BlockStatus::kOptimal || st == BlockStatus::kNodeLimit)
    std::copy(scratch.begin(), scratch.end(), v);
  return st;
}

// Pairs are independent and each resource slot belongs to one pair: any split is
// deterministic.
template <typename F>
static void ForEachPair(std::size_t n, F&& f) {
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 4096),
                    [&](const tbb::blocked_range<std::size_t>& range) {
                      for (std::size_t p = range.begin(); p != range.end(); ++p) f(p);
                    });
}

void AdmmEngine::WriteResourceTargets() {
  if (ReplicaStale()) {  // (more than one process: share.cpp)
    WriteOwnTargets();
    return;
  }
  double* t = Targets();
  ForEachPair(ps_.size(), [&](std::size_t i) {  // (every pair: held at its own number)
    const std::uint32_t j = side0_pos_[i];
    if (j != kNoSlot) t[j] = ps_[i].z - ps_[i].u;
  });
  targets_stale_ = false;
}

void AdmmEngine::MaterializeXh() {
  const double a = relaxation_;
  xh_.resize(ps_.size());
  ForEachPair(ps_.size(), [&](std::size_t i) {  // the held pairs, at their place in ps_
    const std::uint32_t j = side0_pos_[i];
    xh_[i] = a * (j != kNoSlot ? side0_x_[j] : alpha_) + (1 - a) * ps_[i].z;
  });
  xh_ready_ = true;
}

}  // namespace dede::internal
