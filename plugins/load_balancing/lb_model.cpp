// load_balancing model. See lb_model.h and README.md.
#include "lb_model.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

namespace dede::lb {
namespace {

constexpr double kTiny = 1e-9;  // fractions below this are dropped by the greedy repair
// Shares of the solver's x below this are dropped (and the column renormalised) before the
// greedy repair: ADMM leaves small fractions that would each cost a placement (y = 1).
constexpr double kDust = 1e-2;

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

Status FieldError(const std::string& path, int line, const std::string& field,
                  const std::string& value, const std::string& why) {
  return InvalidArgument(path + ":" + std::to_string(line) + ": field '" + field + "' = '" +
                         value + "': " + why);
}

}  // namespace

Status LoadShardLoads(const std::string& path, std::vector<std::vector<double>>* loads) {
  std::ifstream in(path);
  if (!in) return NotFound(path + ": cannot open shard loads file");
  std::string text;
  int line_no = 1;
  if (!std::getline(in, text)) return InvalidArgument(path + ":1: empty file, expected header 'round,shard,load'");
  if (Trim(text) != "round,shard,load")
    return InvalidArgument(path + ":1: header is '" + Trim(text) + "', expected 'round,shard,load'");
  std::map<std::pair<long, long>, double> cells;
  long max_round = -1, max_shard = -1;
  while (std::getline(in, text)) {
    ++line_no;
    text = Trim(text);
    if (text.empty()) continue;
    std::vector<std::string> fields;
    std::stringstream ss(text);
    std::string f;
    while (std::getline(ss, f, ',')) fields.push_back(Trim(f));
    if (!text.empty() && text.back() == ',') fields.push_back("");
    if (fields.size() != 3)
      return InvalidArgument(path + ":" + std::to_string(line_no) + ": expected 3 fields (round,shard,load), got " +
                             std::to_string(fields.size()));
    long idx[2];
    const char* names[2] = {"round", "shard"};
    for (int i = 0; i < 2; ++i) {
      char* end = nullptr;
      errno = 0;
      idx[i] = std::strtol(fields[i].c_str(), &end, 10);
      if (fields[i].empty() || *end != '\0' || errno != 0)
        return FieldError(path, line_no, names[i], fields[i], "not an integer");
      if (idx[i] < 0 || idx[i] > (1L << 24))
        return FieldError(path, line_no, names[i], fields[i], "out of range [0, 16777216]");
    }
    char* end = nullptr;
    errno = 0;
    const double load = std::strtod(fields[2].c_str(), &end);
    if (fields[2].empty() || *end != '\0' || errno != 0)
      return FieldError(path, line_no, "load", fields[2], "not a number");
    if (!std::isfinite(load) || load < 0)
      return FieldError(path, line_no, "load", fields[2], "must be finite and >= 0");
    if (!cells.emplace(std::make_pair(idx[0], idx[1]), load).second)
      return FieldError(path, line_no, "shard", fields[1],
                        "duplicate (round " + fields[0] + ", shard " + fields[1] + ")");
    max_round = std::max(max_round, idx[0]);
    max_shard = std::max(max_shard, idx[1]);
  }
  if (cells.empty()) return InvalidArgument(path + ": no data rows");
  const std::size_t expect = static_cast<std::size_t>(max_round + 1) * (max_shard + 1);
  if (cells.size() != expect) {
    for (long r = 0; r <= max_round; ++r)
      for (long k = 0; k <= max_shard; ++k)
        if (!cells.count({r, k}))
          return InvalidArgument(path + ": missing row for round " + std::to_string(r) + ", shard " +
                                 std::to_string(k) + " (rounds and shards must be dense)");
  }
  loads->assign(max_round + 1, std::vector<double>(max_shard + 1, 0.0));
  for (const auto& [key, value] : cells) (*loads)[key.first][key.second] = value;
  return Status::Ok();
}

int LbModel::x_entry(int s, int k) const { return xid_[s][k]; }
int LbModel::y_entry(int s, int k) const { return yid_[s][k]; }

Status LbModel::Build(const LbOptions& options, std::vector<std::vector<double>> loads, Problem* p) {
  opt_ = options;
  const int S = opt_.servers, K = opt_.shards;
  if (S < 1 || K < 1) return InvalidArgument("load_balancing: servers and shards must be >= 1");
  if (loads.empty()) return InvalidArgument("load_balancing: no rounds of shard loads");
  if (static_cast<int>(loads[0].size()) < K)
    return InvalidArgument("load_balancing: shards = " + std::to_string(K) + " but the loads file has " +
                           std::to_string(loads[0].size()) + " shards");
  if (static_cast<long>(opt_.memory_limit) * S < K)
    return InvalidArgument("load_balancing: memory_limit * servers = " +
                           std::to_string(static_cast<long>(opt_.memory_limit) * S) + " < shards = " +
                           std::to_string(K) + ": no placement fits");
  for (auto& row : loads) row.resize(K);
  loads_ = std::move(loads);
  // Candidates: enough servers for the shard's largest share of the band in any round, twice.
  cand_.assign(K, {});
  for (int k = 0; k < K; ++k) {
    double need = 1;
    for (const auto& row : loads_) {
      double total = 0;
      for (double v : row) total += v;
      const double high = (1 + opt_.epsilon) * total / S;
      if (high > 0) need = std::max(need, std::ceil(row[k] / high));
    }
    const int n = std::min(S, std::max(opt_.candidates, 2 * static_cast<int>(need)));
    for (int j = 0; j < n; ++j) cand_[k].push_back((k + j) % S);
  }
  *p = Problem(S, K);
  p->SetObjectiveSense(ObjectiveSense::kMinimize);
  const int xm = p->AddAllocation("x", Domain::Box(0, 1));
  const int ym = p->AddAllocation("y", Domain::Binary());
  xid_.assign(S, std::vector<int>(K, -1));
  yid_.assign(S, std::vector<int>(K, -1));
  std::vector<LinearExpr> load_row(S), mem_row(S);
  for (int k = 0; k < K; ++k) {
    LinearExpr column;
    for (int s : cand_[k]) {
      xid_[s][k] = p->AddEntry(xm, s, k);
      yid_[s][k] = p->AddEntry(ym, s, k);
      column.Add(xid_[s][k], 1.0);
      load_row[s].Add(xid_[s][k], std::max(loads_[0][k], 1e-6));  // coefficient set per round
      mem_row[s].Add(yid_[s][k], 1.0);
      p->AddLinearCost(yid_[s][k], 1.0);
    }
    demand_.push_back(p->AddConstraint(BlockId::Demand(k), column, Sense::kEqual, 1.0,
                                       "place[" + std::to_string(k) + "]"));
  }
  for (int s = 0; s < S; ++s) {
    const BlockId b = BlockId::Resource(s);
    low_.push_back(p->AddConstraint(b, load_row[s], Sense::kGreaterEqual, 0.0, "low[" + std::to_string(s) + "]"));
    high_.push_back(p->AddConstraint(b, load_row[s], Sense::kLessEqual, 0.0, "high[" + std::to_string(s) + "]"));
    mem_.push_back(p->AddConstraint(b, mem_row[s], Sense::kLessEqual, opt_.memory_limit,
                                    "memory[" + std::to_string(s) + "]"));
    for (int k = 0; k < K; ++k) {
      if (xid_[s][k] < 0) continue;
      LinearExpr link;
      link.Add(xid_[s][k], 1.0).Add(yid_[s][k], -1.0);
      p->AddConstraint(b, link, Sense::kLessEqual, 0.0);
    }
  }
  cached_round_ = -1;
  return SetRound(0, p);
}

Status LbModel::SetRound(int round, Problem* p) {
  if (round < 0 || round >= num_rounds())
    return InvalidArgument("load_balancing: no shard loads for round " + std::to_string(round));
  const int S = opt_.servers, K = opt_.shards;
  if (cached_round_ < 0 || cached_round_ > round) {
    cached_.assign(S, std::vector<char>(K, 0));
    for (int k = 0; k < K; ++k) cached_[k % S][k] = 1;
    cached_round_ = 0;
  }
  while (cached_round_ < round) {
    // The previous round's placement, load split evenly, repaired greedily for that round.
    std::vector<std::vector<double>> frac(S, std::vector<double>(K, 0.0));
    for (int k = 0; k < K; ++k) {
      int n = 0;
      for (int s = 0; s < S; ++s) n += cached_[s][k];
      for (int s = 0; s < S; ++s)
        if (cached_[s][k]) frac[s][k] = 1.0 / n;
    }
    GreedyFix(loads_[cached_round_], &frac, cached_);
    for (int s = 0; s < S; ++s)
      for (int k = 0; k < K; ++k) cached_[s][k] = frac[s][k] > 0 ? 1 : 0;
    ++cached_round_;
  }
  round_ = round;
  cur_ = cached_;
  const std::vector<double>& load = loads_[round];
  double total = 0;
  for (double v : load) total += v;
  avg_ = total / S;
  for (int s = 0; s < S; ++s) {
    p->SetRhs(low_[s], (1 - opt_.epsilon) * avg_);
    p->SetRhs(high_[s], (1 + opt_.epsilon) * avg_);
    for (int k = 0; k < K; ++k) {
      if (xid_[s][k] < 0) continue;
      p->SetCoefficient(low_[s], xid_[s][k], load[k]);
      p->SetCoefficient(high_[s], xid_[s][k], load[k]);
      p->SetLinearCost(yid_[s][k], cur_[s][k] ? 0.0 : 1.0);
    }
  }
  return Status::Ok();
}

bool LbModel::GreedyFix(const std::vector<double>& load, std::vector<std::vector<double>>* frac_ptr,
                        const std::vector<std::vector<char>>& cur) const {
  auto& frac = *frac_ptr;
  const int S = opt_.servers, K = opt_.shards;
  double total = 0;
  for (int k = 0; k < K; ++k) total += load[k];
  const double avg = total / S;
  const double lo = (1 - opt_.epsilon) * avg, hi = (1 + opt_.epsilon) * avg;
  const double tol = 1e-9 * std::max(1.0, avg);
  // 1. Columns: clip, drop dust, normalise over the candidates.
  for (int k = 0; k < K; ++k) {
    double sum = 0;
    for (int s = 0; s < S; ++s) {
      double& f = frac[s][k];
      if (xid_[s][k] < 0 || !(f > kDust)) f = 0;
      f = std::min(f, 1.0);
      sum += f;
    }
    if (sum <= 0) {
      int home = cand_[k][0];
      for (int s : cand_[k])
        if (cur[s][k]) { home = s; break; }
      frac[home][k] = 1;
      sum = 1;
    }
    for (int s = 0; s < S; ++s) frac[s][k] /= sum;
  }
  std::vector<double> L(S, 0.0);
  std::vector<int> cnt(S, 0);
  for (int s = 0; s < S; ++s)
    for (int k = 0; k < K; ++k)
      if (frac[s][k] > 0) { L[s] += load[k] * frac[s][k]; ++cnt[s]; }
  auto move = [&](int s, int t, int k, double amount_load) {
    const double df = load[k] > 0 ? std::min(frac[s][k], amount_load / load[k]) : frac[s][k];
    if (frac[t][k] == 0) ++cnt[t];
    frac[t][k] += df;
    frac[s][k] -= df;
    L[t] += df * load[k];
    L[s] -= df * load[k];
    if (frac[s][k] <= kTiny) {  // the rest goes along
      frac[t][k] += frac[s][k];
      L[t] += frac[s][k] * load[k];
      L[s] -= frac[s][k] * load[k];
      frac[s][k] = 0;
      --cnt[s];
    }
  };
  // 2. Memory: servers above the limit hand their smallest shares to a server already hosting
  //    part of the shard, else to a candidate with room.
  for (int s = 0; s < S; ++s) {
    for (int guard = 0; cnt[s] > opt_.memory_limit && guard < K; ++guard) {
      int best_k = -1, best_t = -1;
      for (int k = 0; k < K; ++k) {
        if (frac[s][k] <= 0) continue;
        for (int t : cand_[k]) {
          if (t == s || (frac[t][k] == 0 && cnt[t] >= opt_.memory_limit)) continue;
          if (best_k < 0 || frac[s][k] * load[k] < frac[s][best_k] * load[best_k]) { best_k = k; best_t = t; }
          break;
        }
      }
      if (best_k < 0) break;
      move(s, best_t, best_k, frac[s][best_k] * load[best_k] + 1);
    }
  }
  // 3. Band: move load from the most loaded server above `hi` and into the least loaded server
  //    below `lo`, preferring targets that already host the shard (no new movement).
  // Every server outside the band is tried, worst first, until one move succeeds.
  for (int iter = 0; iter < 20 * K * S; ++iter) {
    std::vector<int> overs, unders;
    for (int s = 0; s < S; ++s) {
      if (L[s] > hi + tol) overs.push_back(s);
      if (L[s] < lo - tol) unders.push_back(s);
    }
    if (overs.empty() && unders.empty()) break;
    std::sort(overs.begin(), overs.end(), [&](int a, int b) { return L[a] > L[b]; });
    std::sort(unders.begin(), unders.end(), [&](int a, int b) { return L[a] < L[b]; });
    bool moved = false;
    for (int over : overs) {
      // Best (shard, target): target already hosts (cheaper), then smallest target load.
      int bk = -1, bt = -1;
      double bscore = 0;
      for (int k = 0; k < K; ++k) {
        if (frac[over][k] <= 0) continue;
        for (int t : cand_[k]) {
          if (t == over || L[t] >= hi - tol) continue;
          if (frac[t][k] == 0 && cnt[t] >= opt_.memory_limit) continue;
          const double score = (frac[t][k] > 0 || cur[t][k] ? 0 : 1e12) + L[t];
          if (bk < 0 || score < bscore) { bk = k; bt = t; bscore = score; }
        }
      }
      if (bk >= 0) {
        move(over, bt, bk, std::min(L[over] - hi, hi - L[bt]));
        moved = true;
        break;
      }
    }
    for (int under : unders) {
      if (moved) break;
      int bk = -1, bs = -1;
      double bscore = 0;
      for (int k = 0; k < K; ++k) {
        if (xid_[under][k] < 0) continue;
        if (frac[under][k] == 0 && cnt[under] >= opt_.memory_limit) continue;
        for (int s : cand_[k]) {
          if (s == under || frac[s][k] <= 0 || L[s] <= lo + tol) continue;
          const double score = (frac[under][k] > 0 || cur[under][k] ? 0 : 1e12) - L[s];
          if (bk < 0 || score < bscore) { bk = k; bs = s; bscore = score; }
        }
      }
      if (bk >= 0) {
        move(bs, under, bk, std::min(lo - L[under], L[bs] - lo));
        moved = true;
      }
    }
    if (!moved) break;
  }
  bool ok = true;
  for (int s = 0; s < S; ++s)
    ok = ok && L[s] >= lo - 1e-6 * std::max(1.0, lo) && L[s] <= hi + 1e-6 * std::max(1.0, hi) &&
         cnt[s] <= opt_.memory_limit;
  return ok;
}

bool LbModel::Repair(const Problem& p, Allocation* a) const {
  (void)p;
  const int S = opt_.servers, K = opt_.shards;
  std::vector<std::vector<double>> frac(S, std::vector<double>(K, 0.0));
  for (int s = 0; s < S; ++s)
    for (int k = 0; k < K; ++k)
      if (xid_[s][k] >= 0) frac[s][k] = a->values[xid_[s][k]];
  const bool ok = GreedyFix(loads_[round_], &frac, cur_);
  for (int s = 0; s < S; ++s)
    for (int k = 0; k < K; ++k) {
      if (xid_[s][k] < 0) continue;
      a->values[xid_[s][k]] = frac[s][k];
      a->values[yid_[s][k]] = frac[s][k] > 0 ? 1.0 : 0.0;
    }
  return ok;
}

LbModel::RoundMetrics LbModel::Evaluate(const Problem& p, const Allocation& a) const {
  (void)p;
  const int S = opt_.servers, K = opt_.shards;
  const std::vector<double>& load = loads_[round_];
  RoundMetrics m;
  m.low = (1 - opt_.epsilon) * avg_;
  m.high = (1 + opt_.epsilon) * avg_;
  bool ok = true;
  std::vector<double> L(S, 0.0), col(K, 0.0);
  std::vector<double> cnt(S, 0.0);
  for (int s = 0; s < S; ++s)
    for (int k = 0; k < K; ++k) {
      if (xid_[s][k] < 0) continue;
      const double x = a[xid_[s][k]], y = a[yid_[s][k]];
      L[s] += load[k] * x;
      col[k] += x;
      cnt[s] += y;
      m.movements += (cur_[s][k] ? 0.0 : 1.0) * y;
      ok = ok && std::abs(y - std::round(y)) <= 1e-6 && x <= y + 1e-6 && x >= -1e-6;
    }
  for (int k = 0; k < K; ++k) ok = ok && std::abs(col[k] - 1) <= 1e-6;
  m.max_load = *std::max_element(L.begin(), L.end());
  m.min_load = *std::min_element(L.begin(), L.end());
  m.max_shards = *std::max_element(cnt.begin(), cnt.end());
  ok = ok && m.max_load <= m.high + 1e-6 * std::max(1.0, m.high) &&
       m.min_load >= m.low - 1e-6 * std::max(1.0, m.low) && m.max_shards <= opt_.memory_limit + 1e-6;
  m.feasible = ok;
  return m;
}

}  // namespace dede::lb
