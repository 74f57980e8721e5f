// The load balancing core's flow model (lb_core.cpp, lb_repair.cpp): Dinic's max flow and the
// band [lo, hi] of server loads as a circulation over the shard-server pairs.
#pragma once

#include <algorithm>
#include <limits>
#include <memory>
#include <vector>

#include "lb_core.h"

namespace dede::lb::band {

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

inline bool IsAllowed(const Allowed& allowed, int k, int s) {
  if (allowed.empty() || allowed[k].empty()) return true;
  return std::binary_search(allowed[k].begin(), allowed[k].end(), s);
}

inline bool Contains(const std::vector<int>& sorted, int v) {
  return std::binary_search(sorted.begin(), sorted.end(), v);
}

// Pairs per shard (sorted unique) -> a network with those pairs, solved.
inline std::unique_ptr<BandNetwork> BuildNetwork(const Instance& in,
                                                 const ServerSets& pairs,
                                                 double lo,
                                                 double hi) {
  auto net = std::make_unique<BandNetwork>(in, lo, hi);
  for (int k = 0; k < in.shards(); ++k)
    for (int s : pairs[k]) net->AddPair(k, s);
  net->Solve();
  return net;
}

}  // namespace dede::lb::band
