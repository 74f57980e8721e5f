// load_balancing repair: a placement made feasible by opening pairs across the band's minimum
// cut, then pruned, split and kept alive. See lb_core.h.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lb_band.h"
#include "lb_core.h"

namespace dede::lb {

using band::BandNetwork;
using band::BuildNetwork;
using band::Contains;
using band::IsAllowed;
using band::MaxFlow;

namespace {

// RepairPlacement's working state: the pairs per shard (sorted unique) and the pairs per
// server, with the band [lo, hi], across its steps.
struct Repair {
  const Instance& in;
  const ServerSets& current;
  const Allowed& allowed;
  int S, K;
  double lo, hi;
  ServerSets pairs;
  std::vector<int> count;                   // pairs per server (memory)
  std::vector<std::pair<int, int>> opened;  // (shard, server) opened across the cut: kept
  int* added;

  void Start(const ServerSets& start);
  Status OpenAcrossCut(std::unique_ptr<BandNetwork>* network);
  Status MakeRoom(const BandNetwork& net,
                  const std::vector<char>& side,
                  const std::vector<double>& L);
  void Prune(const BandNetwork& net, int* pruned);
  Status Split(Placement* placement, std::vector<double>* L, std::vector<int>* used) const;
  void KeepAlive(int keep_reserve,
                 Placement* placement,
                 std::vector<double>* L,
                 std::vector<int>* used) const;
};

// The start's pairs (a shard without load and without a pair gets a home), then, for memory,
// a start above the limit (a heuristic's) drops its pairs that are not current first.
void Repair::Start(const ServerSets& start) {
  pairs.assign(K, {});
  count.assign(S, 0);
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
  for (int s = 0; s < S; ++s) {
    for (int k = 0; k < K && count[s] > in.memory_limit; ++k) {
      if (pairs[k].size() > 1 && Contains(pairs[k], s) && !Contains(current[k], s)) {
        pairs[k].erase(std::find(pairs[k].begin(), pairs[k].end(), s));
        --count[s];
      }
    }
  }
}

// 1. Opens pairs across the minimum cut until the band admits a split; *network is then the
//    split found (its flows order the pruning).
Status Repair::OpenAcrossCut(std::unique_ptr<BandNetwork>* network) {
  std::unique_ptr<BandNetwork>& net = *network;
  net = BuildNetwork(in, pairs, lo, hi);
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
      if (Status status = MakeRoom(*net, side, L); !status.ok()) return status;
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
  return Status::Ok();
}

// Memory is full where pairs could go: frees the slots of pairs that are not current and
// carry no flow (opened by the rounding, not used by the split), for another try.
Status Repair::MakeRoom(const BandNetwork& net,
                        const std::vector<char>& side,
                        const std::vector<double>& L) {
  int freed = 0;
  for (const auto& p : net.pairs()) {
    if (net.PairFlow(p) > MaxFlow::kFlowTol || Contains(current[p.k], p.s) ||
        pairs[p.k].size() <= 1)
      continue;
    pairs[p.k].erase(std::find(pairs[p.k].begin(), pairs[p.k].end(), p.s));
    --count[p.s];
    ++freed;
  }
  if (freed > 0) return Status::Ok();
  // Still full: make room on the least-loaded full server across the cut, by dropping its
  // copy of a shard that has another copy (least flow first; free), else by moving its
  // smallest single-copy shard to the least-loaded server with room (a movement).
  int from = -1;
  for (int s = 0; s < S; ++s)
    if (!side[net.Server(s)] && count[s] >= in.memory_limit && (from < 0 || L[s] < L[from]))
      from = s;
  if (from < 0) {
    return Internal("load_balancing repair: no pair can be opened across the min cut (deficit " +
                    std::to_string(net.Deficit()) + "); memory or candidate sets too tight");
  }
  int drop = -1, single = -1;
  double drop_flow = 0;
  for (const auto& p : net.pairs()) {
    if (p.s != from) continue;
    if (pairs[p.k].size() > 1) {
      if (std::find(opened.begin(), opened.end(), std::make_pair(p.k, p.s)) != opened.end())
        continue;
      if (drop < 0 || net.PairFlow(p) < drop_flow) {
        drop = p.k;
        drop_flow = net.PairFlow(p);
      }
    } else if (single < 0 || in.load[p.k] < in.load[single]) {
      single = p.k;
    }
  }
  if (drop >= 0) {
    pairs[drop].erase(std::find(pairs[drop].begin(), pairs[drop].end(), from));
    --count[from];
    return Status::Ok();
  }
  int to = -1;
  for (int s = 0; s < S; ++s)
    if (s != from && count[s] < in.memory_limit && single >= 0 && IsAllowed(allowed, single, s) &&
        (to < 0 || L[s] < L[to]))
      to = s;
  if (to < 0) {
    return Internal("load_balancing repair: no room on any server (deficit " +
                    std::to_string(net.Deficit()) + "); memory or candidate sets too tight");
  }
  pairs[single] = {to};
  --count[from];
  ++count[to];
  if (added) ++*added;
  return Status::Ok();
}

// 2. Prunes pairs that are new (not in current) and not needed, smallest flow first.
void Repair::Prune(const BandNetwork& net, int* pruned) {
  std::vector<std::pair<double, std::pair<int, int>>> fresh;
  for (const auto& p : net.pairs())
    if (!Contains(current[p.k], p.s)) fresh.push_back({net.PairFlow(p), {p.k, p.s}});
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

// 3. The final split, as central in the band as the pairs allow (slack for keep-alive and for
//    the next round's load changes), with each server's load and pairs used.
Status Repair::Split(Placement* placement, std::vector<double>* L, std::vector<int>* used) const {
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
  L->assign(S, 0.0);
  used->assign(S, 0);
  for (const auto& p : best->pairs()) {
    const double f = best->PairFlow(p);
    if (f <= 0 || in.load[p.k] <= 0) continue;
    placement->shares[p.k].push_back({p.s, f / in.load[p.k]});
    (*L)[p.s] += f;
    ++(*used)[p.s];
  }
  for (int k = 0; k < K; ++k) {
    if (in.load[k] <= 0) {
      placement->shares[k] = {{pairs[k][0], 1.0}};
      ++(*used)[pairs[k][0]];
      continue;
    }
    // Normalise (flows carry the whole load up to rounding).
    double sum = 0;
    for (auto& sh : placement->shares[k]) sum += sh.second;
    for (auto& sh : placement->shares[k]) sh.second /= sum;
  }
  return Status::Ok();
}

// 4. Keep-alive: pairs without flow get a small share moved from the shard's largest share,
//    when both servers stay inside the band and memory allows.
void Repair::KeepAlive(int keep_reserve,
                       Placement* placement,
                       std::vector<double>* L,
                       std::vector<int>* used) const {
  const double margin = 1e-6 * std::max(1.0, hi);
  for (int k = 0; k < K; ++k) {
    if (in.load[k] <= 0) continue;
    for (int s : pairs[k]) {
      auto& sh = placement->shares[k];
      if (std::any_of(sh.begin(), sh.end(), [&](const auto& p) { return p.first == s; })) continue;
      if ((*used)[s] >= in.memory_limit - keep_reserve) continue;
      auto big = std::max_element(
          sh.begin(), sh.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
      const int from = big->first;
      const double amount = std::min({1e-3 * in.load[k],
                                      ((*L)[from] - lo) / 2 - margin,
                                      (hi - (*L)[s]) / 2 - margin,
                                      big->second * in.load[k] / 2});
      if (amount < 1e-5 * in.load[k]) continue;
      big->second -= amount / in.load[k];
      sh.push_back({s, amount / in.load[k]});
      (*L)[from] -= amount;
      (*L)[s] += amount;
      ++(*used)[s];
    }
  }
}

}  // namespace

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
  if (added) *added = 0;
  if (pruned) *pruned = 0;
  Repair r{in, current, allowed, in.servers, in.shards(), in.Low(), in.High(), {}, {}, {}, added};
  r.Start(start);
  std::unique_ptr<BandNetwork> net;
  if (Status status = r.OpenAcrossCut(&net); !status.ok()) return status;
  if (prune) r.Prune(*net, pruned);
  std::vector<double> L;
  std::vector<int> used;
  if (Status status = r.Split(placement, &L, &used); !status.ok()) return status;
  if (keep_alive) r.KeepAlive(keep_reserve, placement, &L, &used);
  return Status::Ok();
}

}  // namespace dede::lb
