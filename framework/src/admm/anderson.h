// Safeguarded Anderson acceleration of a fixed-point iteration q <- F(q) (Walker and Ni 2011;
// type-I and type-II as in Zhang, O'Donoghue and Boyd 2020 and SCS 3).
//
// The engine applies it to the Douglas-Rachford form of its ADMM: the demand half step's
// target q = xh + u determines the whole next iteration (z = prox_g(q), u = q - z, then the
// resource half step and over-relaxation give the next q), so the accelerated state has one
// value per consensus pair. F is `interval` ADMM iterations.
//
//   AndersonAccelerator aa(n, memory, type, ...);
//   every `interval` iterations, after the resource half step:
//     f = current q;  aa.Apply(f, &q_next);  use q_next as the demand half step's target
//
// The safeguard: when the residual ||q - F(q)|| at an accelerated point exceeds
// `safeguard` times the residual at the point it was extrapolated from, the accelerated point
// is rejected, the plain iterate F(q_prev) is used instead, and the memory starts afresh. The
// iteration then never does worse than the plain one by more than the rejected stretch.
//
// Deterministic: every reduction runs over fixed ranges and is summed in order, so results do
// not depend on the thread count. Call from inside the solve's task arena.
#pragma once

#include <cstdint>
#include <vector>

namespace dede::internal {

enum class AndersonKind : std::uint8_t { kTypeI, kTypeII };

struct AndersonStats {
  int steps = 0;       // points where an extrapolation was used
  int rejections = 0;  // extrapolations undone by the safeguard
  int resets = 0;      // memory cleared (rejections, rho changes, failed small solves)
};

class AndersonAccelerator {
 public:
  AndersonAccelerator(
      std::size_t n, int memory, AndersonKind kind, double safeguard, double regularization);

  // f = F(q) for the q returned by the previous call (or any starting point on the first
  // call). Writes the next point to feed F into *next (size n; may alias nothing else).
  void Apply(const std::vector<double>& f, std::vector<double>* next);
  // Forget the history (the map changed: a new rho, a new phase, new parameters).
  void Reset();
  // Counts since construction or the last ResetStats.
  const AndersonStats& stats() const { return stats_; }
  void ResetStats() { stats_ = AndersonStats{}; }
  int memory() const { return memory_; }
  AndersonKind kind() const { return kind_; }

 private:
  bool SolveCoefficients(std::vector<double>* gamma) const;
  void ClearColumns();

  std::size_t n_;
  int memory_;
  AndersonKind kind_;
  double safeguard_;
  double regularization_;
  // Columns of S (differences of points fed to F) and Y (differences of residuals) in
  // memory_ + 1 slots, slot j at [j * n_, (j + 1) * n_). slots_: the complete columns, oldest
  // first; pending_: the slot whose s is written and whose y comes with the next call.
  std::vector<double> s_, y_;
  std::vector<int> slots_;
  int pending_ = 0;
  bool have_prev_ = false;  // q_prev_ was fed to F
  bool have_g_ = false;     // g_prev_ = residual at the point before q_prev_
  bool prev_accelerated_ = false;
  double g_prev_norm_ = 0;
  std::vector<double> q_prev_, g_prev_, fallback_;
  // Gram matrices over the complete columns, indexed by ring slot: st_y_[i][j] = s_i . y_j,
  // yt_y_[i][j] = y_i . y_j (type II).
  std::vector<double> st_y_, yt_y_;
  std::vector<double> s_norm2_;  // s_i . s_i, by slot
  std::vector<double> rhs_;      // S^T g (type I) or Y^T g (type II), by slot
  AndersonStats stats_;
};

}  // namespace dede::internal
