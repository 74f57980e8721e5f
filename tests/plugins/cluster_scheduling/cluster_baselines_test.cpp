// cluster_scheduling baselines (Gandiva, POP-k) and the plugin class: feasibility checked
// independently of the framework (capacity per type, time fraction per job, restrictions),
// POP-1 against the exact solve, POP-k never above exact, a hand-computed Gandiva case, the
// simulator's checkpoints (straight run == run, restart, resume) and its job records.
#include "cluster_baselines.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "cluster_data.h"
#include "cluster_model.h"
#include "cluster_plugin.h"
#include "dede/host_solvers.h"
#include "dede/solver.h"
#include "plugin/plugin_settings.h"
#include "runtime/solver_services.h"

namespace dede::cluster {
namespace {

constexpr double kFeasibilityTolerance = 1e-6;
constexpr double kValueTolerance = 1e-6;  // relative, exact vs exact

const std::string kData = std::string(DEDE_TEST_DATA_DIR) + "/cluster";

// Violations computed from the instance, not from the framework's Problem: the largest excess
// of sum_j s_j x[r, j] over count_r, of sum_r x[r, j] over 1, of a negative entry, and any
// positive time on a type the job may not use or for an inactive job.
double WorstViolation(const Instance& instance,
                      const Problem& problem,
                      const Allocation& a,
                      const std::vector<char>& active) {
  std::vector<double> used(instance.types.size(), 0.0), time(instance.jobs.size(), 0.0);
  double worst = 0.0;
  for (VarId v = 0; v < problem.num_variables(); ++v) {
    const Variable& var = problem.variable(v);
    if (!var.IsEntry()) continue;
    const double x = a[v];
    worst = std::max(worst, -x);
    if (std::abs(x) <= 0.0) continue;
    const int r = var.resource, j = var.demand;
    const auto& allowed = instance.throughput[j];
    const bool ok = std::any_of(allowed.begin(), allowed.end(), [&](const auto& p) {
      return p.first == r && p.second > 0;
    });
    if (!ok || !active[j]) worst = std::max(worst, std::abs(x));
    used[r] += instance.jobs[j].scale_factor * x;
    time[j] += x;
  }
  for (std::size_t r = 0; r < used.size(); ++r)
    worst = std::max(
        worst, (used[r] - instance.types[r].count) / std::max(1.0, 1.0 * instance.types[r].count));
  for (double t : time) worst = std::max(worst, t - 1.0);
  return worst;
}

struct Case {
  Instance instance;
  Problem problem{0, 0};
  ClusterModel model;
  std::vector<char> active;
};

void Build(Case* s, Fairness fairness) {
  s->model.Describe(s->instance, fairness, &s->problem);
  s->model.SetActive(s->active, &s->problem);
}

Instance Generated(int types, int jobs, std::uint64_t seed) {
  GeneratorOptions options;
  options.num_types = types;
  options.num_jobs = jobs;
  options.seed = seed;
  return GenerateInstance(options);
}

SolverServices Services() { return internal::MakeSolverServices(AdmmOptions{}, ExactOptions{}); }

double ExactValue(const Case& s, Allocation* a) {
  SolveSummary summary;
  SolveExact(s.problem, ExactOptions{}, a, &summary);
  EXPECT_TRUE(summary.IsSolutionUsable()) << summary.BriefReport();
  return s.model.Value(*a, s.active);
}

TEST(Gandiva, HandComputedEqualShare) {
  // Types: 8 and 4 instances. Jobs: 0 (1 GPU, both types), 1 (2 GPUs, both types), 2 (1 GPU,
  // type 1 only), 3 (inactive). m = 3 active jobs.
  Case s;
  s.instance.types = {{"a", 8}, {"b", 4}};
  for (int j = 0; j < 4; ++j) {
    Job job;
    job.id = j;
    job.scale_factor = j == 1 ? 2 : 1;
    job.total_steps = 100;
    s.instance.jobs.push_back(job);
  }
  s.instance.throughput = {{{0, 1.0}, {1, 2.0}}, {{0, 1.0}, {1, 1.0}}, {{1, 3.0}}, {{0, 1.0}}};
  s.active = {1, 1, 1, 0};
  Build(&s, Fairness::kMaxMin);
  Allocation a;
  SolveGandiva(s.instance, s.model, s.active, s.problem.num_variables(), &a);
  auto x = [&](int j, int k) { return a[s.model.entries(j)[k].var]; };
  // Job 0: shares 8/3 and 4/3 sum to 4 -> scaled to 2/3 and 1/3.
  EXPECT_NEAR(x(0, 0), 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(x(0, 1), 1.0 / 3.0, 1e-12);
  // Job 1 (2 GPUs): shares (8/3)/2 and (4/3)/2 sum to 2 -> 2/3 and 1/3.
  EXPECT_NEAR(x(1, 0), 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(x(1, 1), 1.0 / 3.0, 1e-12);
  // Job 2: only type b, share 4/3 -> capped at 1.
  EXPECT_NEAR(x(2, 0), 1.0, 1e-12);
  EXPECT_EQ(x(3, 0), 0.0);
  EXPECT_LE(WorstViolation(s.instance, s.problem, a, s.active), kFeasibilityTolerance);
}

TEST(Gandiva, FeasibleAndBelowExactOnAGeneratedInstance) {
  Case s;
  s.instance = Generated(16, 80, 5);
  s.active.assign(s.instance.jobs.size(), 1);
  for (std::size_t j = 0; j < s.active.size(); j += 5) s.active[j] = 0;
  for (Fairness f : {Fairness::kMaxMin, Fairness::kProportional}) {
    Case t;
    t.instance = s.instance;
    t.active = s.active;
    Build(&t, f);
    Allocation g, e;
    SolveGandiva(t.instance, t.model, t.active, t.problem.num_variables(), &g);
    EXPECT_LE(WorstViolation(t.instance, t.problem, g, t.active), kFeasibilityTolerance);
    const double exact = ExactValue(t, &e);
    EXPECT_LE(t.model.Value(g, t.active), exact + kValueTolerance * (1 + std::abs(exact)));
  }
}

TEST(Pop, OnePartEqualsTheExactSolve) {
  for (Fairness f : {Fairness::kMaxMin, Fairness::kProportional}) {
    Case s;
    s.instance = Generated(12, 60, 9);
    s.active.assign(s.instance.jobs.size(), 1);
    s.active[3] = s.active[17] = 0;
    Build(&s, f);
    Allocation e, p;
    const double exact = ExactValue(s, &e);
    PopOptions options;
    options.k = 1;
    SolveSummary summary;
    ASSERT_TRUE(SolvePop(s.instance,
                         s.model,
                         s.active,
                         s.problem.num_variables(),
                         options,
                         Services(),
                         &p,
                         &summary)
                    .ok());
    EXPECT_TRUE(summary.termination == Termination::kConverged) << summary.message;
    const double pop = s.model.Value(p, s.active);
    // The exact solve of PF is an outer approximation, accurate to its cut tolerance.
    const double tol = f == Fairness::kMaxMin ? 1e-6 : 1e-4;
    EXPECT_NEAR(pop, exact, tol * (1 + std::abs(exact)))
        << (f == Fairness::kMaxMin ? "max-min" : "PF");
    EXPECT_LE(WorstViolation(s.instance, s.problem, p, s.active), kFeasibilityTolerance);
  }
}

TEST(Pop, PartsAreFeasibleAndNeverBeatExact) {
  for (Fairness f : {Fairness::kMaxMin, Fairness::kProportional}) {
    Case s;
    // Oversubscribed (12 types, ~430 instances, 300 jobs): the max-min optimum is not just one
    // job's ceiling, so the parts' shares matter.
    s.instance = Generated(12, 300, 3);
    s.active.assign(s.instance.jobs.size(), 1);
    for (std::size_t j = 0; j < s.active.size(); j += 7) s.active[j] = 0;
    Build(&s, f);
    Allocation e;
    const double exact = ExactValue(s, &e);
    for (int k : {2, 4, 16}) {
      for (bool admm : {false, true}) {
        if (admm && k != 4) continue;
        PopOptions options;
        options.k = k;
        options.seed = 11;
        options.use_admm = admm;
        options.threads = 2;
        Allocation p;
        SolveSummary summary;
        PopResult result;
        ASSERT_TRUE(SolvePop(s.instance,
                             s.model,
                             s.active,
                             s.problem.num_variables(),
                             options,
                             Services(),
                             &p,
                             &summary,
                             &result)
                        .ok());
        EXPECT_LE(WorstViolation(s.instance, s.problem, p, s.active), kFeasibilityTolerance)
            << "k " << k << " admm " << admm;
        const double value = s.model.Value(p, s.active);
        EXPECT_LE(value, exact + kValueTolerance * (1 + std::abs(exact))) << "k " << k;
        EXPECT_GT(result.parts_solved, 0);
        EXPECT_LE(result.max_part_seconds, result.sum_part_seconds + 1e-12);
        std::printf("%s POP-%d%s: %.6f (exact %.6f)\n",
                    f == Fairness::kMaxMin ? "max-min" : "PF",
                    k,
                    admm ? "/admm" : "",
                    value,
                    exact);
      }
    }
  }
}

// The deployment's time limit bounds POP's whole round: with a microsecond, the parts that
// start after it has passed are not solved and counted, and the method ends on the time limit
// (with exact and with ADMM parts).
TEST(Pop, PartsShareTheRoundsTimeLimit) {
  Case s;
  s.instance = Generated(12, 300, 3);
  s.active.assign(s.instance.jobs.size(), 1);
  Build(&s, Fairness::kMaxMin);
  for (bool admm : {false, true}) {
    PopOptions options;
    options.k = 16;
    options.use_admm = admm;
    options.threads = 2;
    AdmmOptions admm_options;
    admm_options.time_limit_seconds = 1e-6;
    ExactOptions exact_options;
    exact_options.time_limit_seconds = 1e-6;
    Allocation p;
    SolveSummary summary;
    PopResult result;
    ASSERT_TRUE(SolvePop(s.instance,
                         s.model,
                         s.active,
                         s.problem.num_variables(),
                         options,
                         internal::MakeSolverServices(admm_options, exact_options),
                         &p,
                         &summary,
                         &result)
                    .ok());
    EXPECT_EQ(summary.termination, Termination::kTimeLimit) << summary.message;
    EXPECT_FALSE(result.all_usable);
    EXPECT_NE(summary.message.find("share of the 1e-06 s time limit"), std::string::npos)
        << summary.message;
    EXPECT_NE(summary.message.find("not solved (no time left)"), std::string::npos)
        << summary.message;
    EXPECT_LT(result.parts_solved, 16) << summary.message;
  }
}

TEST(Pop, SplitDependsOnTheSeedOnly) {
  Case s;
  s.instance = Generated(8, 40, 2);
  s.active.assign(s.instance.jobs.size(), 1);
  Build(&s, Fairness::kMaxMin);
  PopOptions options;
  options.k = 4;
  options.seed = 5;
  Allocation a, b, c;
  SolveSummary summary;
  ASSERT_TRUE(SolvePop(s.instance,
                       s.model,
                       s.active,
                       s.problem.num_variables(),
                       options,
                       Services(),
                       &a,
                       &summary)
                  .ok());
  ASSERT_TRUE(SolvePop(s.instance,
                       s.model,
                       s.active,
                       s.problem.num_variables(),
                       options,
                       Services(),
                       &b,
                       &summary)
                  .ok());
  EXPECT_EQ(a.values, b.values);
  options.seed = 6;
  ASSERT_TRUE(SolvePop(s.instance,
                       s.model,
                       s.active,
                       s.problem.num_variables(),
                       options,
                       Services(),
                       &c,
                       &summary)
                  .ok());
  EXPECT_NE(a.values, c.values);
}

// ---- the plugin class --------------------------------------------------------------------

ConfigNode Scalar(const std::string& key, const std::string& value) {
  return ConfigNode::Scalar(value, "cs_test.yaml", 1, 1, "plugin.settings." + key);
}

ConfigNode TraceSettings(const std::string& fairness) {
  ConfigNode node = ConfigNode::Map("cs_test.yaml", 1, 1, "plugin.settings");
  node.Insert("fairness", Scalar("fairness", fairness));
  node.Insert("cluster_spec", Scalar("cluster_spec", "cluster_spec.csv"));
  node.Insert("throughputs", Scalar("throughputs", "throughputs_subset.csv"));
  node.Insert("trace", Scalar("trace", "job_trace_seed0.csv"));
  return node;
}

PluginContext Context() {
  PluginContext context;
  context.config_file = kData + "/cs_test.yaml";
  context.config_dir = kData;
  context.seed = 1;
  return context;
}

struct Plugin {
  ClusterSchedulingPlugin plugin;
  Problem problem{0, 0};
};

void Start(Plugin* p, const ConfigNode& settings) {
  ASSERT_TRUE(internal::ConfigureWithSettings(&p->plugin, settings, Context()).ok());
  ASSERT_TRUE(p->plugin.Describe(&p->problem).ok());
}

TEST(ClusterPlugin, MethodsAreFeasibleOnTheTrace) {
  for (const std::string fairness : {"max_min", "proportional"}) {
    Plugin p;
    Start(&p, TraceSettings(fairness));
    bool finished = true;
    ASSERT_TRUE(p.plugin.Refresh(0, &p.problem, &finished).ok());
    ASSERT_FALSE(finished);
    const std::vector<char> active = p.plugin.Active();
    Allocation exact;
    SolveSummary summary;
    SolveExact(p.problem, ExactOptions{}, &exact, &summary);
    const double best = p.plugin.model().Value(exact, active);
    std::vector<std::string> names;
    for (const MethodInfo& m : p.plugin.Methods()) names.push_back(m.name);
    EXPECT_EQ(names, (std::vector<std::string>{"gandiva", "pop-4", "pop-16", "pop-64"}));
    for (const std::string& method : names) {
      Allocation a;
      SolveSummary s;
      ASSERT_TRUE(p.plugin.SolveWith(method, 0, p.problem, Services(), &a, &s).ok()) << method;
      ASSERT_EQ(a.values.size(), static_cast<std::size_t>(p.problem.num_variables()));
      EXPECT_GE(s.total_seconds, 0.0);
      EXPECT_LE(WorstViolation(p.plugin.instance(), p.problem, a, active), kFeasibilityTolerance)
          << method;
      EXPECT_LE(p.problem.MeasureViolation(a.values).Max(), kFeasibilityTolerance) << method;
      EXPECT_LE(p.plugin.model().Value(a, active), best + 1e-6 * (1 + std::abs(best))) << method;
    }
    Allocation a;
    SolveSummary s;
    EXPECT_FALSE(p.plugin.SolveWith("pop-3", 0, p.problem, Services(), &a, &s).ok());
  }
}

// max_types_per_job reaches the model (each job keeps min(k, allowed) types), and POP's parts
// follow the sparse model's entries: every method stays feasible on the sparse problem and
// never beats its exact optimum, which itself is not above the full problem's.
TEST(ClusterPlugin, MaxTypesPerJobMakesTheSparseModel) {
  for (const std::string fairness : {"max_min", "proportional"}) {
    Plugin full, sparse;
    Start(&full, TraceSettings(fairness));
    ConfigNode settings = TraceSettings(fairness);
    settings.Insert("max_types_per_job", Scalar("max_types_per_job", "3"));
    Start(&sparse, settings);
    std::size_t entries = 0;
    for (int j = 0; j < sparse.plugin.model().num_jobs(); ++j) {
      const std::size_t allowed = sparse.plugin.instance().throughput[j].size();
      EXPECT_EQ(sparse.plugin.model().entries(j).size(), std::min<std::size_t>(3, allowed));
      entries += sparse.plugin.model().entries(j).size();
    }
    EXPECT_EQ(static_cast<std::size_t>(sparse.problem.num_variables()), entries);
    EXPECT_LT(sparse.problem.num_variables(), full.problem.num_variables());
    bool finished = true;
    ASSERT_TRUE(full.plugin.Refresh(0, &full.problem, &finished).ok());
    ASSERT_TRUE(sparse.plugin.Refresh(0, &sparse.problem, &finished).ok());
    const std::vector<char> active = sparse.plugin.Active();
    Allocation exact_full, exact_sparse;
    SolveSummary summary;
    SolveExact(full.problem, ExactOptions{}, &exact_full, &summary);
    SolveExact(sparse.problem, ExactOptions{}, &exact_sparse, &summary);
    const double best_full = full.plugin.model().Value(exact_full, active);
    const double best = sparse.plugin.model().Value(exact_sparse, active);
    EXPECT_LE(best, best_full + 1e-6 * (1 + std::abs(best_full))) << fairness;
    for (const char* method : {"gandiva", "pop-4"}) {
      Allocation a;
      SolveSummary s;
      ASSERT_TRUE(sparse.plugin.SolveWith(method, 0, sparse.problem, Services(), &a, &s).ok());
      EXPECT_LE(WorstViolation(sparse.plugin.instance(), sparse.problem, a, active),
                kFeasibilityTolerance)
          << method;
      EXPECT_LE(sparse.plugin.model().Value(a, active), best + 1e-6 * (1 + std::abs(best)))
          << method;
    }
  }
  ClusterSchedulingPlugin bad;
  ConfigNode settings = TraceSettings("max_min");
  settings.Insert("max_types_per_job", Scalar("max_types_per_job", "-1"));
  EXPECT_FALSE(internal::ConfigureWithSettings(&bad, settings, Context()).ok());
}

// Runs rounds [from, to) with the exact solver; returns the objective of each round.
std::vector<double> RunRounds(Plugin* p, int from, int to, std::vector<RoundReport>* reports) {
  std::vector<double> values;
  for (int round = from; round < to; ++round) {
    bool finished = false;
    EXPECT_TRUE(p->plugin.Refresh(round, &p->problem, &finished).ok());
    if (finished) break;
    Allocation a;
    SolveSummary s;
    SolveExact(p->problem, ExactOptions{}, &a, &s);
    EXPECT_TRUE(s.IsSolutionUsable());
    RoundReport report;
    EXPECT_TRUE(p->plugin.Report(round, p->problem, a, &report).ok());
    values.push_back(s.objective);
    if (reports != nullptr) reports->push_back(report);
  }
  return values;
}

TEST(ClusterPlugin, RestartFromACheckpointResumesExactly) {
  constexpr int kRounds = 24, kSplit = 9;
  Plugin straight;
  Start(&straight, TraceSettings("max_min"));
  std::vector<RoundReport> reports;
  const std::vector<double> expected = RunRounds(&straight, 0, kRounds, &reports);
  ASSERT_EQ(expected.size(), static_cast<std::size_t>(kRounds));

  Plugin first;
  Start(&first, TraceSettings("max_min"));
  std::vector<double> got = RunRounds(&first, 0, kSplit, nullptr);
  std::string state;
  ASSERT_TRUE(first.plugin.SaveState(kSplit - 1, &state).ok());
  Plugin second;  // a new process: configured and described from scratch
  Start(&second, TraceSettings("max_min"));
  ASSERT_TRUE(second.plugin.RestoreState(kSplit - 1, state).ok());
  for (double v : RunRounds(&second, kSplit, kRounds, nullptr)) got.push_back(v);
  ASSERT_EQ(got.size(), expected.size());
  for (int r = 0; r < kRounds; ++r) EXPECT_EQ(got[r], expected[r]) << "round " << r;

  // A checkpoint of another job set or round is refused with a reason.
  Plugin other;
  Start(&other, TraceSettings("max_min"));
  Status wrong_round = other.plugin.RestoreState(kSplit, state);
  EXPECT_FALSE(wrong_round.ok());
  std::string edited = state;
  edited[edited.find("jobs ") + 5] = '9';
  EXPECT_FALSE(other.plugin.RestoreState(kSplit - 1, edited).ok());

  // Job records: the 34 jobs of round 0 arrive in round 0; every completion has a JCT equal
  // to completion - arrival, and completions are inside their round.
  int arrivals_round0 = 0, completions = 0;
  for (std::size_t r = 0; r < reports.size(); ++r) {
    for (const DomainRecord& rec : reports[r].records) {
      EXPECT_EQ(rec.kind, "job");
      std::map<std::string, double> v(rec.values.begin(), rec.values.end());
      const std::string event = rec.labels.at(0).second;
      if (r == 0 && event.rfind("arrived", 0) == 0) ++arrivals_round0;
      if (event.find("completed") != std::string::npos) {
        ++completions;
        EXPECT_NEAR(v["jct_s"], v["completion_s"] - v["arrival_s"], 1e-9);
        EXPECT_GE(v["completion_s"], r * 360.0);
        EXPECT_LE(v["completion_s"], (r + 1) * 360.0 + 1e-9);
      }
    }
  }
  EXPECT_EQ(arrivals_round0, 34);
  EXPECT_GT(completions, 0);
}

TEST(ClusterPlugin, GeneratorSettingsReachTheGenerator) {
  auto settings = [](const std::string& sf, const std::string& w) {
    ConfigNode node = ConfigNode::Map("cs_test.yaml", 1, 1, "plugin.settings");
    node.Insert("source", Scalar("source", "generator"));
    node.Insert("num_types", Scalar("num_types", "10"));
    node.Insert("num_jobs", Scalar("num_jobs", "400"));
    node.Insert("scale_factors", Scalar("scale_factors", sf));
    node.Insert("max_weight", Scalar("max_weight", w));
    return node;
  };
  Plugin uniform, philly;
  Start(&uniform, settings("uniform", "1"));
  Start(&philly, settings("philly", "10"));
  auto mean_sf = [](const Instance& in) {
    double s = 0;
    for (const Job& j : in.jobs) s += j.scale_factor;
    return s / in.jobs.size();
  };
  EXPECT_NEAR(mean_sf(uniform.plugin.instance()), 10.5, 1.5);  // uniform over 1..32
  EXPECT_NEAR(mean_sf(philly.plugin.instance()), 2.3, 0.5);    // 1/2/4/8 mix
  for (const Job& j : uniform.plugin.instance().jobs) EXPECT_EQ(j.weight, 1.0);
  ClusterSchedulingPlugin bad;
  EXPECT_FALSE(internal::ConfigureWithSettings(&bad, settings("zipf", "1"), Context()).ok());
  EXPECT_FALSE(internal::ConfigureWithSettings(&bad, settings("uniform", "0.5"), Context()).ok());
}

TEST(ClusterPlugin, PhillySourceBuildsThePaperShape) {
  ConfigNode node = ConfigNode::Map("cs_test.yaml", 1, 1, "plugin.settings");
  node.Insert("source", Scalar("source", "philly"));
  node.Insert("philly_trace", Scalar("philly_trace", "philly_seed0_sample.csv"));
  node.Insert("num_types", Scalar("num_types", "30"));
  node.Insert("num_jobs", Scalar("num_jobs", "50"));
  node.Insert("num_arrivals", Scalar("num_arrivals", "20"));
  Plugin p;
  Start(&p, node);
  const Instance& instance = p.plugin.instance();
  ASSERT_EQ(instance.types.size(), 30u);
  ASSERT_EQ(instance.jobs.size(), 70u);
  EXPECT_EQ(instance.types[4].name, "p100_4");
  EXPECT_EQ(instance.jobs[49].arrival_s, 0.0);
  EXPECT_GE(instance.jobs[51].arrival_s, instance.jobs[50].arrival_s);
  bool finished = true;
  ASSERT_TRUE(p.plugin.Refresh(0, &p.problem, &finished).ok());
  int active = 0;
  for (char c : p.plugin.Active()) active += c;
  EXPECT_EQ(active, 51);  // the steady-state jobs and the first arrival (at t = 0)
  // Missing trace file: an error naming it.
  ConfigNode bad = ConfigNode::Map("cs_test.yaml", 1, 1, "plugin.settings");
  bad.Insert("source", Scalar("source", "philly"));
  bad.Insert("philly_trace", Scalar("philly_trace", "nope.csv"));
  ClusterSchedulingPlugin q;
  const Status status = internal::ConfigureWithSettings(&q, bad, Context());
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("nope.csv"), std::string::npos) << status.message();
}

}  // namespace
}  // namespace dede::cluster

namespace dede::cluster {
namespace {

Event MakeEvent(std::int64_t id,
                const std::string& kind,
                const std::string& target,
                const std::string& key = "",
                const std::string& value = "") {
  Event event;
  event.id = id;
  event.kind = kind;
  event.target = target;
  event.payload = ConfigNode::Map("event " + std::to_string(id), 0, 0, "payload");
  if (!key.empty()) {
    event.payload.Insert(
        key, ConfigNode::Scalar(value, "event " + std::to_string(id), 0, 0, "payload." + key));
  }
  return event;
}

TEST(ClusterPlugin, InboxEventsChangeGpuCountsAndRemoveJobs) {
  Plugin p;
  Start(&p, TraceSettings("max_min"));
  bool finished = true;
  ASSERT_TRUE(p.plugin.Refresh(0, &p.problem, &finished).ok());
  const std::vector<char> before = p.plugin.Active();
  int job = -1;
  for (std::size_t j = 0; j < before.size() && job < 0; ++j) {
    if (before[j]) job = static_cast<int>(j);
  }
  ASSERT_GE(job, 0);
  const std::string id = std::to_string(p.plugin.instance().jobs[job].id);
  const std::string type0 = p.plugin.instance().types[0].name;
  std::string rejection;
  ASSERT_TRUE(
      p.plugin.ApplyEvent(0, MakeEvent(1, "gpu_count", type0, "count", "0"), &rejection).ok());
  EXPECT_EQ(rejection, "");
  ASSERT_TRUE(p.plugin.ApplyEvent(0, MakeEvent(2, "job_depart", id), &rejection).ok());
  EXPECT_EQ(rejection, "");
  ASSERT_TRUE(p.plugin.ApplyEvent(0, MakeEvent(3, "job_depart", id), &rejection).ok());
  EXPECT_NE(rejection.find("already left in round 0"), std::string::npos) << rejection;
  ASSERT_TRUE(
      p.plugin.ApplyEvent(0, MakeEvent(4, "gpu_count", "worker_99", "count", "3"), &rejection)
          .ok());
  EXPECT_NE(rejection.find("is not a worker type"), std::string::npos) << rejection;
  ASSERT_TRUE(
      p.plugin.ApplyEvent(0, MakeEvent(5, "gpu_count", "1", "count", "-2"), &rejection).ok());
  EXPECT_NE(rejection.find("event 5: payload.count = -2"), std::string::npos) << rejection;
  ASSERT_TRUE(p.plugin.Refresh(0, &p.problem, &finished).ok());
  EXPECT_FALSE(p.plugin.Active()[job]);
  EXPECT_EQ(p.plugin.instance().types[0].count, 0);
  Allocation exact;
  SolveSummary summary;
  SolveExact(p.problem, ExactOptions{}, &exact, &summary);
  ASSERT_EQ(summary.termination, Termination::kConverged) << summary.message;
  // Nothing runs on the type without GPUs.
  for (int j = 0; j < static_cast<int>(before.size()); ++j) {
    for (const ClusterModel::Entry& e : p.plugin.model().entries(j)) {
      if (e.type == 0) {
        EXPECT_NEAR(exact.values[e.var], 0.0, 1e-9);
      }
    }
  }
  RoundReport report;
  ASSERT_TRUE(p.plugin.Report(0, p.problem, exact, &report).ok());
  bool departed = false;
  for (const Metric& m : report.metrics) departed |= m.name == "departed_jobs" && m.value == 1;
  EXPECT_TRUE(departed);
}

}  // namespace
}  // namespace dede::cluster

namespace dede::cluster {
namespace {

TEST(ClusterPlugin, ArrivalsFillReservedSlotsFromTheirRound) {
  ConfigNode settings = TraceSettings("max_min");
  settings.Insert("event_job_slots", Scalar("event_job_slots", "2"));
  Plugin p;
  Start(&p, settings);
  const int jobs = static_cast<int>(p.plugin.instance().jobs.size());
  bool finished = true;
  ASSERT_TRUE(p.plugin.Refresh(0, &p.problem, &finished).ok());
  ASSERT_FALSE(p.plugin.Active()[jobs - 2]);  // slots are idle until an event fills one
  // Job type 6 at scale factor 1 (the table has it on worker type 0 at 0.2924 steps/s).
  Event arrival = MakeEvent(1, "job_arrive", "9001");
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"job_type", "6"}, {"scale_factor", "1"}, {"total_steps", "5000"}}) {
    arrival.payload.Insert(key, ConfigNode::Scalar(value, "event 1", 0, 0, "payload." + key));
  }
  std::string rejection;
  ASSERT_TRUE(p.plugin.ApplyEvent(1, arrival, &rejection).ok());
  ASSERT_EQ(rejection, "");
  Event twice = arrival;
  twice.id = 2;
  ASSERT_TRUE(p.plugin.ApplyEvent(1, twice, &rejection).ok());
  EXPECT_NE(rejection.find("job id 9001 is taken"), std::string::npos) << rejection;
  Event custom = MakeEvent(3, "job_arrive", "9002");
  ConfigNode throughputs = ConfigNode::Map("event 3", 0, 0, "payload.throughputs");
  throughputs.Insert(p.plugin.instance().types[1].name,
                     ConfigNode::Scalar("2.5", "event 3", 0, 0, "payload.throughputs.x"));
  custom.payload.Insert("throughputs", throughputs);
  custom.payload.Insert("total_steps",
                        ConfigNode::Scalar("100", "event 3", 0, 0, "payload.total_steps"));
  ASSERT_TRUE(p.plugin.ApplyEvent(1, custom, &rejection).ok());
  ASSERT_EQ(rejection, "");
  Event full = MakeEvent(4, "job_arrive", "9003");
  full.payload.Insert("total_steps",
                      ConfigNode::Scalar("1", "event 4", 0, 0, "payload.total_steps"));
  ASSERT_TRUE(p.plugin.ApplyEvent(1, full, &rejection).ok());
  EXPECT_NE(rejection.find("all 2 arrival slots are taken"), std::string::npos) << rejection;

  ASSERT_TRUE(p.plugin.Refresh(1, &p.problem, &finished).ok());
  const std::vector<char> active = p.plugin.Active();
  ASSERT_TRUE(active[jobs - 2]);
  ASSERT_TRUE(active[jobs - 1]);
  EXPECT_EQ(p.plugin.instance().jobs[jobs - 2].id, 9001);
  Allocation exact;
  SolveSummary summary;
  SolveExact(p.problem, ExactOptions{}, &exact, &summary);
  ASSERT_EQ(summary.termination, Termination::kConverged) << summary.message;
  EXPECT_LE(WorstViolation(p.plugin.instance(), p.problem, exact, active), kFeasibilityTolerance);
  // The arrivals run only where they can: 9002 only on type 1, 9001 where type 6 has throughput.
  for (const ClusterModel::Entry& e : p.plugin.model().entries(jobs - 1)) {
    if (e.type != 1) {
      EXPECT_EQ(exact.values[e.var], 0.0);
    }
  }
  EXPECT_GT(p.plugin.model().NormalizedThroughput(jobs - 1, exact), 0.0);
  EXPECT_GT(p.plugin.model().NormalizedThroughput(jobs - 2, exact), 0.0);
  // The max-min value is the smallest normalised throughput over every active job, the
  // arrivals included.
  double least = std::numeric_limits<double>::infinity();
  for (int j = 0; j < jobs; ++j) {
    if (active[j]) least = std::min(least, p.plugin.model().NormalizedThroughput(j, exact));
  }
  EXPECT_NEAR(p.plugin.model().Value(exact, active), least, 1e-12);
  EXPECT_NEAR(summary.objective, least, 1e-6 * (1 + least));
}

}  // namespace
}  // namespace dede::cluster
