// load_balancing model. See lb_model.h and README.md.
#include "lb_model.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <utility>

namespace dede::lb {
namespace {

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

Status FieldError(const std::string& path,
                  int line,
                  const std::string& field,
                  const std::string& value,
                  const std::string& why) {
  return InvalidArgument(path + ":" + std::to_string(line) + ": field '" + field + "' = '" + value +
                         "': " + why);
}

}  // namespace

Status LoadShardLoads(const std::string& path, std::vector<std::vector<double>>* loads) {
  std::ifstream in(path);
  if (!in) return NotFound(path + ": cannot open shard loads file");
  std::string text;
  int line_no = 1;
  if (!std::getline(in, text))
    return InvalidArgument(path + ":1: empty file, expected header 'round,shard,load'");
  if (Trim(text) != "round,shard,load")
    return InvalidArgument(path + ":1: header is '" + Trim(text) +
                           "', expected 'round,shard,load'");
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
      return InvalidArgument(path + ":" + std::to_string(line_no) +
                             ": expected 3 fields (round,shard,load), got " +
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
    // Bounded so that the total over thousands of shards (the band is a share of it) stays
    // finite and exact to the solvers' tolerances.
    if (!std::isfinite(load) || load < 0 || load > 1e15)
      return FieldError(path, line_no, "load", fields[2], "must be within [0, 1e15]");
    if (!cells.emplace(std::make_pair(idx[0], idx[1]), load).second)
      return FieldError(path,
                        line_no,
                        "shard",
                        fields[1],
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
          return InvalidArgument(path + ": missing row for round " + std::to_string(r) +
                                 ", shard " + std::to_string(k) +
                                 " (rounds and shards must be dense)");
  }
  loads->assign(max_round + 1, std::vector<double>(max_shard + 1, 0.0));
  for (const auto& [key, value] : cells) (*loads)[key.first][key.second] = value;
  return Status::Ok();
}

int LbModel::x_entry(int s, int k) const {
  const auto& c = cand_[k];
  auto it = std::lower_bound(c.begin(), c.end(), s);
  return it != c.end() && *it == s ? xid_[k][it - c.begin()] : -1;
}

int LbModel::y_entry(int s, int k) const {
  const auto& c = cand_[k];
  auto it = std::lower_bound(c.begin(), c.end(), s);
  return it != c.end() && *it == s ? yid_[k][it - c.begin()] : -1;
}

Status LbModel::Build(const LbOptions& options,
                      std::vector<std::vector<double>> loads,
                      Problem* p) {
  opt_ = options;
  const int S = opt_.servers, K = opt_.shards;
  if (S < 1 || K < 1) return InvalidArgument("load_balancing: servers and shards must be >= 1");
  if (loads.empty()) return InvalidArgument("load_balancing: no rounds of shard loads");
  if (static_cast<int>(loads[0].size()) < K)
    return InvalidArgument("load_balancing: shards = " + std::to_string(K) +
                           " but the loads file has " + std::to_string(loads[0].size()) +
                           " shards");
  if (static_cast<long>(opt_.memory_limit) * S < K)
    return InvalidArgument("load_balancing: memory_limit * servers = " +
                           std::to_string(static_cast<long>(opt_.memory_limit) * S) +
                           " < shards = " + std::to_string(K) + ": no placement fits");
  for (auto& row : loads) row.resize(K);
  loads_ = std::move(loads);
  cand_.assign(K, {});
  allowed_.clear();
  for (int k = 0; k < K; ++k) {
    if (opt_.candidates <= 0 || opt_.candidates >= S) {
      for (int s = 0; s < S; ++s) cand_[k].push_back(s);
      continue;
    }
    // Enough servers for the shard's largest share of the band in any round, twice.
    double need = 1;
    for (const auto& row : loads_) {
      double total = 0;
      for (double v : row) total += v;
      const double high = (1 + opt_.epsilon) * total / S;
      if (high > 0) need = std::max(need, std::ceil(row[k] / high));
    }
    const int n = std::min(S, std::max(opt_.candidates, 2 * static_cast<int>(need)));
    for (int j = 0; j < n; ++j) cand_[k].push_back((k + j) % S);
    std::sort(cand_[k].begin(), cand_[k].end());
  }
  if (opt_.candidates > 0 && opt_.candidates < S) allowed_ = cand_;
  // x[s,k] is the load of shard k served by server s (load units), so that a round changes
  // only right-hand sides and the coefficients of two-term linking rows: the band rows have
  // unit coefficients (Problem::SetCoefficient scans a row, and a server row has K terms).
  *p = Problem(S, K);
  p->SetObjectiveSense(ObjectiveSense::kMinimize);
  const int xm = p->AddAllocation("x", Domain::NonNegative());
  const int ym = p->AddAllocation("y", Domain::Binary());
  xid_.assign(K, {});
  yid_.assign(K, {});
  link_.assign(K, {});
  demand_.assign(K, -1);
  std::vector<LinearExpr> load_row(S), mem_row(S);
  for (int k = 0; k < K; ++k) {
    LinearExpr column;
    for (int s : cand_[k]) {
      const VarId x = p->AddEntry(xm, s, k), y = p->AddEntry(ym, s, k);
      xid_[k].push_back(x);
      yid_[k].push_back(y);
      column.Add(x, 1.0);
      load_row[s].Add(x, 1.0);
      mem_row[s].Add(y, 1.0);
      p->AddLinearCost(y, 1.0);
      LinearExpr link;  // x - load_k y <= 0, load_k set per round
      link.Add(x, 1.0).Add(y, -1.0);
      link_[k].push_back(p->AddConstraint(BlockId::Resource(s), link, Sense::kLessEqual, 0.0));
    }
    demand_[k] = p->AddConstraint(
        BlockId::Demand(k), column, Sense::kEqual, 0.0, "place[" + std::to_string(k) + "]");
  }
  low_.clear();
  high_.clear();
  for (int s = 0; s < S; ++s) {
    const BlockId b = BlockId::Resource(s);
    low_.push_back(p->AddConstraint(
        b, load_row[s], Sense::kGreaterEqual, 0.0, "low[" + std::to_string(s) + "]"));
    high_.push_back(p->AddConstraint(
        b, load_row[s], Sense::kLessEqual, 0.0, "high[" + std::to_string(s) + "]"));
    p->AddConstraint(
        b, mem_row[s], Sense::kLessEqual, opt_.memory_limit, "memory[" + std::to_string(s) + "]");
  }
  return SetRound(0, InitialPlacement(S, K), p);
}

Status LbModel::SetRound(int round, const ServerSets& current, Problem* p) {
  if (round < 0 || round >= num_rounds())
    return InvalidArgument("load_balancing: no shard loads for round " + std::to_string(round));
  const int S = opt_.servers, K = opt_.shards;
  if (static_cast<int>(current.size()) != K)
    return InvalidArgument("load_balancing: current placement has " +
                           std::to_string(current.size()) + " shards, expected " +
                           std::to_string(K));
  for (int k = 0; k < K; ++k)
    for (int s : current[k])
      if (s < 0 || s >= S || x_entry(s, k) < 0)
        return InvalidArgument("load_balancing: current placement puts shard " + std::to_string(k) +
                               " on server " + std::to_string(s) + ", not a candidate");
  round_ = round;
  cur_ = current;
  const std::vector<double>& load = loads_[round];
  double total = 0;
  for (double v : load) total += v;
  const double avg = total / S;
  for (int s = 0; s < S; ++s) {
    p->SetRhs(low_[s], (1 - opt_.epsilon) * avg);
    p->SetRhs(high_[s], (1 + opt_.epsilon) * avg);
  }
  for (int k = 0; k < K; ++k) {
    p->SetRhs(demand_[k], load[k]);
    for (std::size_t j = 0; j < cand_[k].size(); ++j) {
      const int s = cand_[k][j];
      p->SetCoefficient(link_[k][j], yid_[k][j], -load[k]);
      const bool here = std::binary_search(current[k].begin(), current[k].end(), s);
      p->SetLinearCost(yid_[k][j], here ? 0.0 : 1.0);
    }
  }
  return Status::Ok();
}

Instance LbModel::instance() const {
  Instance in;
  in.servers = opt_.servers;
  in.load = loads_[round_];
  in.epsilon = opt_.epsilon;
  in.memory_limit = opt_.memory_limit;
  return in;
}

Status LbModel::ToAllocation(const Placement& placement, const Problem& p, Allocation* a) const {
  const int K = opt_.shards;
  if (static_cast<int>(placement.shares.size()) != K)
    return Internal("load_balancing: placement has " + std::to_string(placement.shares.size()) +
                    " shards");
  a->values.assign(p.num_variables(), 0.0);
  for (int k = 0; k < K; ++k)
    for (const auto& [s, f] : placement.shares[k]) {
      if (f <= 0) continue;
      const int x = x_entry(s, k);
      if (x < 0)
        return Internal("load_balancing: placement puts shard " + std::to_string(k) +
                        " on server " + std::to_string(s) + ", not a candidate");
      a->values[x] += f * loads_[round_][k];
      a->values[y_entry(s, k)] = 1.0;
    }
  return Status::Ok();
}

Placement LbModel::ToPlacement(const Allocation& a) const {
  Placement out;
  out.shares.assign(opt_.shards, {});
  const std::vector<double>& load = loads_[round_];
  for (int k = 0; k < opt_.shards; ++k) {
    for (std::size_t j = 0; j < cand_[k].size(); ++j) {
      if (load[k] > 0) {
        const double f = a.values[xid_[k][j]] / load[k];
        if (f > 1e-9) out.shares[k].push_back({cand_[k][j], f});
      } else if (a.values[yid_[k][j]] > 0.5) {  // a shard without load sits where y says
        out.shares[k].push_back({cand_[k][j], 1.0});
      }
    }
    if (load[k] <= 0 && out.shares[k].size() > 1)
      for (auto& sh : out.shares[k]) sh.second = 1.0 / out.shares[k].size();
  }
  return out;
}

Check LbModel::Evaluate(const Allocation& a) const {
  Check c = dede::lb::Evaluate(instance(), cur_, ToPlacement(a));
  // y must be integral and cover x (x <= y).
  for (int k = 0; c.feasible && k < opt_.shards; ++k)
    for (std::size_t j = 0; j < cand_[k].size(); ++j) {
      const double x = a.values[xid_[k][j]], y = a.values[yid_[k][j]];
      const double load = loads_[round_][k];
      if (std::abs(y - std::round(y)) > 1e-6 || x > load * y + 1e-6 * std::max(1.0, load)) {
        c.feasible = false;
        c.why = "y not integral or below x for shard " + std::to_string(k);
        break;
      }
    }
  return c;
}

bool LbModel::Repair(const Problem& p, Allocation* a) const {
  if (Evaluate(*a).feasible) return true;
  const int K = opt_.shards;
  ServerSets start(K);
  for (int k = 0; k < K; ++k) {
    for (std::size_t j = 0; j < cand_[k].size(); ++j)
      if (a->values[xid_[k][j]] > 1e-2 * loads_[round_][k]) start[k].push_back(cand_[k][j]);
    if (start[k].empty()) start[k] = cur_[k];
    if (start[k].empty()) start[k] = {cand_[k][0]};
  }
  Placement placement;
  if (!RepairPlacement(instance(),
                       cur_,
                       start,
                       allowed_,
                       /*prune=*/false,
                       /*keep_alive=*/false,
                       0,
                       &placement,
                       nullptr,
                       nullptr)
           .ok())
    return false;
  if (!ToAllocation(placement, p, a).ok()) return false;
  return Evaluate(*a).feasible;
}

}  // namespace dede::lb

namespace dede::lb {

std::vector<std::vector<double>> GenerateLoads(const std::vector<double>& u, int shards) {
  std::vector<std::vector<double>> loads(u.size(), std::vector<double>(shards));
  for (std::size_t r = 0; r < u.size(); ++r)
    for (int k = 0; k < shards; ++k)
      loads[r][k] = std::round(1e6 / std::pow(static_cast<double>(k) * 1024 / shards + 1,
                                              0.25 + 0.5 * u[r])) /
                    1e4;
  return loads;
}

Status LoadRandomNums(const std::string& path, std::vector<double>* u) {
  std::ifstream in(path);
  if (!in) return NotFound(path + ": cannot open random numbers file");
  std::string text;
  if (!std::getline(in, text) || Trim(text) != "round,random_num")
    return InvalidArgument(path + ":1: expected header 'round,random_num'");
  u->clear();
  for (int line = 2; std::getline(in, text); ++line) {
    text = Trim(text);
    if (text.empty()) continue;
    const std::size_t comma = text.find(',');
    char* end = nullptr;
    const long r = comma == std::string::npos ? -1 : std::strtol(text.c_str(), &end, 10);
    if (comma == std::string::npos || end != text.c_str() + comma ||
        r != static_cast<long>(u->size()))
      return FieldError(
          path, line, "round", text.substr(0, comma), "expected " + std::to_string(u->size()));
    const std::string value = text.substr(comma + 1);
    const double v = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !(v >= 0 && v <= 1))
      return FieldError(path, line, "random_num", value, "not a number in [0, 1]");
    u->push_back(v);
  }
  if (u->empty()) return InvalidArgument(path + ": no data rows");
  return Status::Ok();
}

std::vector<double> SeededRandomNums(int rounds, unsigned long long seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> dist(0.0, 1.0);
  std::vector<double> u(rounds);
  for (double& v : u) v = dist(gen);
  return u;
}

}  // namespace dede::lb
