// transport: a weighted transportation problem with demand volumes that change every round.
// See README.md in this directory.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "dede/plugin.h"

namespace {

class TransportPlugin : public dede::DomainPlugin {
 public:
  static constexpr double kMaxEntries = 2e7;

  // The keys of plugin.settings, all optional: the host checks them and fills the defaults.
  const dede::SettingsTable* Settings() const override {
    using dede::Setting;
    static const dede::SettingsTable table = {
        Setting::Int("resources", "suppliers").Default(50).Range(1, 1 << 20),
        Setting::Int("demands", "consumers").Default(500).Range(1, 1 << 22),
        Setting::Int("entries_per_demand", "distinct suppliers of each consumer (by the seed)")
            .Default(10)
            .Range(1, 1 << 20),
        Setting::Double("capacity_factor",
                        "capacity relative to the average load offered to a supplier")
            .Default(0.6)
            .Range(1e-6, 1e6),
        Setting::Double("fluctuation", "amplitude of the volumes' sine, relative to the base")
            .Default(0.2)
            .Range(0.0, 0.999),
        Setting::Double("period", "rounds per period of the volumes' sine")
            .Default(24.0)
            .Range(1e-9, 1e9),
        Setting::Int("rounds", "rounds with data (0: unlimited)").Default(0).Range(0, 1 << 30),
        Setting::Choice("entry_order",
                        {"demand", "resource"},
                        "order the entries are declared in (the same problem, numbered "
                        "differently)")
            .Default("demand"),
    };
    return &table;
  }

  // The section is checked and complete (Settings()); what is left is the size of the product.
  dede::Status Configure(const dede::ConfigNode& settings,
                         const dede::PluginContext& context) override {
    dede::Status status = settings.Read("resources", &resources_);
    status.Update(settings.Read("demands", &demands_));
    status.Update(settings.Read("entries_per_demand", &entries_per_demand_));
    status.Update(settings.Read("capacity_factor", &capacity_factor_));
    status.Update(settings.Read("fluctuation", &fluctuation_));
    status.Update(settings.Read("period", &period_));
    status.Update(settings.Read("rounds", &rounds_));
    status.Update(settings.Read("entry_order", &entry_order_));
    if (!status.ok()) return status;
    // Each bound alone admits 4e12 entries; the problem's size is their product. 2e7 entries
    // take about 15 GB with today's engine (about 730 bytes per entry, BENCHMARKS.md).
    const double entries =
        static_cast<double>(demands_) * std::min(entries_per_demand_, resources_);
    if (entries > kMaxEntries) {
      const dede::ConfigNode* at = settings.Find("entries_per_demand");
      if (at == nullptr || at->line() == settings.line()) at = settings.Find("demands");
      if (at == nullptr) at = &settings;
      return dede::InvalidArgument(
          at->Where() + ": demands x min(entries_per_demand, resources) = " +
          std::to_string(static_cast<long long>(entries)) + " entries; at most " +
          std::to_string(static_cast<long long>(kMaxEntries)) + " (about 15 GB)");
    }
    seed_ = context.seed;
    return dede::Status::Ok();
  }

  dede::Status Describe(dede::Problem* problem) override {
    *problem = dede::Problem(resources_, demands_);
    std::mt19937_64 rng(seed_);
    std::uniform_real_distribution<double> weight(0.5, 1.5);
    std::uniform_real_distribution<double> volume(1.0, 10.0);
    std::uniform_real_distribution<double> phase(0.0, 1.0);
    const int matrix = problem->AddAllocation("x", dede::Domain::NonNegative());
    const int k = std::min(entries_per_demand_, resources_);
    std::vector<int> pool(resources_);
    for (int r = 0; r < resources_; ++r) pool[r] = r;
    std::vector<dede::LinearExpr> rows(resources_);
    std::vector<double> offered(resources_, 0.0);
    problem->SetObjectiveSense(dede::ObjectiveSense::kMaximize);
    // The draws, demand by demand: each demand's suppliers and their weights.
    struct Draw {
      int resource;
      double weight;
    };
    std::vector<Draw> draws;
    draws.reserve(static_cast<std::size_t>(demands_) * static_cast<std::size_t>(k));
    for (int d = 0; d < demands_; ++d) {
      for (int i = 0; i < k; ++i) {
        std::uniform_int_distribution<int> pick(i, resources_ - 1);
        std::swap(pool[i], pool[pick(rng)]);
      }
      base_volume_.push_back(volume(rng));
      phase_.push_back(phase(rng));
      for (int i = 0; i < k; ++i) {
        draws.push_back({pool[i], weight(rng)});
        offered[pool[i]] += base_volume_.back() / k;
      }
    }
    // The entries in the order `entry_order` names (the same problem either way): demand by
    // demand, or supplier by supplier (as a domain that builds its resource rows first would).
    std::vector<dede::LinearExpr> columns(demands_);
    const auto add = [&](int d, std::size_t at) {
      const Draw& draw = draws[at];
      const dede::VarId v = problem->AddEntry(matrix, draw.resource, d);
      problem->AddLinearCost(v, draw.weight);
      columns[d].Add(v, 1.0);
      rows[draw.resource].Add(v, 1.0);
    };
    const auto at = [k](int d, int i) {
      return static_cast<std::size_t>(d) * static_cast<std::size_t>(k) +
             static_cast<std::size_t>(i);
    };
    if (entry_order_ == "demand") {
      for (int d = 0; d < demands_; ++d)
        for (int i = 0; i < k; ++i) add(d, at(d, i));
    } else {
      std::vector<std::vector<std::pair<int, int>>> by_resource(resources_);
      for (int d = 0; d < demands_; ++d)
        for (int i = 0; i < k; ++i) by_resource[draws[at(d, i)].resource].emplace_back(d, i);
      for (const auto& list : by_resource)
        for (const auto& [d, i] : list) add(d, at(d, i));
    }
    for (int d = 0; d < demands_; ++d) {
      demand_rows_.push_back(
          problem->AddDemandConstraint(d, columns[d], dede::Sense::kLessEqual, base_volume_[d]));
    }
    for (int r = 0; r < resources_; ++r) {
      capacity_.push_back(capacity_factor_ * offered[r] + 1.0);
      resource_rows_.push_back(
          problem->AddResourceConstraint(r, rows[r], dede::Sense::kLessEqual, capacity_[r]));
    }
    volume_ = base_volume_;
    return dede::Status::Ok();
  }

  dede::Status Refresh(int round, dede::Problem* problem, bool* finished) override {
    *finished = rounds_ > 0 && round >= rounds_;
    if (*finished) return dede::Status::Ok();
    for (int d = 0; d < demands_; ++d) {
      const double angle = 2.0 * std::numbers::pi * (round / period_ + phase_[d]);
      volume_[d] = base_volume_[d] * (1.0 + fluctuation_ * std::sin(angle));
      problem->SetRhs(demand_rows_[d], volume_[d]);
    }
    return dede::Status::Ok();
  }

  dede::Status Report(int round,
                      const dede::Problem& problem,
                      const dede::Allocation& allocation,
                      dede::RoundReport* report) override {
    (void)round;
    std::vector<double> load(resources_, 0.0);
    double delivered = 0.0;
    for (dede::VarId v = 0; v < problem.num_variables(); ++v) {
      const dede::Variable& var = problem.variable(v);
      if (!var.IsEntry()) continue;
      load[var.resource] += allocation[v];
      delivered += allocation[v];
    }
    double demand = 0.0;
    for (double v : volume_) demand += v;
    double max_utilization = 0.0;
    for (int r = 0; r < resources_; ++r)
      max_utilization = std::max(max_utilization, load[r] / capacity_[r]);
    report->metrics = {{"delivered", delivered},
                       {"demand", demand},
                       {"satisfied", demand > 0 ? delivered / demand : 1.0},
                       {"max_utilization", max_utilization}};
    for (int r = 0; r < resources_; ++r) {
      report->entities.push_back(
          {dede::Side::kResource, r, "supplier" + std::to_string(r), {{"capacity", capacity_[r]}}});
    }
    for (int d = 0; d < demands_; ++d) {
      report->entities.push_back(
          {dede::Side::kDemand, d, "consumer" + std::to_string(d), {{"volume", volume_[d]}}});
    }
    return dede::Status::Ok();
  }

 private:
  // Settings (the defaults are in Settings()).
  int resources_ = 0;
  int demands_ = 0;
  int entries_per_demand_ = 0;
  double capacity_factor_ = 0;
  double fluctuation_ = 0;
  double period_ = 0;
  int rounds_ = 0;
  std::string entry_order_;
  std::uint64_t seed_ = 0;
  std::vector<double> base_volume_, phase_, volume_, capacity_;
  std::vector<dede::ConstraintId> demand_rows_, resource_rows_;
};

}  // namespace

DEDE_DECLARE_PLUGIN(TransportPlugin, "transport", "0.1.0")
