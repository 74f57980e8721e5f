// load_balancing model. See lb_model.h and README.md.
#include "lb_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <utility>

#include "dede/csv.h"

namespace dede::lb {
namespace {

// "[1, 4, 7]"
std::string ListText(const std::vector<int>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i)
    out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

}  // namespace

Status LoadShardLoads(const std::string& path, std::vector<std::vector<double>>* loads) {
  Result<CsvReader> opened = CsvReader::OpenWithHeader(path, {"round", "shard", "load"});
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  Status status;
  std::map<std::pair<int, int>, double> cells;
  int max_round = -1, max_shard = -1;
  while (csv.Next(&status)) {
    int round = 0, shard = 0;
    double load = 0;
    status.Update(csv.Read(0, &round, 0, 1 << 24));
    status.Update(csv.Read(1, &shard, 0, 1 << 24));
    // Bounded so that the total over thousands of shards (the band is a share of it) stays
    // finite and exact to the solvers' tolerances.
    status.Update(csv.Read(2, &load, 0.0, 1e15));
    if (!status.ok()) return status;
    const auto [it, inserted] = cells.emplace(std::make_pair(round, shard), load);
    if (!inserted) {
      return csv.FieldError(1,
                            "a second load for round " + std::to_string(round) + ", shard " +
                                std::to_string(shard) + " (duplicate)");
    }
    max_round = std::max(max_round, round);
    max_shard = std::max(max_shard, shard);
  }
  if (!status.ok()) return status;
  if (cells.empty()) return InvalidArgument(path + ": no data rows");
  const std::size_t expect = static_cast<std::size_t>(max_round + 1) * (max_shard + 1);
  if (cells.size() != expect) {
    for (int r = 0; r <= max_round; ++r)
      for (int k = 0; k <= max_shard; ++k)
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
  std::vector<int> down = opt_.down_servers;
  std::sort(down.begin(), down.end());
  for (std::size_t i = 0; i < down.size(); ++i) {
    std::string why;
    if (down[i] < 0 || down[i] >= S)
      why = "server " + std::to_string(down[i]) + " is not a server index 0.." +
            std::to_string(S - 1);
    else if (i > 0 && down[i] == down[i - 1])
      why = "server " + std::to_string(down[i]) + " is listed twice";
    if (!why.empty())
      return InvalidArgument(opt_.down_servers_key + " = " + ListText(down) + ": " + why);
  }
  changes_.clear();
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
  if (const std::string why = CheckUp(UpAt(-1)); !why.empty())
    return InvalidArgument(opt_.down_servers_key + " = " + ListText(down) + ": " + why);
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
  memory_.clear();
  for (int s = 0; s < S; ++s) {
    const BlockId b = BlockId::Resource(s);
    low_.push_back(p->AddConstraint(
        b, load_row[s], Sense::kGreaterEqual, 0.0, "low[" + std::to_string(s) + "]"));
    high_.push_back(p->AddConstraint(
        b, load_row[s], Sense::kLessEqual, 0.0, "high[" + std::to_string(s) + "]"));
    memory_.push_back(p->AddConstraint(
        b, mem_row[s], Sense::kLessEqual, opt_.memory_limit, "memory[" + std::to_string(s) + "]"));
  }
  return SetRound(0, InitialPlacement(), p);
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
  const std::vector<char> up = UpAt(round);
  if (const std::string why = CheckUp(up); !why.empty())
    return InvalidArgument("load_balancing: round " + std::to_string(round) + ": " + why);
  round_ = round;
  cur_ = current;
  up_.clear();
  local_of_.assign(S, -1);
  for (int s = 0; s < S; ++s)
    if (up[s]) {
      local_of_[s] = static_cast<int>(up_.size());
      up_.push_back(s);
    }
  local_cur_.assign(K, {});
  for (int k = 0; k < K; ++k)
    for (int s : current[k])
      if (up[s]) local_cur_[k].push_back(local_of_[s]);  // ascending: local ids keep the order
  local_allowed_.clear();
  if (!allowed_.empty()) {
    local_allowed_.assign(K, {});
    for (int k = 0; k < K; ++k)
      for (int s : allowed_[k])
        if (up[s]) local_allowed_[k].push_back(local_of_[s]);
  }
  const std::vector<double>& load = loads_[round];
  double total = 0;
  for (double v : load) total += v;
  // The band is over the up servers; a down server may hold nothing (rows with rhs 0).
  const double avg = total / static_cast<double>(up_.size());
  for (int s = 0; s < S; ++s) {
    p->SetRhs(low_[s], up[s] ? (1 - opt_.epsilon) * avg : 0.0);
    p->SetRhs(high_[s], up[s] ? (1 + opt_.epsilon) * avg : 0.0);
    p->SetRhs(memory_[s], up[s] ? opt_.memory_limit : 0.0);
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
  in.servers = static_cast<int>(up_.size());
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
  const Placement global = ToPlacement(a);
  Placement local;
  local.shares.assign(opt_.shards, {});
  std::string down;  // the first share on a down server
  double down_moves = 0;
  for (int k = 0; k < opt_.shards; ++k)
    for (const auto& [s, f] : global.shares[k]) {
      if (local_of_[s] >= 0) {
        local.shares[k].push_back({local_of_[s], f});
        continue;
      }
      if (!std::binary_search(cur_[k].begin(), cur_[k].end(), s)) down_moves += 1;
      if (down.empty())
        down = "shard " + std::to_string(k) + " placed on server " + std::to_string(s) +
               ", which is down";
    }
  Check c = dede::lb::Evaluate(instance(), local_cur_, local);
  c.movements += down_moves;
  if (!down.empty()) {
    c.feasible = false;
    c.why = down;
  }
  // y must be integral and cover x (x <= y), and 0 on down servers.
  for (int k = 0; c.feasible && k < opt_.shards; ++k)
    for (std::size_t j = 0; j < cand_[k].size(); ++j) {
      const double x = a.values[xid_[k][j]], y = a.values[yid_[k][j]];
      const double load = loads_[round_][k];
      if (std::abs(y - std::round(y)) > 1e-6 || x > load * y + 1e-6 * std::max(1.0, load)) {
        c.feasible = false;
        c.why = "y not integral or below x for shard " + std::to_string(k);
        break;
      }
      if (y > 0.5 && !is_up(cand_[k][j])) {
        c.feasible = false;
        c.why = "shard " + std::to_string(k) + " placed on server " + std::to_string(cand_[k][j]) +
                ", which is down";
        break;
      }
    }
  return c;
}

bool LbModel::Repair(const Problem& p, Allocation* a) const {
  if (Evaluate(*a).feasible) return true;
  const int K = opt_.shards;
  ServerSets start(K);  // local indices
  for (int k = 0; k < K; ++k) {
    for (std::size_t j = 0; j < cand_[k].size(); ++j)
      if (is_up(cand_[k][j]) && a->values[xid_[k][j]] > 1e-2 * loads_[round_][k])
        start[k].push_back(local_of_[cand_[k][j]]);
    if (start[k].empty()) start[k] = local_cur_[k];
    for (std::size_t j = 0; start[k].empty() && j < cand_[k].size(); ++j)
      if (is_up(cand_[k][j])) start[k] = {local_of_[cand_[k][j]]};
  }
  Placement placement;
  if (!RepairPlacement(instance(),
                       local_cur_,
                       start,
                       local_allowed_,
                       /*prune=*/false,
                       /*keep_alive=*/false,
                       0,
                       &placement,
                       nullptr,
                       nullptr)
           .ok())
    return false;
  if (!ToAllocation(ToGlobal(placement), p, a).ok()) return false;
  return Evaluate(*a).feasible;
}

Placement LbModel::ToGlobal(const Placement& local) const {
  Placement out = local;
  for (auto& shares : out.shares)
    for (auto& share : shares) share.first = up_[share.first];
  return out;
}

ServerSets LbModel::InitialPlacement() const {
  const int S = opt_.servers, K = opt_.shards;
  const std::vector<char> up = UpAt(-1);
  ServerSets out(K);
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < S && out[k].empty(); ++j)
      if (up[(k + j) % S] && x_entry((k + j) % S, k) >= 0) out[k] = {(k + j) % S};
  return out;
}

std::vector<char> LbModel::UpAt(int round) const {
  std::vector<char> up(opt_.servers, 1);
  for (int s : opt_.down_servers) up[s] = 0;
  for (const ServerChange& c : changes_) {
    if (c.round > round) break;
    up[c.server] = c.up ? 1 : 0;
  }
  return up;
}

std::string LbModel::CheckUp(const std::vector<char>& up) const {
  const long n = std::count(up.begin(), up.end(), 1);
  if (n == 0) return "no server is up";
  if (static_cast<long>(opt_.memory_limit) * n < opt_.shards)
    return "memory_limit * up servers = " + std::to_string(opt_.memory_limit) + " * " +
           std::to_string(n) + " = " + std::to_string(opt_.memory_limit * n) +
           " < shards = " + std::to_string(opt_.shards);
  for (int k = 0; k < opt_.shards; ++k)
    if (std::none_of(cand_[k].begin(), cand_[k].end(), [&](int s) { return up[s] != 0; }))
      return "shard " + std::to_string(k) +
             " has no up candidate server (its candidates: " + ListText(cand_[k]) + ")";
  return "";
}

std::string LbModel::ChangeServer(int round, int server, bool up) {
  std::vector<char> now = UpAt(round);
  const std::string name = "server " + std::to_string(server);
  if ((now[server] != 0) == up) return name + " is already " + (up ? "up" : "down");
  now[server] = up ? 1 : 0;
  if (!up) {
    if (std::count(now.begin(), now.end(), 1) == 0) return name + " is the last server up";
    if (const std::string why = CheckUp(now); !why.empty()) return "with " + name + " down, " + why;
  }
  const auto at =
      std::upper_bound(changes_.begin(), changes_.end(), round, [](int r, const ServerChange& c) {
        return r < c.round;
      });
  changes_.insert(at, ServerChange{round, server, up});
  return "";
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
  Result<CsvReader> opened = CsvReader::OpenWithHeader(path, {"round", "random_num"});
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  Status status;
  u->clear();
  while (csv.Next(&status)) {
    int round = -1;
    double v = 0;
    status = csv.Read(0, &round);
    if (status.ok() && round != static_cast<int>(u->size())) {
      status = csv.Expected(0, std::to_string(u->size()) + " (rounds 0, 1, ... in order)");
    }
    status.Update(csv.Read(1, &v, 0.0, 1.0));
    if (!status.ok()) return status;
    u->push_back(v);
  }
  if (!status.ok()) return status;
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
