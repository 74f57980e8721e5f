// The certified bound: a lower bound on the optimum (in the engine's minimising sense) from the
// iterates of any check, so that a round can say how far its allocation can be from optimal.
//
// Relax the consensus x = z with a multiplier y per pair. For any y,
//   g(y) = sum_R min_{x in P_R} [h_R(x) + y'x] + sum_D min_{z in P_D} [h_D(z) - y'z]
// is at most the optimum (weak duality), where h_b is block b's objective and P_b its rows and
// bounds; each minimisation may further be restricted to any set that holds an optimal point
// (a box of implied bounds, ComputeBoxes). The check evaluates g, after the demand half step,
// at y_p = rho w_p (x - z_old + u_old), minus the resource side's subgradient:
//  * a resource block's x solved min h_R(x) + (rho w / 2) ||x - (z_old - u_old)||^2, so x
//    minimises h_R(x) + y'x exactly: its term is h_R(x) + y'x;
//  * a demand block's z solved its prox against xh + u_old, so s = rho w (xh + u_old - z) is a
//    subgradient of h_D at z, and for every z' of the box
//      h_D(z') - y'z' >= h_D(z) - y'z + r'(z' - z) + sum_i q_i (z'_i - z_i)^2,
//      r = s - y = rho w (xh - z - x + z_old),
//    with q_i the slot's quadratic cost (h_D less those squares is still convex): one term per
//    pair, its least over the box in closed form (r -> 0 as the iterates converge);
//  * the global scalar alpha's objective (-w alpha for max-min, w alpha for min-max) is linear:
//    its term is the exact minimum over its box of (its weight +- the sum of its pairs' y) alpha.
// Valid for every objective the model has (the logs and quadratics are in h_b), and for
// integer problems as a bound of the relaxation (checks of the integer phase compute none).
// A reduced cost whose side of the box is infinite makes the bound -inf ("none") for that
// check: the boxes (implied by the rows) are finite on every bundled model.
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include "admm/admm_engine.h"

namespace dede::internal {

using namespace engine;

namespace {

// Outward rounding to float: the box stays valid.
float Down(double v) {
  if (!(v > -kInfinity)) return -std::numeric_limits<float>::infinity();
  auto f = static_cast<float>(v);
  if (static_cast<double>(f) > v) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
  return f;
}
float Up(double v) {
  if (!(v < kInfinity)) return std::numeric_limits<float>::infinity();
  auto f = static_cast<float>(v);
  if (static_cast<double>(f) < v) f = std::nextafter(f, std::numeric_limits<float>::infinity());
  return f;
}

// A derived bound, loosened by a relative 1e-9 so that rounding in its arithmetic cannot cut
// off a feasible point.
double Loosen(double v, double direction) { return v + direction * 1e-9 * (1.0 + std::abs(v)); }

// One pass of single-row bound propagation over every constraint, then the entry images both
// ways: each derived interval holds every feasible point.
void Propagate(const Problem& problem, std::vector<double>* lo, std::vector<double>* hi) {
  std::vector<double>& l = *lo;
  std::vector<double>& h = *hi;
  for (const Constraint& c : problem.constraints()) {
    // Least and greatest activity: finite parts, and how many terms are unbounded.
    double min_fin = 0, max_fin = 0;
    int min_inf = 0, max_inf = 0;
    for (const Term& t : c.terms) {
      const double a = t.coef, vl = l[t.var], vh = h[t.var];
      const double mn = a > 0 ? a * vl : a * vh, mx = a > 0 ? a * vh : a * vl;
      if (a == 0) continue;
      if (std::isfinite(mn))
        min_fin += mn;
      else
        ++min_inf;
      if (std::isfinite(mx))
        max_fin += mx;
      else
        ++max_inf;
    }
    const bool upper = c.sense != Sense::kGreaterEqual, lower = c.sense != Sense::kLessEqual;
    for (const Term& t : c.terms) {
      const double a = t.coef;
      if (a == 0) continue;
      const double vl = l[t.var], vh = h[t.var];
      if (upper) {  // a v <= rhs - (least activity of the others)
        const double mn = a > 0 ? a * vl : a * vh;
        double rest = kInfinity;
        if (min_inf == 0)
          rest = min_fin - mn;
        else if (min_inf == 1 && !std::isfinite(mn))
          rest = min_fin;
        if (std::isfinite(rest)) {
          const double b = (c.rhs - rest) / a;
          if (a > 0)
            h[t.var] = std::min(h[t.var], Loosen(b, 1));
          else
            l[t.var] = std::max(l[t.var], Loosen(b, -1));
        }
      }
      if (lower) {  // a v >= rhs - (greatest activity of the others)
        const double mx = a > 0 ? a * vh : a * vl;
        double rest = kInfinity;
        if (max_inf == 0)
          rest = max_fin - mx;
        else if (max_inf == 1 && !std::isfinite(mx))
          rest = max_fin;
        if (std::isfinite(rest)) {
          const double b = (c.rhs - rest) / a;
          if (a > 0)
            l[t.var] = std::max(l[t.var], Loosen(b, -1));
          else
            h[t.var] = std::min(h[t.var], Loosen(b, 1));
        }
      }
    }
  }
  if (problem.num_images() == 0) return;
  for (VarId v = 0; v < problem.num_variables(); ++v) {
    const EntryImage image = problem.image(v);
    if (!image.active()) continue;
    const VarId w = image.local;
    // v = offset + scale w.
    double from = image.offset + image.scale * l[w], to = image.offset + image.scale * h[w];
    if (image.scale < 0) std::swap(from, to);
    if (std::isfinite(from)) l[v] = std::max(l[v], Loosen(from, -1));
    if (std::isfinite(to)) h[v] = std::min(h[v], Loosen(to, 1));
    const auto [wl, wh] = ImageBaseInterval(l[v], h[v], image.offset, image.scale);
    if (std::isfinite(wl)) l[w] = std::max(l[w], Loosen(wl, -1));
    if (std::isfinite(wh)) h[w] = std::min(h[w], Loosen(wh, 1));
  }
}

}  // namespace

void AdmmEngine::ComputeBoxes() {
  const int n = problem_.num_variables();
  std::vector<double> lo(static_cast<std::size_t>(n)), hi(static_cast<std::size_t>(n));
  for (VarId v = 0; v < n; ++v) {
    const Variable var = problem_.variable(v);
    lo[static_cast<std::size_t>(v)] = var.domain.lower;
    hi[static_cast<std::size_t>(v)] = var.domain.upper;
  }
  // Two passes: a path model's flows are bounded by their demand's row, its entries by their
  // images, and the rows then see finite entries.
  for (int pass = 0; pass < 2; ++pass) Propagate(problem_, &lo, &hi);
  // The global scalar: at an optimum it is the least (max-min) or greatest (min-max) of the
  // expressions, so it lies between that of their least and that of their greatest values.
  const GlobalTerm& global = problem_.global_term();
  alpha_lo_ = -kInfinity;
  alpha_hi_ = kInfinity;
  if (global.kind != GlobalKind::kNone && !global.exprs.empty()) {
    const bool max_min = global.kind == GlobalKind::kMaxMin;
    double a_lo = max_min ? kInfinity : -kInfinity, a_hi = a_lo;
    for (const LinearExpr& e : global.exprs) {
      double el = e.constant, eh = e.constant;
      for (const Term& t : e.terms) {
        const double vl = lo[t.var], vh = hi[t.var];
        el += t.coef > 0 ? t.coef * vl : t.coef < 0 ? t.coef * vh : 0.0;
        eh += t.coef > 0 ? t.coef * vh : t.coef < 0 ? t.coef * vl : 0.0;
      }
      if (std::isnan(el)) el = -kInfinity;
      if (std::isnan(eh)) eh = kInfinity;
      a_lo = max_min ? std::min(a_lo, el) : std::max(a_lo, el);
      a_hi = max_min ? std::min(a_hi, eh) : std::max(a_hi, eh);
    }
    alpha_lo_ = Loosen(a_lo, -1);
    alpha_hi_ = Loosen(a_hi, 1);
  }
  // The other terms' least and greatest values over the boxes (engine's sense: costs times the
  // sign, minus the logs): each variable's convex quadratic at its box's best point and at its
  // worse end, each log at its argument's greatest and least value.
  const double sign = problem_.objective_sense() == ObjectiveSense::kMaximize ? -1.0 : 1.0;
  double others = 0, top = 0;
  for (VarId v = 0; v < n && (std::isfinite(others) || std::isfinite(top)); ++v) {
    const Variable var = problem_.variable(v);
    const double c = sign * var.linear_cost, q = sign * var.quadratic_cost;
    if (c == 0 && q == 0) continue;
    const double l = lo[static_cast<std::size_t>(v)], h = hi[static_cast<std::size_t>(v)];
    const double at = q > 0 ? std::min(std::max(-c / (2 * q), l), h) : (c > 0 ? l : h);
    others = std::isfinite(at) ? others + (q * at + c) * at : -kInfinity;
    top = std::isfinite(l) && std::isfinite(h) ? top + std::max((q * l + c) * l, (q * h + c) * h)
                                               : kInfinity;
  }
  for (const LogTerm& log : problem_.log_terms()) {
    if (!(log.weight > 0)) continue;
    double least = log.expr.constant, most = log.expr.constant;
    for (const Term& t : log.expr.terms) {
      most += t.coef > 0 ? t.coef * hi[t.var] : t.coef < 0 ? t.coef * lo[t.var] : 0.0;
      least += t.coef > 0 ? t.coef * lo[t.var] : t.coef < 0 ? t.coef * hi[t.var] : 0.0;
    }
    others -= log.weight * std::log(std::max(most, 0.0));
    top = least > 0 ? top - log.weight * std::log(least) : kInfinity;
  }
  others_lo_ = std::isnan(others) ? -kInfinity : Loosen(others, -1);
  others_hi_ = std::isnan(top) ? kInfinity : Loosen(top, 1);
  pair_lo_.assign(ps_.size(), -std::numeric_limits<float>::infinity());
  pair_hi_.assign(ps_.size(), std::numeric_limits<float>::infinity());
  // Every held pair is in a held demand block (an entry's, or a max-min copy) or is a global
  // pair (a min-max copy in a resource block).
  for (std::size_t b = 0; b < blocks_[1].size(); ++b) {
    if (!Held(1, static_cast<int>(b))) continue;
    for (const BlockVar& bv : blocks_[1][b].vars) {
      if (bv.pair < 0) continue;
      const std::size_t li = Local(bv.pair);
      const bool copy = bv.var < 0;
      pair_lo_[li] = Down(copy ? alpha_lo_ : lo[static_cast<std::size_t>(bv.var)]);
      pair_hi_[li] = Up(copy ? alpha_hi_ : hi[static_cast<std::size_t>(bv.var)]);
    }
  }
  for (int p : global_pairs_) {
    pair_lo_[Local(p)] = Down(alpha_lo_);
    pair_hi_[Local(p)] = Up(alpha_hi_);
  }
  box_revision_ = problem_.revision();
}

double AdmmEngine::BlockValue(const BlockProblem& bp, const double* v) {
  const std::size_t n = bp.lower.size();
  const SlotValues::View c = bp.linear.view(), q = bp.quadratic.view();
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += (q[i] * v[i] + c[i]) * v[i];
  for (const BlockLog& log : bp.logs) {
    double arg = log.constant;
    for (std::size_t k = 0; k < log.index.size(); ++k)
      arg += log.coef[k] * v[static_cast<std::size_t>(log.index[k])];
    if (!(arg > 0)) return -kInfinity;
    sum -= log.weight * std::log(arg);
  }
  return sum;
}

void AdmmEngine::AddBoundTerms(int p,
                               double x,
                               double xh,
                               double z_new,
                               double q_z,
                               bool x_is_alpha,
                               bool z_is_alpha,
                               Norms* acc) const {
  const PairState& q = Ps(p);
  const double w = Weight(p);
  // x minimises h_R(x) + y x exactly.
  const double y = PairMultiplier(p, x);
  if (x_is_alpha || z_is_alpha) acc->ysum += y;
  if (!x_is_alpha) acc->lag += y * x;
  if (z_is_alpha) return;  // alpha's term is exact (LagrangianBound)
  acc->lag -= y * z_new;
  // The demand side's reduced cost r = w u_new - y, and the least of r d + q d^2 over the
  // moves d that keep z in its box (q: the slot's curvature, a lower bound on h_D's).
  const double r = w * (xh - z_new - x + q.z);
  const std::size_t li = Local(p);
  const double d_lo = static_cast<double>(pair_lo_[li]) - z_new;
  const double d_hi = static_cast<double>(pair_hi_[li]) - z_new;
  if (q_z > 0) {
    const double d =
        std::min(std::max(-r / (2 * q_z), d_lo), d_hi);  // (no clamp: d_lo may pass d_hi)
    acc->lag += (r + q_z * d) * d;
  } else if (r > 0) {
    acc->lag += r * d_lo;
  } else if (r < 0) {
    acc->lag += r * d_hi;
  }
}

namespace {

// A lower bound on  min sum_j g_j v_j  subject to one row  sum_j a_j v_j (sense) rhs  (over the
// slots in `in_row`; row == nullptr: none) and  l <= v <= u:  the row's Lagrangian dual
//   phi(mu) = -mu rhs + sum_j min_{v_j in [l_j, u_j]} (g_j + mu a_j) v_j
// (mu >= 0 for <=, <= 0 for >=, free for =) at its best breakpoint. Every mu gives a valid
// bound (weak duality); phi is concave and piecewise linear, so a ternary search over the
// sorted breakpoints within the interval where phi is finite finds its maximum, the LP's value.
double SingleRowLpBound(const std::vector<double>& g,
                        const std::vector<double>& l,
                        const std::vector<double>& u,
                        const BlockRow* row) {
  const std::size_t n = g.size();
  const auto term = [](double coef, double lo, double hi) {
    if (coef > 0) return coef * lo;
    if (coef < 0) return coef * hi;
    return 0.0;
  };
  thread_local std::vector<double> a;
  a.assign(n, 0.0);
  if (row != nullptr) {
    for (std::size_t k = 0; k < row->index.size(); ++k)
      a[static_cast<std::size_t>(row->index[k])] = row->coef[k];
  }
  const auto phi = [&](double mu) {
    double sum = row != nullptr ? -mu * row->rhs : 0.0;
    for (std::size_t j = 0; j < n; ++j) {
      double coef = g[j] + mu * a[j];
      // (At an end of the finite interval a coefficient meant to be 0 may round to a tiny
      // one of the wrong sign: there phi is the limit from inside.)
      if (std::abs(coef) <= 1e-12 * (std::abs(g[j]) + std::abs(mu * a[j]))) coef = 0;
      sum += term(coef, l[j], u[j]);
    }
    return std::isnan(sum) ? -kInfinity : sum;
  };
  if (row == nullptr) return phi(0.0);
  // Where phi is finite: each unbounded side of a slot's box needs its coefficient's sign.
  double lo = row->sense == Sense::kGreaterEqual ? -kInfinity : 0.0;
  double hi = row->sense == Sense::kLessEqual ? kInfinity : 0.0;
  if (row->sense == Sense::kEqual) lo = -kInfinity, hi = kInfinity;
  if (row->sense == Sense::kLessEqual) lo = 0.0;
  if (row->sense == Sense::kGreaterEqual) hi = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    const bool need_nonneg = !std::isfinite(u[j]);  // g + mu a >= 0
    const bool need_nonpos = !std::isfinite(l[j]);  // g + mu a <= 0
    if (!need_nonneg && !need_nonpos) continue;
    if (a[j] == 0) {
      if ((need_nonneg && g[j] < 0) || (need_nonpos && g[j] > 0)) return -kInfinity;
      continue;
    }
    const double m = -g[j] / a[j];
    if (need_nonneg) (a[j] > 0 ? lo : hi) = a[j] > 0 ? std::max(lo, m) : std::min(hi, m);
    if (need_nonpos) (a[j] > 0 ? hi : lo) = a[j] > 0 ? std::min(hi, m) : std::max(lo, m);
  }
  if (!(lo <= hi)) return -kInfinity;
  thread_local std::vector<double> points;
  points.clear();
  for (std::size_t j = 0; j < n; ++j) {
    if (a[j] == 0) continue;
    const double m = -g[j] / a[j];
    if (m > lo && m < hi) points.push_back(m);
  }
  if (std::isfinite(lo)) points.push_back(lo);
  if (std::isfinite(hi)) points.push_back(hi);
  if (lo <= 0 && 0 <= hi) points.push_back(0.0);
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  if (points.empty()) return -kInfinity;
  std::size_t left = 0, right = points.size() - 1;
  while (right - left > 2) {
    const std::size_t m1 = left + (right - left) / 3, m2 = right - (right - left) / 3;
    if (phi(points[m1]) < phi(points[m2])) {
      left = m1 + 1;
    } else {
      right = m2;
    }
  }
  double best = -kInfinity;
  for (std::size_t k = left; k <= right; ++k) best = std::max(best, phi(points[k]));
  return best;
}

}  // namespace

void AdmmEngine::DemandBound(const Block& block,
                             const double* v,
                             const double* xh,
                             Norms* acc) const {
  const BlockProblem& bp = block.problem;
  const std::size_t n = block.vars.size();
  const bool linear = bp.logs.empty() && bp.rows.size() <= 1 && bp.quadratic.uniform() &&
                      bp.quadratic.value() == 0.0;
  if (!linear) {
    acc->lag += BlockValue(bp, v);
    for (std::size_t i = 0; i < n; ++i) {
      const int p = block.vars[i].pair;
      if (p < 0) continue;
      const std::uint32_t j = Side0Pos(p);
      const double x = j != kNoSlot ? side0_x_[j] : alpha_;
      AddBoundTerms(p, x, xh[i], v[i], bp.quadratic[i], j == kNoSlot, false, acc);
    }
    return;
  }
  // A linear program of at most one row: its exact least value at the multipliers, over the
  // block's bounds and the pairs' boxes, the images folded into their bases.
  thread_local std::vector<double> g, l, u;
  g.resize(n);
  l.resize(n);
  u.resize(n);
  const SlotValues::View c = bp.linear.view(), lower = bp.lower.view(), upper = bp.upper.view();
  for (std::size_t i = 0; i < n; ++i) {
    g[i] = c[i];
    l[i] = lower[i];
    u[i] = upper[i];
    const int p = block.vars[i].pair;
    if (p < 0) continue;
    const std::uint32_t j = Side0Pos(p);
    const double x = j != kNoSlot ? side0_x_[j] : alpha_;
    const double y = PairMultiplier(p, x);
    if (j == kNoSlot) {
      acc->ysum += y;
    } else {
      acc->lag += y * x;
    }
    g[i] -= y;
    const std::size_t li = Local(p);
    l[i] = std::max(l[i], static_cast<double>(pair_lo_[li]));
    u[i] = std::min(u[i], static_cast<double>(pair_hi_[li]));
  }
  double constant = 0;
  const BlockImages& im = bp.images;
  for (std::size_t k = 0; k < im.size(); ++k) {
    const auto s = static_cast<std::size_t>(im.slot[k]), b = static_cast<std::size_t>(im.base[k]);
    const double off = im.offset[k], sc = im.scale[k];
    g[b] += sc * g[s];
    constant += g[s] * off;
    const auto [from, to] = ImageBaseInterval(l[s], u[s], off, sc);
    l[b] = std::max(l[b], from);
    u[b] = std::min(u[b], to);
    g[s] = 0;
    l[s] = u[s] = 0;
  }
  acc->lag += constant + SingleRowLpBound(g, l, u, bp.rows.empty() ? nullptr : &bp.rows[0]);
}

void AdmmEngine::LagrangianBound() {
  // The demand blocks' parts and the global pairs' (in block order: the same sum whatever
  // the threads), the resource blocks' values (this process's, then every process's in rank
  // order), and alpha's term.
  double lag = 0, ysum = 0;
  for (const Norms& b : norms_) {
    lag += b.lag;
    ysum += b.ysum;
  }
  // With more than one process, each holds its own blocks' values and zeros elsewhere: merged
  // bitwise, every process sums every block's in block order, as one process does.
  if (executor_->processes() > 1) {
    const auto [first, last] = OwnBlocks(0);
    for (int b = 0; b < static_cast<int>(side0_value_.size()); ++b) {
      if (b < first || b >= last) side0_value_[static_cast<std::size_t>(b)] = 0.0;
    }
    executor_->MergeBits(side0_value_.data(), side0_value_.size() * sizeof(double));
  }
  for (double v : side0_value_) lag += v;
  last_lag_ = std::isnan(lag) ? -kInfinity : lag;
  last_alpha_coef_ = 0;
  if (global_side_ >= 0 && !global_pairs_.empty()) {
    const double w = problem_.global_term().weight;
    // Its objective's coefficient in the engine's sense plus its pairs' multipliers: max-min
    // puts alpha on the resource side (+y alpha), min-max on the demand side (-y alpha).
    // (Max-min: alpha's own step makes c zero but for rounding, which an unbounded box must
    // not turn into -inf.)
    double c = global_side_ == 1 ? -w + ysum : w - ysum;
    if (std::abs(c) <= 1e-12 * (std::abs(w) + std::abs(ysum))) c = 0;
    last_alpha_coef_ = c;
  }
}

// Alpha's term: the least of c alpha over alpha's box, which holds alpha at some optimum. Its
// far ends come from the expressions (ComputeBoxes), from a bound already proven and from an
// incumbent:
//  * a proven bound B (engine's sense) on the optimum OPT = w alpha* + g (min-max; g >= 0 the
//    other terms, at most others_hi_) gives alpha* >= (B - others_hi_) / w; max-min
//    (OPT = -w alpha* + g) gives alpha* <= (others_hi_ - B) / w. The bound this check gives,
//    lag + c alpha_end, is itself such a B: the end it sets and the bound it gives meet at a
//    fixed point (the limit of valid bounds, so valid), in closed form below (|c| < w);
//  * an incumbent of value F (engine's sense) gives alpha* <= (F - others_lo_) / w (min-max) or
//    alpha* >= (others_lo_ - F) / w (max-min).
double AdmmEngine::CheckBound(double lag, double c, double prior, double incumbent) const {
  if (global_side_ < 0 || global_pairs_.empty()) return lag;
  const double w = problem_.global_term().weight;
  double lo = alpha_lo_, hi = alpha_hi_;
  if (w > 0 && std::isfinite(incumbent) && std::isfinite(others_lo_)) {
    // (Loosened by 10 x the feasibility tolerance: the incumbent is feasible within it.)
    const double margin = 10 * options_.feasibility_tolerance;
    const double f = InternalBound(incumbent);
    if (global_side_ == 1) {  // max-min
      const double b = (others_lo_ - f) / w;
      lo = std::max(lo, b - margin * (1 + std::abs(b)));
    } else {
      const double b = (f - others_lo_) / w;
      hi = std::min(hi, b + margin * (1 + std::abs(b)));
    }
  }
  if (w > 0 && std::isfinite(others_hi_) && std::isfinite(lag)) {
    const double g = others_hi_;
    if (global_side_ == 0 && c > 0) {  // min-max: alpha's lower end
      double b = std::isfinite(prior) ? (prior - g) / w : -kInfinity;
      if (c < w) b = std::max(b, ((lag - c * g / w) / (1 - c / w) - g) / w);
      lo = std::max(lo, Loosen(b, -1));
    } else if (global_side_ == 1 && c < 0) {  // max-min: alpha's upper end
      double b = std::isfinite(prior) ? (g - prior) / w : kInfinity;
      if (-c < w) b = std::min(b, (g - (lag + c * g / w) / (1 + c / w)) / w);
      hi = std::min(hi, Loosen(b, 1));
    }
  }
  if (!(lo <= hi)) return -kInfinity;  // (an incumbent that is not feasible after all)
  const double term = c > 0 ? c * lo : c < 0 ? c * hi : 0.0;
  return std::isnan(lag + term) ? -kInfinity : lag + term;
}

// Every check's bound again, alpha's box narrowed by the incumbent (user's sense).
double AdmmEngine::BoundWithIncumbent(const SolveRun& run, double incumbent) const {
  double best = run.best_bound;
  for (const auto& [lag, c] : run.checks)
    best = std::max(best, CheckBound(lag, c, best, incumbent));
  return best;
}

double AdmmEngine::UserBound(double internal) const {
  const bool max = problem_.objective_sense() == ObjectiveSense::kMaximize;
  return (max ? -internal : internal) + problem_.objective_constant();
}

double AdmmEngine::InternalBound(double user) const {
  const bool max = problem_.objective_sense() == ObjectiveSense::kMaximize;
  const double v = user - problem_.objective_constant();
  return max ? -v : v;
}

double AdmmEngine::CertifiedGap(double objective, double bound) const {
  return dede::CertifiedGap(problem_.objective_sense(), objective, bound);
}

double AdmmEngine::TrialGap(const SolveRun& run) {
  std::vector<double> values;
  GatherValues(&values, options_.final_iterate == FinalIterate::kResourceSide ? 0 : 1);
  if (!RepairedTrial(&values, /*host=*/true)) return std::numeric_limits<double>::quiet_NaN();
  const double objective = Objective(values);
  return CertifiedGap(objective, UserBound(BoundWithIncumbent(run, objective)));
}

bool AdmmEngine::RepairedTrial(std::vector<double>* values, bool host) {
  int rounds = 0;
  std::string message;
  // As the round repairs: the engine's repair (unless off), then (host) the host's.
  if (options_.repair && !Repair(values, &rounds, &message)) return false;
  if (host && repairer_ && !repairer_(values)) return false;
  return MeasureViolation(*values).Max() <= options_.feasibility_tolerance;
}

// The trials repair as the solve's own end does (the engine's repair, not the host's, which
// the round applies to whichever allocation is returned: a traffic engineering polish of 200
// sweeps per trial took a fifth of the iterations of a Kdl round), so the best trial and the
// final allocation are measured alike.
void AdmmEngine::TrackBest(SolveRun* run, int k) {
  if (!run->track_best || k < run->next_best_trial) return;
  run->next_best_trial = NextTrial(k);
  std::vector<double> values;
  GatherValues(&values, options_.final_iterate == FinalIterate::kResourceSide ? 0 : 1);
  if (!RepairedTrial(&values, /*host=*/false)) return;
  const double objective = Objective(values);
  if (!run->best_values.empty() && !Better(objective, run->best_objective)) return;
  run->best_values = std::move(values);
  run->best_objective = objective;
  run->best_iteration = k;
}

bool AdmmEngine::Better(double a, double b) const {
  return problem_.objective_sense() == ObjectiveSense::kMaximize ? a > b : a < b;
}

bool AdmmEngine::ReturnBest(SolveRun* run, std::vector<double>* values) {
  if (run->best_values.empty()) return false;
  std::ostringstream out;
  out.precision(6);
  out << " Returned the repaired iterate of iteration " << run->best_iteration << " (objective "
      << run->best_objective << ")";
  if (MeasureViolation(*values).Max() <= options_.feasibility_tolerance) {
    const double final_objective = Objective(*values);
    // Better by more than rounding: a converged solve keeps its own allocation.
    const double margin = 1e-9 * std::max(1.0, std::abs(final_objective));
    if (!Better(run->best_objective, final_objective) ||
        std::abs(run->best_objective - final_objective) <= margin) {
      return false;
    }
    out << ", better than the last one's " << final_objective << ".";
  } else {
    out << ": the last one did not repair to a feasible allocation.";
  }
  run->fill_message += out.str();
  *values = std::move(run->best_values);
  run->best_values.clear();
  return true;
}

}  // namespace dede::internal
