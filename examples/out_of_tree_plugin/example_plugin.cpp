// example_capacity: weighted proportional fair share of one resource (a link, a machine).
//
//   maximize    sum_d weights[d] * log(x[d])
//   subject to  sum_d x[d] <= capacity * (1 + capacity_growth * round)   (the resource)
//               x[d] <= demands[d]                                       (demand d)
//               x >= 0
//
// The optimum is weighted water-filling: x[d] = min(demands[d], lambda * weights[d]) with lambda
// chosen so the capacity is used up (or every demand is met). With the defaults (capacity 12,
// demands [2, 5, 9], equal weights) that is [2, 5, 5].
//
// Settings (plugin.settings in the deployment file, all optional): declared in Settings() below
// (dede/settings.h), which the host checks and completes before Configure.
//
// Only the SDK is used: dede/plugin.h (DomainPlugin, Problem, ConfigNode, Status, the settings
// table of dede/settings.h) and dede/csv.h
// (the SDK's table reader: quoting, CRLF, errors that name file:line:column and the value).
#include <string>
#include <utility>
#include <vector>

#include "dede/csv.h"
#include "dede/plugin.h"

namespace {

// A list of numbers > 0 under `key`; *out keeps its value if the key is absent.
dede::Status ReadPositiveList(const dede::ConfigNode& settings,
                              const std::string& key,
                              std::vector<double>* out) {
  const dede::ConfigNode* node = settings.Find(key);
  if (node == nullptr) return dede::Status::Ok();
  if (!node->IsList() || node->items().empty()) {
    return dede::InvalidArgument(node->Where() + ": " + node->path() +
                                 " must be a non-empty list of numbers");
  }
  std::vector<double> values;
  for (const dede::ConfigNode& item : node->items()) {
    dede::Result<double> value = item.AsDouble();
    if (!value.ok()) return value.status();
    if (!(value.value() > 0)) {
      return dede::InvalidArgument(item.Where() + ": " + item.path() + " = " + item.scalar() +
                                   ". Violated constraint: " + item.path() + " > 0");
    }
    values.push_back(value.value());
  }
  *out = std::move(values);
  return dede::Status::Ok();
}

// `demand[,weight]` rows, every value > 0 (weight 1 without the column).
dede::Status ReadDemandsFile(const std::string& path,
                             std::vector<double>* demands,
                             std::vector<double>* weights) {
  dede::Result<dede::CsvReader> opened = dede::CsvReader::Open(path);
  if (!opened.ok()) return opened.status();
  dede::CsvReader& csv = opened.value();
  dede::Status status = csv.RequireColumns({"demand"});
  const int demand = csv.Column("demand"), weight = csv.Column("weight");
  demands->clear();
  weights->clear();
  while (status.ok() && csv.Next(&status)) {
    double d = 0, w = 1;
    status.Update(csv.Read(demand, &d, 1e-12));
    if (weight >= 0) status.Update(csv.Read(weight, &w, 1e-12));
    demands->push_back(d);
    weights->push_back(w);
  }
  if (status.ok() && demands->empty()) return dede::InvalidArgument(path + ": no demands");
  return status;
}

class FairSharePlugin : public dede::DomainPlugin {
 public:
  // The keys of plugin.settings, declared once: the host rejects unknown keys, wrong types and
  // values out of bounds (naming file, line, key and value), fills the defaults and logs them,
  // and `dede options --plugin example_capacity` prints this table.
  // [guide:settings]
  const dede::SettingsTable* Settings() const override {
    using dede::Setting;
    static const dede::SettingsTable table = {
        Setting::Double("capacity", "capacity of the resource in round 0").Default(12.0).Above(0),
        Setting::List("demands", "numbers > 0, one demand block each").DefaultNote("[2, 5, 9]"),
        Setting::List("weights", "numbers > 0, as many as demands").DefaultNote("all 1"),
        Setting::Double("capacity_growth", "capacity grows by this fraction of itself per round")
            .Default(0.0)
            .AtLeast(0),
        Setting::Int("rounds", "Refresh reports finished from this round on")
            .Default(10)
            .AtLeast(0),
        Setting::String("demands_file",
                        "instead of demands and weights: a CSV file (relative to the deployment "
                        "file) with a demand column and optionally a weight column"),
    };
    return &table;
  }
  // [guide:end]

  // Only what the table cannot say: the lists' values, the file, the lengths.
  // [guide:configure]
  dede::Status Configure(const dede::ConfigNode& settings,
                         const dede::PluginContext& context) override {
    dede::Status status = settings.Read("capacity", &capacity_);
    status.Update(ReadPositiveList(settings, "demands", &demands_));
    status.Update(settings.Read("capacity_growth", &capacity_growth_));
    status.Update(settings.Read("rounds", &rounds_));
    const bool has_weights = settings.Has("weights");
    status.Update(ReadPositiveList(settings, "weights", &weights_));
    std::string file;
    status.Update(settings.Read("demands_file", &file));
    if (!status.ok()) return status;
    if (!file.empty()) {
      if (settings.Has("demands") || has_weights) {
        return dede::InvalidArgument(settings.Find("demands_file")->Where() +
                                     ": plugin.settings.demands_file: give the demands and "
                                     "weights in the file or in the settings, not both");
      }
      if (file.front() != '/' && !context.config_dir.empty())
        file = context.config_dir + "/" + file;
      return ReadDemandsFile(file, &demands_, &weights_);
    }
    if (!has_weights) weights_.assign(demands_.size(), 1.0);
    if (weights_.size() != demands_.size()) {
      return dede::InvalidArgument(settings.Find("weights")->Where() + ": " +
                                   settings.Find("weights")->path() + " has " +
                                   std::to_string(weights_.size()) + " entries, demands has " +
                                   std::to_string(demands_.size()));
    }
    return dede::Status::Ok();
  }
  // [guide:end]

  // [guide:describe]
  dede::Status Describe(dede::Problem* problem) override {
    const int n = static_cast<int>(demands_.size());
    *problem = dede::Problem(1, n);
    problem->SetObjectiveSense(dede::ObjectiveSense::kMaximize);
    const int matrix = problem->AddAllocation("rate", dede::Domain::NonNegative());
    rates_.assign(n, -1);
    demand_rows_.assign(n, -1);
    log_terms_.assign(n, -1);
    dede::LinearExpr total;
    for (int d = 0; d < n; ++d) {
      rates_[d] = problem->AddEntry(matrix, 0, d);
      total.Add(rates_[d], 1.0);
      dede::LinearExpr own;
      own.Add(rates_[d], 1.0);
      demand_rows_[d] = problem->AddDemandConstraint(d, own, dede::Sense::kLessEqual, demands_[d]);
      log_terms_[d] = problem->AddLogTerm(dede::BlockId::Demand(d), own, weights_[d]);
    }
    capacity_row_ = problem->AddConstraint(
        dede::BlockId::Resource(0), total, dede::Sense::kLessEqual, capacity_, "capacity");
    return dede::Status::Ok();
  }
  // [guide:end]

  // [guide:refresh]
  dede::Status Refresh(int round, dede::Problem* problem, bool* finished) override {
    *finished = round >= rounds_;
    if (*finished) return dede::Status::Ok();
    problem->SetRhs(capacity_row_, Capacity(round));
    for (std::size_t d = 0; d < demands_.size(); ++d) {
      problem->SetRhs(demand_rows_[d], demands_[d]);
      problem->SetLogWeight(log_terms_[d], weights_[d]);
    }
    return dede::Status::Ok();
  }
  // [guide:end]

  // [guide:report]
  dede::Status Report(int round,
                      const dede::Problem& problem,
                      const dede::Allocation& allocation,
                      dede::RoundReport* report) override {
    if (static_cast<int>(allocation.values.size()) != problem.num_variables()) {
      return dede::InvalidArgument(
          "example_capacity: allocation has " + std::to_string(allocation.values.size()) +
          " values, the problem has " + std::to_string(problem.num_variables()));
    }
    // Jain's index of the weight-normalised rates: 1 when every demand gets the same rate per
    // unit of weight.
    double allocated = 0.0, sum = 0.0, sum_of_squares = 0.0;
    for (std::size_t d = 0; d < demands_.size(); ++d) {
      const double rate = allocation[rates_[d]];
      allocated += rate;
      sum += rate / weights_[d];
      sum_of_squares += (rate / weights_[d]) * (rate / weights_[d]);
    }
    const double n = static_cast<double>(demands_.size());
    const double jain = sum_of_squares > 0 ? sum * sum / (n * sum_of_squares) : 1.0;
    report->metrics = {{"allocated", allocated},
                       {"utilization", allocated / Capacity(round)},
                       {"jain_fairness", jain}};
    report->entities.clear();
    report->entities.push_back(
        {dede::Side::kResource, 0, "resource", {{"capacity", Capacity(round)}}});
    for (std::size_t d = 0; d < demands_.size(); ++d) {
      report->entities.push_back({dede::Side::kDemand,
                                  static_cast<int>(d),
                                  "demand" + std::to_string(d),
                                  {{"demand", demands_[d]}, {"weight", weights_[d]}}});
    }
    return dede::Status::Ok();
  }
  // [guide:end]

 private:
  double Capacity(int round) const { return capacity_ * (1.0 + capacity_growth_ * round); }

  double capacity_ = 0.0;  // the scalars' defaults are in Settings()
  std::vector<double> demands_ = {2.0, 5.0, 9.0};
  std::vector<double> weights_ = {1.0, 1.0, 1.0};
  double capacity_growth_ = 0.0;
  int rounds_ = 0;
  std::vector<dede::VarId> rates_;
  std::vector<dede::ConstraintId> demand_rows_;
  std::vector<int> log_terms_;
  dede::ConstraintId capacity_row_ = -1;
};

}  // namespace

// [guide:declare]
DEDE_DECLARE_PLUGIN(FairSharePlugin, "example_capacity", "0.1.0")
// [guide:end]
