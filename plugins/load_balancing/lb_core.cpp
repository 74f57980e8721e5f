// load_balancing core. See lb_core.h and README.md.
#include "lb_core.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <thread>

#include "dede/stopwatch.h"
#include "lb_band.h"

namespace dede::lb {
namespace {

using Clock = dede::SteadyClock;
using dede::SecondsSince;

using band::BandNetwork;
using band::BuildNetwork;
using band::Contains;
using band::IsAllowed;
using band::MaxFlow;

}  // namespace

double Instance::Total() const { return std::accumulate(load.begin(), load.end(), 0.0); }

ServerSets Placement::Servers() const {
  ServerSets out(shares.size());
  for (std::size_t k = 0; k < shares.size(); ++k) {
    for (const auto& [s, f] : shares[k])
      if (f > 0) out[k].push_back(s);
    std::sort(out[k].begin(), out[k].end());
    out[k].erase(std::unique(out[k].begin(), out[k].end()), out[k].end());
  }
  return out;
}

ServerSets InitialPlacement(int servers, int shards) {
  ServerSets out(shards);
  for (int k = 0; k < shards; ++k) out[k] = {k % servers};
  return out;
}

Check Evaluate(const Instance& in, const ServerSets& current, const Placement& placement) {
  Check c;
  const int S = in.servers, K = in.shards();
  c.low = in.Low();
  c.high = in.High();
  std::vector<double> L(S, 0.0);
  std::vector<int> count(S, 0);
  bool ok = static_cast<int>(placement.shares.size()) == K;
  if (!ok) c.why = "placement has " + std::to_string(placement.shares.size()) + " shards";
  for (int k = 0; ok && k < K; ++k) {
    double sum = 0;
    std::vector<int> seen;
    for (const auto& [s, f] : placement.shares[k]) {
      if (s < 0 || s >= S || !(f >= 0) || f > 1 + 1e-9) {
        ok = false;
        c.why = "shard " + std::to_string(k) + ": bad share";
        break;
      }
      if (f <= 0) continue;
      seen.push_back(s);
      sum += f;
      L[s] += f * in.load[k];
    }
    std::sort(seen.begin(), seen.end());
    if (std::adjacent_find(seen.begin(), seen.end()) != seen.end()) {
      ok = false;
      c.why = "shard " + std::to_string(k) + ": server listed twice";
    }
    for (int s : seen) {
      ++count[s];
      if (k >= static_cast<int>(current.size()) || !Contains(current[k], s)) c.movements += 1;
    }
    if (ok && std::abs(sum - 1) > 1e-6) {
      ok = false;
      c.why = "shard " + std::to_string(k) + " placed " + std::to_string(sum);
    }
  }
  if (S > 0) {
    c.max_load = *std::max_element(L.begin(), L.end());
    c.min_load = *std::min_element(L.begin(), L.end());
    c.max_shards = *std::max_element(count.begin(), count.end());
  }
  const double tol_hi = 1e-6 * std::max(1.0, c.high), tol_lo = 1e-6 * std::max(1.0, c.low);
  if (ok && c.max_load > c.high + tol_hi) {
    ok = false;
    c.why = "max load above the band";
  }
  if (ok && c.min_load < c.low - tol_lo) {
    ok = false;
    c.why = "min load below the band";
  }
  if (ok && c.max_shards > in.memory_limit) {
    ok = false;
    c.why = "memory limit exceeded";
  }
  c.feasible = ok;
  return c;
}

namespace {

// Candidate pairs across the min cut of the current placement's network: stuck shards (source
// side) to the least-loaded starved servers, and starved servers to the hottest stuck shards,
// added to the current pairs (sorted unique). *count: the current pairs per server.
ServerSets CandidatePairs(const Instance& in,
                          const ServerSets& current,
                          const Allowed& allowed,
                          const DedeOptions& opt,
                          const BandNetwork& net,
                          std::vector<int>* count) {
  const int S = in.servers, K = in.shards();
  const std::vector<char> side = net.SourceSide();
  const std::vector<double> L = net.ServerLoads();
  std::vector<int> starved, stuck;
  count->assign(S, 0);
  for (int k = 0; k < K; ++k)
    for (int s : current[k]) ++(*count)[s];
  for (int s = 0; s < S; ++s)
    if (!side[net.Server(s)] && (*count)[s] < in.memory_limit) starved.push_back(s);
  for (int k = 0; k < K; ++k)
    if (side[net.Shard(k)] && in.load[k] > 0) stuck.push_back(k);
  std::sort(starved.begin(), starved.end(), [&](int a, int b) { return L[a] < L[b]; });
  std::sort(stuck.begin(), stuck.end(), [&](int a, int b) { return in.load[a] > in.load[b]; });
  ServerSets cand = current;
  for (int k : stuck) {
    int n = 0;
    for (int s : starved) {
      if (n >= opt.candidates_per_shard) break;
      if (IsAllowed(allowed, k, s) && !Contains(current[k], s)) {
        cand[k].push_back(s);
        ++n;
      }
    }
  }
  for (int s : starved) {
    int n = 0;
    for (int k : stuck) {
      if (n >= opt.candidates_per_server) break;
      if (IsAllowed(allowed, k, s) && !Contains(current[k], s)) {
        cand[k].push_back(s);
        ++n;
      }
    }
  }
  for (int k = 0; k < K; ++k) {
    std::sort(cand[k].begin(), cand[k].end());
    cand[k].erase(std::unique(cand[k].begin(), cand[k].end()), cand[k].end());
  }
  return cand;
}

// The relaxation over the candidate pairs as a separable problem: x[s,k] in [0, 1] is the
// fraction of shard k served by server s; server block s keeps its load in the band, shard
// block k places the whole shard (sum over s = 1); a new pair costs its fraction. Pair e is
// (ps[e], pk[e]), variable var[e].
struct Relaxation {
  Relaxation(const Instance& in, const ServerSets& current, const ServerSets& cand);
  Problem problem;
  std::vector<int> ps, pk;
  std::vector<VarId> var;
  std::vector<double> cost;
  std::vector<std::vector<int>> by_shard;  // the pairs of each shard
  int pairs() const { return static_cast<int>(ps.size()); }
};

Relaxation::Relaxation(const Instance& in, const ServerSets& current, const ServerSets& cand)
    : problem(in.servers, in.shards()), by_shard(in.shards()) {
  const int S = in.servers, K = in.shards();
  const int m = problem.AddAllocation("x", Domain::Box(0.0, 1.0));
  std::vector<LinearExpr> band(S), place(K);
  for (int k = 0; k < K; ++k) {
    for (int s : cand[k]) {
      const int e = static_cast<int>(ps.size());
      ps.push_back(s);
      pk.push_back(k);
      const VarId v = problem.AddEntry(m, s, k);
      var.push_back(v);
      cost.push_back(Contains(current[k], s) ? 0.0 : 1.0);
      if (cost.back() > 0) problem.AddLinearCost(v, cost.back());
      band[s].Add(v, in.load[k]);
      place[k].Add(v, 1.0);
      by_shard[k].push_back(e);
    }
  }
  for (int s = 0; s < S; ++s) {
    if (band[s].terms.empty()) continue;
    problem.AddResourceConstraint(s, band[s], Sense::kGreaterEqual, in.Low());
    problem.AddResourceConstraint(s, band[s], Sense::kLessEqual, in.High());
  }
  for (int k = 0; k < K; ++k) {
    if (!place[k].terms.empty()) problem.AddDemandConstraint(k, place[k], Sense::kEqual, 1.0);
  }
  problem.SetObjectiveSense(ObjectiveSense::kMinimize);
}

// The ADMM's start: the best-effort split of the current placement, the rest of a stuck shard
// spread over its candidates.
Allocation StartFromSplit(const Instance& in, const BandNetwork& net, const Relaxation& r) {
  Allocation z;
  z.values.assign(r.problem.num_variables(), 0.0);
  std::vector<double> pf(r.pairs(), 0.0);
  for (const auto& p : net.pairs()) {
    for (int e : r.by_shard[p.k])
      if (r.ps[e] == p.s) pf[e] = in.load[p.k] > 0 ? net.PairFlow(p) / in.load[p.k] : 0;
  }
  for (int k = 0; k < in.shards(); ++k) {
    double sum = 0;
    for (int e : r.by_shard[k]) sum += pf[e];
    const double rest = std::max(0.0, 1 - sum) / std::max<std::size_t>(1, r.by_shard[k].size());
    for (int e : r.by_shard[k]) z.values[r.var[e]] = pf[e] + rest;
  }
  return z;
}

// The framework's ADMM: the deployment's settings (threads, penalty rules), this method's
// iteration cap, penalty and tolerance (rms residuals below eps), half the time budget left
// since t0, no framework repair (the rounding and the flow repair make the placement
// feasible), the shard-side iterate (on the simplex) for the rounding.
AdmmOptions RelaxationOptions(const DedeOptions& opt, Clock::time_point t0) {
  AdmmOptions admm = opt.admm_options;
  admm.max_iterations = opt.max_iterations;
  admm.rho = opt.rho;
  admm.eps_abs = opt.eps;
  admm.eps_rel = 0;
  admm.repair = false;
  admm.final_iterate = FinalIterate::kDemandSide;
  admm.fill_after_max_min = false;
  admm.time_limit_seconds = std::max(0.0, 0.5 * opt.time_limit_seconds - SecondsSince(t0));
  return admm;
}

// Rounding: keeps every current pair, and opens into *start the new pairs whose relaxed share
// z exceeds the threshold (largest first) where the server has memory room (*count).
void OpenRoundedPairs(const Instance& in,
                      const Relaxation& r,
                      const Allocation& z,
                      double threshold,
                      std::vector<int>* count,
                      ServerSets* start,
                      int* opened) {
  std::vector<int> order;
  for (int e = 0; e < r.pairs(); ++e)
    if (r.cost[e] > 0 && z.values[r.var[e]] > threshold) order.push_back(e);
  std::sort(order.begin(), order.end(), [&](int p, int q) {
    return z.values[r.var[p]] * in.load[r.pk[p]] > z.values[r.var[q]] * in.load[r.pk[q]];
  });
  for (int e : order) {
    if ((*count)[r.ps[e]] >= in.memory_limit) continue;
    (*start)[r.pk[e]].push_back(r.ps[e]);
    ++(*count)[r.ps[e]];
    ++*opened;
  }
}

}  // namespace

Status SolveDede(const Instance& in,
                 const ServerSets& current,
                 const Allowed& allowed,
                 const DedeOptions& opt,
                 Placement* placement,
                 DedeStats* stats) {
  const Clock::time_point t0 = Clock::now();
  DedeStats local;
  DedeStats& st = stats ? *stats : local;
  st = DedeStats();
  const int K = in.shards();
  if (static_cast<int>(current.size()) != K)
    return InvalidArgument("load_balancing: current placement has " +
                           std::to_string(current.size()) + " shards, instance " +
                           std::to_string(K));
  // The current placement's flow network: feasible means no movement is needed.
  auto net = BuildNetwork(in, current, in.Low(), in.High());
  st.current_feasible = net->Feasible();
  ServerSets start = current;
  if (!st.current_feasible && opt.use_admm && opt.max_iterations > 0) {
    if (!opt.admm)
      return FailedPrecondition("load_balancing: the dede method needs the host's ADMM solver");
    std::vector<int> count;
    const Relaxation relaxation(
        in, current, CandidatePairs(in, current, allowed, opt, *net, &count));
    st.candidate_pairs = relaxation.pairs();
    Allocation z = StartFromSplit(in, *net, relaxation);
    const AdmmOptions admm = RelaxationOptions(opt, t0);
    const Clock::time_point ta = Clock::now();
    SolveSummary summary;
    Status solved = opt.admm(relaxation.problem, admm, &z, &summary);
    if (!solved.ok()) return solved;
    st.admm_iterations = std::max(0, summary.iterations);
    st.admm_seconds = SecondsSince(ta);
    if (!summary.IsSolutionUsable()) st.message = "ADMM: " + summary.message;
    OpenRoundedPairs(in, relaxation, z, opt.open_threshold, &count, &start, &st.opened);
  }
  const Clock::time_point tr = Clock::now();
  Status status = RepairPlacement(in,
                                  current,
                                  start,
                                  allowed,
                                  /*prune=*/true,
                                  opt.keep_alive,
                                  opt.keep_reserve,
                                  placement,
                                  &st.added,
                                  &st.pruned);
  st.repair_seconds = SecondsSince(tr);
  st.total_seconds = SecondsSince(t0);
  return status;
}

Status SolveGreedy(const Instance& in,
                   const ServerSets& current,
                   const Allowed& allowed,
                   Placement* placement) {
  const int S = in.servers, K = in.shards();
  const double avg = in.Total() / S, delta = avg / 20;
  std::vector<int> home(K), count(S, 0);
  std::vector<double> L(S, 0.0);
  std::vector<std::vector<int>> on(S);
  for (int k = 0; k < K; ++k) {
    home[k] = current[k].empty() ? k % S : current[k][0];
    L[home[k]] += in.load[k];
    on[home[k]].push_back(k);
    ++count[home[k]];
  }
  // Always the current extremes (POP's priority queues are not re-keyed; we take the intended
  // semantics). A server is visited once as the overloaded one.
  std::vector<char> done(S, 0);
  for (;;) {
    int o = -1;
    for (int s = 0; s < S; ++s)
      if (!done[s] && (o < 0 || L[s] > L[o])) o = s;
    if (o < 0 || L[o] <= avg + delta) break;
    done[o] = 1;
    std::vector<int> cands = on[o];
    std::sort(cands.begin(), cands.end(), [&](int p, int q) { return in.load[p] > in.load[q]; });
    for (int k : cands) {
      if (L[o] <= avg + delta) break;
      if (in.load[k] <= 0) continue;
      // The least-loaded server with memory room (POP's greedy has no memory limit; without
      // this the repair could not place the result under a tight limit).
      int u = -1;
      for (int s = 0; s < S; ++s)
        if (s != o && count[s] < in.memory_limit && (u < 0 || L[s] < L[u])) u = s;
      if (u < 0 || !IsAllowed(allowed, k, u)) continue;
      if (L[u] + in.load[k] <= avg + delta) {
        L[u] += in.load[k];
        L[o] -= in.load[k];
        --count[o];
        ++count[u];
        home[k] = u;
      }
    }
  }
  ServerSets start(K);
  for (int k = 0; k < K; ++k) start[k] = {home[k]};
  return RepairPlacement(in,
                         current,
                         start,
                         allowed,
                         /*prune=*/false,
                         /*keep_alive=*/false,
                         0,
                         placement,
                         nullptr,
                         nullptr);
}

Status SolvePop(const Instance& in,
                const ServerSets& current,
                int groups,
                const GroupSolver& solve_group,
                Placement* placement) {
  const int S = in.servers, K = in.shards();
  if (groups < 1 || S % groups != 0)
    return InvalidArgument("load_balancing POP-" + std::to_string(groups) + ": servers (" +
                           std::to_string(S) + ") must be a multiple of k");
  const int per = S / groups;
  const double target = in.Total() / groups;
  std::vector<double> rest = in.load;
  // part[g]: (shard, load taken by group g)
  std::vector<std::vector<std::pair<int, double>>> part(groups);
  std::vector<double> got(groups, 0.0);
  auto take = [&](int g, int k, bool all) {
    const double want = all ? rest[k] : std::min(rest[k], target - got[g]);
    if (want <= 0) return;
    part[g].push_back({k, want});
    got[g] += want;
    rest[k] -= want;
    if (rest[k] < 1e-12 * std::max(1.0, in.load[k])) rest[k] = 0;
  };
  const double tol = 1e-12 * std::max(1.0, target);
  for (int g = 0; g < groups; ++g) {
    std::vector<int> mine;
    for (int k = 0; k < K; ++k)
      for (int s : current[k])
        if (s / per == g) {
          mine.push_back(k);
          break;
        }
    std::sort(mine.begin(), mine.end(), [&](int p, int q) { return in.load[p] < in.load[q]; });
    for (int k : mine) {
      if (got[g] >= target - tol) break;
      if (rest[k] > 0) take(g, k, false);
    }
  }
  for (int g = 0; g < groups; ++g)
    for (int k = 0; k < K && got[g] < target - tol; ++k)
      if (rest[k] > 0) take(g, k, false);
  // Rounding leftovers go to the group with the least load.
  for (int k = 0; k < K; ++k)
    if (rest[k] > 0)
      take(static_cast<int>(std::min_element(got.begin(), got.end()) - got.begin()), k, true);
  // Zero-load shards stay with the group of their first current server.
  for (int k = 0; k < K; ++k)
    if (in.load[k] <= 0) {
      const int g = (current[k].empty() ? k % S : current[k][0]) / per;
      part[g].push_back({k, 0.0});
    }
  placement->shares.assign(K, {});
  for (int g = 0; g < groups; ++g) {
    Instance sub;
    sub.servers = per;
    sub.epsilon = in.epsilon;
    sub.memory_limit = in.memory_limit;
    ServerSets cur_local;
    for (const auto& [k, l] : part[g]) {
      sub.load.push_back(l);
      std::vector<int> local;
      for (int s : current[k])
        if (s / per == g) local.push_back(s - g * per);
      cur_local.push_back(local);
    }
    Placement local;
    Status status = solve_group(sub, cur_local, &local);
    if (!status.ok()) return status;
    for (std::size_t j = 0; j < part[g].size(); ++j) {
      const auto [k, l] = part[g][j];
      const double weight = in.load[k] > 0 ? l / in.load[k] : 1.0;
      for (const auto& [s, f] : local.shares[j]) {
        auto& sh = placement->shares[k];
        const int server = s + g * per;  // (a structured binding is not captured by clang 14)
        auto it =
            std::find_if(sh.begin(), sh.end(), [&](const auto& p) { return p.first == server; });
        if (it == sh.end())
          sh.push_back({server, f * weight});
        else
          it->second += f * weight;
      }
    }
  }
  return Status::Ok();
}

}  // namespace dede::lb
