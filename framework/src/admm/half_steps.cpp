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
bool AdmmEngine::HalfStep(
    int side, bool integer_phase, bool measure, std::string* message, Termination* termination) {
  std::atomic<bool> interrupted{false};
  std::vector<BlockStatus> status(blocks_[side].size(), BlockStatus::kOptimal);
  if (side == 0) {
    xh_ready_ = false;  // a new iteration
    if (targets_stale_) WriteResourceTargets();
  }
  // A half step can outlast the whole budget (a cold first iteration of thousands of QP
  // blocks): blocks not yet started when the deadline passes or a stop is requested keep
  // their previous values, and the solve ends after this half step.
  const std::int64_t deadline = deadline_ns_.load(std::memory_order_relaxed);
  // Locals: the stores in the loops below could alias members read through `this`.
  const double a = relaxation_;
  const double alpha = alpha_;
  const bool xh_ready = xh_ready_;
  // Instantiated twice (below): with every pair at its own number (one process, or the whole
  // state), a pair's place in ps_ and side0_pos_ is its number and costs nothing here.
  const auto run_block = [&](int b, auto whole) {
    const auto local = [this](int p) {
      if constexpr (decltype(whole)::value) return static_cast<std::size_t>(p);
      return Local(p);
    };
    Block& block = blocks_[side][b];
    if (block.vars.empty()) return;
    if (interrupted.load(std::memory_order_relaxed)) {
      status[b] = kSkipped;
      return;
    }
    // The clock is read before every eighth block and before every large one (a read costs
    // 56 ns here, and Kdl TE has 30,000 blocks per iteration), a stop request before each.
    const bool read_clock = deadline > 0 && ((b & 7) == 0 || block.work >= kClockEveryBlockWork);
    if ((read_clock &&
         std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
                 .count() > deadline) ||
        stop_.stop_requested()) {
      interrupted = true;
      status[b] = kSkipped;
      return;
    }
    // The blocks that follow (light blocks run in index order): their heap data in turn, one
    // level per block ahead, so that small blocks do not wait on it (a hint; no effect on
    // the results).
    {
      const std::size_t nb = blocks_[side].size();
      const std::size_t next = static_cast<std::size_t>(b);
      if (next + 3 < nb) BlockSolver::PrefetchObject(&blocks_[side][next + 3], sizeof(Block));
      if (next + 2 < nb) {
        const Block& b2 = blocks_[side][next + 2];
        if (b2.solver) BlockSolver::PrefetchObject(b2.solver.get());
        __builtin_prefetch(b2.vars.data());
        __builtin_prefetch(b2.v.data());
        b2.problem.Prefetch();
      }
      if (next + 1 < nb && blocks_[side][next + 1].solver)
        blocks_[side][next + 1].solver->Prefetch();
    }
    BlockProblem& bp = block.problem;
    const std::size_t n = block.vars.size();
    const BlockVar* vars = block.vars.data();
    PairState* ps = ps_.data();
    const std::uint32_t* pos0 = side0_pos_.data();
    double* flat_x = side0_x_.data();
    double* flat_t = Targets();
    const double* xh_all = xh_.data();
    const bool integral = integer_phase && block.has_integers;
    BlockSolver* solver = integral ? block.extra->integer_solver.get() : block.solver.get();
    const bool in_place = solver->solves_in_place();
    // xh of the held pair at li (z still the previous one).
    const auto xh_of = [&](std::size_t li) {
      if (xh_ready) return xh_all[li];
      const std::uint32_t j = pos0[li];
      const double x = j != kNoSlot ? flat_x[j] : alpha;
      return a * x + (1 - a) * ps[li].z;
    };
    if (side == 0) {
      // The targets and the solution stay in the flat arrays (a local's target there is
      // never written: its penalty is 0); with the targets over x, the same range.
      double* x = flat_x + Side0Offset(b);
      if (integral) bp.integral = block.extra->integral_flags;
      const BlockStatus st = SolveBlock(solver, &bp, flat_t + Side0Offset(b), x);
      if (integral) std::fill(bp.integral.begin(), bp.integral.end(), 0);
      status[b] = st;
      // The block's part of the check's bound, before the demand half step overwrites x.
      if (measure && bound_now_) side0_value_[static_cast<std::size_t>(b)] = BlockValue(bp, x);
      return;
    }
    // A demand block's targets xh + u (or its solver's linear term formed from them: SlotInput)
    // in a per-thread buffer for a solver that solves in place, else in its problem.
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
    // A block whose pairs are one range reads them as one (the common case: a demand's
    // entries, after its own variables); the first pair's place, and with it the range's, is
    // its local number.
    // The slots after the run (a max-min copy) go through the general loops: [rest, n).
    const bool run = block.run_from >= 0 && !xh_ready;
    const std::size_t s0 = run ? static_cast<std::size_t>(block.run_from) : 0;
    const std::size_t rest = run ? n - block.run_tail : 0;
    const std::size_t run_begin = run ? local(vars[s0].pair) : 0;
    if (run) {
      if (in_place) {
        for (std::size_t i = 0; i < s0; ++i) target[i] = input(i, 0.0);  // locals, as below
      }
      const auto gather = [&](auto linear, auto two_arrays) {
        GatherRun<decltype(linear)::value, decltype(two_arrays)::value>(rest - s0,
                                                                        a,
                                                                        ps + run_begin,
                                                                        pos0 + run_begin,
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
    for (std::size_t i = rest; i < n; ++i) {
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
      {
        const std::uint32_t jj = pos0[li];
        if (jj != kNoSlot) {
          __builtin_prefetch(NextLine(flat_x + jj));
          __builtin_prefetch(NextLine(flat_t + jj), 1);
        }
      }
      xh_block[i] = xh_of(li);
      target[i] = input(i, xh_block[i] + ps[li].u);
    }
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
    status[b] = st;
    if (st != BlockStatus::kOptimal && st != BlockStatus::kNodeLimit) return;
    // (Solve may have swapped block.v's storage with its own: read it afresh.)
    const double* v = block.values_in_pairs ? out : block.v.data();
    if (!measure) {
      if (run)
        ScatterRun(rest - s0, v + s0, xh_block + s0, ps + run_begin, pos0 + run_begin, flat_t);
      for (std::size_t i = rest; i < n; ++i) {
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
      return;
    }
    // A check: the dual residual and the dual norm carry each pair's penalty factor.
    Norms acc;
    if (bound_now_) DemandBound(block, v, xh_block, &acc);  // (before the pairs' update)
    for (std::size_t i = 0; i < n; ++i) {
      const int p = vars[i].pair;
      if (p < 0) continue;
      const std::size_t li = local(p);
      const std::uint32_t j = pos0[li];
      const double x = j != kNoSlot ? flat_x[j] : alpha;
      AssignZMeasured(p, x, xh_block[i], v[i], &acc);
      if (j != kNoSlot) flat_t[j] = ps[li].z - ps[li].u;
    }
    norms_[b] = acc;
  };
  if (partial_) {
    ForEachBlock(side, [&](int b) { run_block(b, std::false_type{}); });
  } else {
    ForEachBlock(side, [&](int b) { run_block(b, std::true_type{}); });
  }
  ShareHalfStep(side, measure, &status);
  bool failed = false;
  bool skipped = false;
  for (BlockStatus st : status) {
    skipped = skipped || st == kSkipped;
    failed =
        failed || (st != kSkipped && st != BlockStatus::kOptimal && st != BlockStatus::kNodeLimit);
  }
  // Blocks of the demand side that did not run wrote no targets.
  if (side == 1 && (failed || skipped)) InvalidateTargets();
  if (!failed) {
    if (!skipped) return true;
    // Reported as a time limit or a cancellation, not as a failure: the values are usable.
    *termination = stop_.stop_requested() ? Termination::kCancelled : Termination::kTimeLimit;
    *message = std::string(stop_.stop_requested() ? "Stop requested" : "Time limit reached") +
               " during the " + (side == 0 ? "resource" : "demand") +
               " half step (blocks not yet solved kept their previous values).";
    return false;
  }
  for (std::size_t b = 0; b < status.size(); ++b) {
    if (status[b] == BlockStatus::kOptimal || status[b] == BlockStatus::kNodeLimit ||
        status[b] == kSkipped)
      continue;
    const Block& block = blocks_[side][b];
    BlockSolver* solver = integer_phase && block.has_integers ? block.extra->integer_solver.get()
                                                              : block.solver.get();
    *termination =
        status[b] == BlockStatus::kInfeasible ? Termination::kInfeasible : Termination::kFailure;
    // (A block another process solved: its solver is there.)
    *message =
        std::string(side == 0 ? "Resource" : "Demand") + " block " + std::to_string(b) + " (" +
        (solver != nullptr ? solver->name() : "solved by another process") +
        "): " + BlockStatusName(status[b]) +
        (solver == nullptr || solver->last_error().empty() ? "" : ": " + solver->last_error());
    return false;
  }
  return true;
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
           static_cast<std::size_t>(block.vars[s1].pair) < entry_pairs_ &&
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
