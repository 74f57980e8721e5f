// load_balancing core. See lb_core.h and README.md.
#include "lb_core.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <thread>

#include "dede/stopwatch.h"

namespace dede::lb {
namespace {

using Clock = dede::SteadyClock;
using dede::SecondsSince;

// Dinic's max flow on doubles. Capacities below kFlowTol count as zero.
class MaxFlow {
 public:
  explicit MaxFlow(int n) : adj_(n), level_(n), it_(n) {}
  int AddEdge(int u, int v, double cap) {
    adj_[u].push_back(static_cast<int>(to_.size()));
    to_.push_back(v);
    cap_.push_back(cap);
    adj_[v].push_back(static_cast<int>(to_.size()));
    to_.push_back(u);
    cap_.push_back(0.0);
    return static_cast<int>(to_.size()) - 2;
  }
  // Augments from the current flow; returns the flow added.
  double Run(int s, int t) {
    double total = 0;
    while (Bfs(s, t)) {
      std::fill(it_.begin(), it_.end(), 0);
      for (double f; (f = Dfs(s, t, std::numeric_limits<double>::infinity())) > kFlowTol;)
        total += f;
    }
    return total;
  }
  double Flow(int e) const { return cap_[e ^ 1]; }  // forward edges have even ids
  double Residual(int e) const { return cap_[e]; }
  // Nodes reachable from s in the residual graph (the source side of a minimum cut).
  std::vector<char> SourceSide(int s) const {
    std::vector<char> seen(adj_.size(), 0);
    std::vector<int> stack = {s};
    seen[s] = 1;
    while (!stack.empty()) {
      const int u = stack.back();
      stack.pop_back();
      for (int e : adj_[u])
        if (cap_[e] > kFlowTol && !seen[to_[e]]) {
          seen[to_[e]] = 1;
          stack.push_back(to_[e]);
        }
    }
    return seen;
  }
  static constexpr double kFlowTol = 1e-11;

 private:
  bool Bfs(int s, int t) {
    std::fill(level_.begin(), level_.end(), -1);
    std::vector<int> queue = {s};
    level_[s] = 0;
    for (std::size_t i = 0; i < queue.size(); ++i) {
      const int u = queue[i];
      for (int e : adj_[u])
        if (cap_[e] > kFlowTol && level_[to_[e]] < 0) {
          level_[to_[e]] = level_[u] + 1;
          queue.push_back(to_[e]);
        }
    }
    return level_[t] >= 0;
  }
  double Dfs(int u, int t, double f) {
    if (u == t) return f;
    for (int& i = it_[u]; i < static_cast<int>(adj_[u].size()); ++i) {
      const int e = adj_[u][i];
      const int v = to_[e];
      if (cap_[e] <= kFlowTol || level_[v] != level_[u] + 1) continue;
      const double d = Dfs(v, t, std::min(f, cap_[e]));
      if (d > kFlowTol) {
        cap_[e] -= d;
        cap_[e ^ 1] += d;
        return d;
      }
    }
    return 0;
  }
  std::vector<std::vector<int>> adj_;
  std::vector<int> to_;
  std::vector<double> cap_;
  std::vector<int> level_, it_;
};

// The band as a circulation with lower bounds: shard k must send load_k, server s must
// receive within [lo, hi]. Lower bounds are removed the standard way (excesses to a super
// source SS and super sink TT); the band is feasible iff the max flow SS -> TT saturates.
class BandNetwork {
 public:
  BandNetwork(const Instance& in, double lo, double hi)
      : in_(in), K_(in.shards()), S_(in.servers), net_(4 + K_ + S_) {
    double total = 0;
    for (int k = 0; k < K_; ++k) {
      if (in.load[k] > 0) net_.AddEdge(kSS, Shard(k), in.load[k]);
      total += in.load[k];
    }
    server_edge_.resize(S_);
    for (int s = 0; s < S_; ++s) {
      net_.AddEdge(Server(s), kT0, std::max(0.0, hi - lo));
      server_edge_[s] = net_.AddEdge(Server(s), kTT, lo);
    }
    net_.AddEdge(kSS, kT0, S_ * lo);
    net_.AddEdge(kT0, kS0, std::numeric_limits<double>::infinity());
    net_.AddEdge(kS0, kTT, total);
    required_ = total + S_ * lo;
  }
  int AddPair(int k, int s) {
    const int e = net_.AddEdge(Shard(k), Server(s), std::max(in_.load[k], 0.0));
    pairs_.push_back({k, s, e});
    return e;
  }
  bool Solve() {
    flow_ += net_.Run(kSS, kTT);
    return Feasible();
  }
  bool Feasible() const { return flow_ >= required_ - 1e-9 * std::max(1.0, required_); }
  double Deficit() const { return required_ - flow_; }
  // Load received by each server.
  std::vector<double> ServerLoads() const {
    std::vector<double> L(S_, 0.0);
    for (const Pair& p : pairs_) L[p.s] += net_.Flow(p.e);
    return L;
  }
  std::vector<char> SourceSide() const { return net_.SourceSide(kSS); }
  int Shard(int k) const { return 4 + k; }
  int Server(int s) const { return 4 + K_ + s; }
  struct Pair {
    int k, s, e;
  };
  const std::vector<Pair>& pairs() const { return pairs_; }
  double PairFlow(const Pair& p) const { return net_.Flow(p.e); }

 private:
  static constexpr int kSS = 0, kTT = 1, kS0 = 2, kT0 = 3;
  const Instance& in_;
  int K_, S_;
  MaxFlow net_;
  std::vector<int> server_edge_;
  std::vector<Pair> pairs_;
  double flow_ = 0, required_ = 0;
};

bool IsAllowed(const Allowed& allowed, int k, int s) {
  if (allowed.empty() || allowed[k].empty()) return true;
  return std::binary_search(allowed[k].begin(), allowed[k].end(), s);
}

bool Contains(const std::vector<int>& sorted, int v) {
  return std::binary_search(sorted.begin(), sorted.end(), v);
}

// Pairs per shard (sorted unique) -> a network with those pairs, solved.
std::unique_ptr<BandNetwork> BuildNetwork(const Instance& in,
                                          const ServerSets& pairs,
                                          double lo,
                                          double hi) {
  auto net = std::make_unique<BandNetwork>(in, lo, hi);
  for (int k = 0; k < in.shards(); ++k)
    for (int s : pairs[k]) net->AddPair(k, s);
  net->Solve();
  return net;
}

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

Status RepairPlacement(const Instance& in,
                       const ServerSets& current,
                       const ServerSets& start,
                       const Allowed& allowed,
                       bool prune,
                       bool keep_alive,
                       int keep_reserve,
                       Placement* placement,
                       int* added,
                       int* pruned) {
  const int S = in.servers, K = in.shards();
  const double lo = in.Low(), hi = in.High();
  if (added) *added = 0;
  if (pruned) *pruned = 0;
  ServerSets pairs(K);
  std::vector<int> count(S, 0);
  for (int k = 0; k < K; ++k) {
    pairs[k] = start[k];
    std::sort(pairs[k].begin(), pairs[k].end());
    pairs[k].erase(std::unique(pairs[k].begin(), pairs[k].end()), pairs[k].end());
    if (pairs[k].empty() && in.load[k] <= 0) {  // a shard without load still needs a home
      int home = k % S;
      if (k < static_cast<int>(current.size()) && !current[k].empty()) home = current[k][0];
      pairs[k] = {home};
    }
    for (int s : pairs[k]) ++count[s];
  }
  // Memory: a start above the limit (a heuristic's) drops its pairs that are not current first.
  for (int s = 0; s < S; ++s) {
    for (int k = 0; k < K && count[s] > in.memory_limit; ++k) {
      if (pairs[k].size() > 1 && Contains(pairs[k], s) && !Contains(current[k], s)) {
        pairs[k].erase(std::find(pairs[k].begin(), pairs[k].end(), s));
        --count[s];
      }
    }
  }
  // 1. Open pairs across the minimum cut until the band admits a split.
  auto net = BuildNetwork(in, pairs, lo, hi);
  std::vector<std::pair<int, int>> opened;  // (shard, server) opened by this loop: never dropped
  for (int guard = 0; !net->Feasible() && guard < 4 * K + S; ++guard) {
    const std::vector<char> side = net->SourceSide();
    const std::vector<double> L = net->ServerLoads();
    std::vector<int> starved, stuck;
    for (int s = 0; s < S; ++s)
      if (!side[net->Server(s)] && count[s] < in.memory_limit) starved.push_back(s);
    for (int k = 0; k < K; ++k)
      if (side[net->Shard(k)] && in.load[k] > 0) stuck.push_back(k);
    // A pair from a stuck shard to a sink-side server crosses the cut. A shard without any
    // pair is stuck with every server on its side: it goes to the least-loaded server.
    std::sort(starved.begin(), starved.end(), [&](int a, int b) { return L[a] < L[b]; });
    std::sort(stuck.begin(), stuck.end(), [&](int a, int b) { return in.load[a] > in.load[b]; });
    int bk = -1, bs = -1;
    for (int s : starved) {
      for (int k : stuck)
        if (!Contains(pairs[k], s) && IsAllowed(allowed, k, s)) {
          bk = k;
          bs = s;
          break;
        }
      if (bk >= 0) break;
    }
    for (int k : stuck) {
      if (bk >= 0) break;
      if (!pairs[k].empty()) continue;
      for (int s = 0; s < S; ++s)
        if (count[s] < in.memory_limit && IsAllowed(allowed, k, s) && (bs < 0 || L[s] < L[bs]))
          bs = s;
      if (bs >= 0) bk = k;
    }
    if (bk < 0) {
      // Memory is full where pairs could go: free the slots of pairs that are not current and
      // carry no flow (opened by the rounding, not used by the split), then try again.
      int freed = 0;
      for (const auto& p : net->pairs()) {
        if (net->PairFlow(p) > MaxFlow::kFlowTol || Contains(current[p.k], p.s) ||
            pairs[p.k].size() <= 1)
          continue;
        pairs[p.k].erase(std::find(pairs[p.k].begin(), pairs[p.k].end(), p.s));
        --count[p.s];
        ++freed;
      }
      if (freed == 0) {
        // Still full: make room on the least-loaded full server across the cut, by dropping
        // its copy of a shard that has another copy (least flow first; free), else by moving
        // its smallest single-copy shard to the least-loaded server with room (a movement).
        int from = -1;
        for (int s = 0; s < S; ++s)
          if (!side[net->Server(s)] && count[s] >= in.memory_limit && (from < 0 || L[s] < L[from]))
            from = s;
        if (from < 0) {
          return Internal(
              "load_balancing repair: no pair can be opened across the min cut (deficit " +
              std::to_string(net->Deficit()) + "); memory or candidate sets too tight");
        }
        int drop = -1, single = -1;
        double drop_flow = 0;
        for (const auto& p : net->pairs()) {
          if (p.s != from) continue;
          if (pairs[p.k].size() > 1) {
            if (std::find(opened.begin(), opened.end(), std::make_pair(p.k, p.s)) != opened.end())
              continue;
            if (drop < 0 || net->PairFlow(p) < drop_flow) {
              drop = p.k;
              drop_flow = net->PairFlow(p);
            }
          } else if (single < 0 || in.load[p.k] < in.load[single]) {
            single = p.k;
          }
        }
        if (drop >= 0) {
          pairs[drop].erase(std::find(pairs[drop].begin(), pairs[drop].end(), from));
          --count[from];
        } else {
          int to = -1;
          for (int s = 0; s < S; ++s)
            if (s != from && count[s] < in.memory_limit && single >= 0 &&
                IsAllowed(allowed, single, s) && (to < 0 || L[s] < L[to]))
              to = s;
          if (to < 0) {
            return Internal("load_balancing repair: no room on any server (deficit " +
                            std::to_string(net->Deficit()) +
                            "); memory or candidate sets too tight");
          }
          pairs[single] = {to};
          --count[from];
          ++count[to];
          if (added) ++*added;
        }
      }
      net = BuildNetwork(in, pairs, lo, hi);
      continue;
    }
    pairs[bk].insert(std::lower_bound(pairs[bk].begin(), pairs[bk].end(), bs), bs);
    ++count[bs];
    opened.push_back({bk, bs});
    net->AddPair(bk, bs);
    net->Solve();
    if (added) ++*added;
  }
  if (!net->Feasible()) return Internal("load_balancing repair: no feasible split found");
  // 2. Prune pairs that are new (not in current) and not needed, smallest flow first.
  if (prune) {
    std::vector<std::pair<double, std::pair<int, int>>> fresh;
    for (const auto& p : net->pairs())
      if (!Contains(current[p.k], p.s)) fresh.push_back({net->PairFlow(p), {p.k, p.s}});
    std::sort(fresh.begin(), fresh.end());
    for (const auto& [flow, ks] : fresh) {
      (void)flow;
      const auto [k, s] = ks;
      if (pairs[k].size() <= 1) continue;
      auto it = std::find(pairs[k].begin(), pairs[k].end(), s);
      pairs[k].erase(it);
      auto trial = BuildNetwork(in, pairs, lo, hi);
      if (trial->Feasible()) {
        --count[s];
        if (pruned) ++*pruned;
      } else {
        pairs[k].insert(std::lower_bound(pairs[k].begin(), pairs[k].end(), s), s);
      }
    }
  }
  // 3. The final split, as central in the band as the pairs allow (slack for keep-alive and
  //    for the next round's load changes).
  const double avg = in.Total() / S;
  std::unique_ptr<BandNetwork> best;
  for (double t : {0.5, 0.25, 0.1, 0.0}) {
    auto trial = BuildNetwork(in, pairs, lo + t * (avg - lo), hi - t * (hi - avg));
    if (trial->Feasible()) {
      best = std::move(trial);
      break;
    }
  }
  if (!best) return Internal("load_balancing repair: split lost after pruning");
  placement->shares.assign(K, {});
  std::vector<double> L(S, 0.0);
  std::vector<int> used(S, 0);
  for (const auto& p : best->pairs()) {
    const double f = best->PairFlow(p);
    if (f <= 0 || in.load[p.k] <= 0) continue;
    placement->shares[p.k].push_back({p.s, f / in.load[p.k]});
    L[p.s] += f;
    ++used[p.s];
  }
  for (int k = 0; k < K; ++k) {
    if (in.load[k] <= 0) {
      placement->shares[k] = {{pairs[k][0], 1.0}};
      ++used[pairs[k][0]];
      continue;
    }
    // Normalise (flows carry the whole load up to rounding).
    double sum = 0;
    for (auto& sh : placement->shares[k]) sum += sh.second;
    for (auto& sh : placement->shares[k]) sh.second /= sum;
  }
  // 4. Keep-alive: pairs in `pairs` without flow get a small share moved from the shard's
  //    largest share, when both servers stay inside the band and memory allows.
  if (keep_alive) {
    const double margin = 1e-6 * std::max(1.0, hi);
    for (int k = 0; k < K; ++k) {
      if (in.load[k] <= 0) continue;
      for (int s : pairs[k]) {
        auto& sh = placement->shares[k];
        if (std::any_of(sh.begin(), sh.end(), [&](const auto& p) { return p.first == s; }))
          continue;
        if (used[s] >= in.memory_limit - keep_reserve) continue;
        auto big = std::max_element(
            sh.begin(), sh.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
        const int from = big->first;
        const double amount = std::min({1e-3 * in.load[k],
                                        (L[from] - lo) / 2 - margin,
                                        (hi - L[s]) / 2 - margin,
                                        big->second * in.load[k] / 2});
        if (amount < 1e-5 * in.load[k]) continue;
        big->second -= amount / in.load[k];
        sh.push_back({s, amount / in.load[k]});
        L[from] -= amount;
        L[s] += amount;
        ++used[s];
      }
    }
  }
  return Status::Ok();
}

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
  const int S = in.servers, K = in.shards();
  if (static_cast<int>(current.size()) != K)
    return InvalidArgument("load_balancing: current placement has " +
                           std::to_string(current.size()) + " shards, instance " +
                           std::to_string(K));
  const double lo = in.Low(), hi = in.High();
  // The current placement's flow network: feasible means no movement is needed.
  auto net = BuildNetwork(in, current, lo, hi);
  st.current_feasible = net->Feasible();
  ServerSets start = current;
  if (!st.current_feasible && opt.use_admm && opt.max_iterations > 0) {
    if (!opt.admm)
      return FailedPrecondition("load_balancing: the dede method needs the host's ADMM solver");
    // Candidate pairs across the min cut: stuck shards (source side) to the least-loaded
    // starved servers, and starved servers to the hottest stuck shards.
    const std::vector<char> side = net->SourceSide();
    const std::vector<double> L = net->ServerLoads();
    std::vector<int> count(S, 0), starved, stuck;
    for (int k = 0; k < K; ++k)
      for (int s : current[k]) ++count[s];
    for (int s = 0; s < S; ++s)
      if (!side[net->Server(s)] && count[s] < in.memory_limit) starved.push_back(s);
    for (int k = 0; k < K; ++k)
      if (side[net->Shard(k)] && in.load[k] > 0) stuck.push_back(k);
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
    // The relaxation over the candidate pairs as a separable problem: x[s,k] in [0, 1] is the
    // fraction of shard k served by server s; server block s keeps its load in the band,
    // shard block k places the whole shard (sum over s = 1); a new pair costs its fraction.
    Problem relaxation(S, K);
    const int m = relaxation.AddAllocation("x", Domain::Box(0.0, 1.0));
    std::vector<int> ps, pk;
    std::vector<VarId> var;
    std::vector<double> cost;
    std::vector<LinearExpr> band(S), place(K);
    std::vector<std::vector<int>> by_shard(K);
    for (int k = 0; k < K; ++k) {
      std::sort(cand[k].begin(), cand[k].end());
      cand[k].erase(std::unique(cand[k].begin(), cand[k].end()), cand[k].end());
      for (int s : cand[k]) {
        const int e = static_cast<int>(ps.size());
        ps.push_back(s);
        pk.push_back(k);
        const VarId v = relaxation.AddEntry(m, s, k);
        var.push_back(v);
        cost.push_back(Contains(current[k], s) ? 0.0 : 1.0);
        if (cost.back() > 0) relaxation.AddLinearCost(v, cost.back());
        band[s].Add(v, in.load[k]);
        place[k].Add(v, 1.0);
        by_shard[k].push_back(e);
      }
    }
    for (int s = 0; s < S; ++s) {
      if (band[s].terms.empty()) continue;
      relaxation.AddResourceConstraint(s, band[s], Sense::kGreaterEqual, lo);
      relaxation.AddResourceConstraint(s, band[s], Sense::kLessEqual, hi);
    }
    for (int k = 0; k < K; ++k) {
      if (!place[k].terms.empty()) relaxation.AddDemandConstraint(k, place[k], Sense::kEqual, 1.0);
    }
    relaxation.SetObjectiveSense(ObjectiveSense::kMinimize);
    const int E = static_cast<int>(ps.size());
    st.candidate_pairs = E;
    // Start: the best-effort split of the current placement, the rest of a stuck shard spread
    // over its candidates.
    Allocation z;
    z.values.assign(relaxation.num_variables(), 0.0);
    {
      std::vector<double> pf(E, 0.0);
      for (const auto& p : net->pairs()) {
        for (int e : by_shard[p.k])
          if (ps[e] == p.s) pf[e] = in.load[p.k] > 0 ? net->PairFlow(p) / in.load[p.k] : 0;
      }
      for (int k = 0; k < K; ++k) {
        double sum = 0;
        for (int e : by_shard[k]) sum += pf[e];
        const double rest = std::max(0.0, 1 - sum) / std::max<std::size_t>(1, by_shard[k].size());
        for (int e : by_shard[k]) z.values[var[e]] = pf[e] + rest;
      }
    }
    // The framework's ADMM: the deployment's settings (threads, penalty rules), this method's
    // iteration cap, penalty and tolerance (rms residuals below eps), half the time budget, no
    // framework repair (the rounding and the flow repair below make the placement feasible),
    // the shard-side iterate (on the simplex) for the rounding.
    AdmmOptions admm = opt.admm_options;
    admm.max_iterations = opt.max_iterations;
    admm.rho = opt.rho;
    admm.eps_abs = opt.eps;
    admm.eps_rel = 0;
    admm.repair = false;
    admm.final_iterate = FinalIterate::kDemandSide;
    admm.fill_after_max_min = false;
    admm.time_limit_seconds = std::max(0.0, 0.5 * opt.time_limit_seconds - SecondsSince(t0));
    const Clock::time_point ta = Clock::now();
    SolveSummary summary;
    Status solved = opt.admm(relaxation, admm, &z, &summary);
    if (!solved.ok()) return solved;
    st.admm_iterations = std::max(0, summary.iterations);
    st.admm_seconds = SecondsSince(ta);
    if (!summary.IsSolutionUsable()) st.message = "ADMM: " + summary.message;
    // Rounding: keep every current pair, open new pairs whose relaxed share exceeds the
    // threshold (largest first) where the server has memory room.
    std::vector<int> order;
    for (int e = 0; e < E; ++e)
      if (cost[e] > 0 && z.values[var[e]] > opt.open_threshold) order.push_back(e);
    std::sort(order.begin(), order.end(), [&](int p, int q) {
      return z.values[var[p]] * in.load[pk[p]] > z.values[var[q]] * in.load[pk[q]];
    });
    for (int e : order) {
      if (count[ps[e]] >= in.memory_limit) continue;
      start[pk[e]].push_back(ps[e]);
      ++count[ps[e]];
      ++st.opened;
    }
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
