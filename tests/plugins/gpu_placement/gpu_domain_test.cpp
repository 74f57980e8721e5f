// The gpu_placement domain driven directly (as the runner does): ticks, allocations, records,
// checkpoints, settings and the combined ADMM + Dally mode.
#include "gpu_domain.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>

#include "config/deployment.h"
#include "dede/host_solvers.h"
#include "dede/solver.h"
#include "plugin/plugin_settings.h"
#include "runtime/solver_services.h"

namespace dede::gpu {
namespace {

const std::string kData = std::string(DEDE_TEST_DATA_DIR) + "/dally";

// plugin.settings of a YAML document (so error paths read plugin.settings.<key>).
ConfigNode Settings(const std::string& body) {
  std::string text = "plugin:\n  name: gpu_placement\n  settings:\n";
  std::string line;
  for (size_t i = 0; i <= body.size(); ++i) {
    if (i == body.size() || body[i] == '\n') {
      if (!line.empty()) text += "    " + line + "\n";
      line.clear();
    } else {
      line += body[i];
    }
  }
  Result<ConfigNode> root = internal::ParseYamlString(text, "test.yaml");
  EXPECT_TRUE(root.ok()) << root.status().message();
  return *root->Find("plugin")->Find("settings");
}

// As the host reads plugin.settings: checked against the plugin's table (defaults filled),
// then the domain's ParseSettings.
Status Parse(const ConfigNode& raw, const PluginContext& ctx, DomainSettings* out) {
  Result<ConfigNode> checked = internal::CheckSettings(SettingsTableOf(), raw, nullptr);
  if (!checked.ok()) return checked.status();
  return ParseSettings(checked.value(), ctx, out);
}

constexpr const char* kSmall =
    "tick_s: 1800\n"
    "lease_s: 3600\n"
    "cluster: {racks: 2, machines_per_rack: 2, gpus_per_machine: 8}\n"
    "workload: {source: synthetic, jobs: 40, arrivals: poisson, jobs_per_day: 200, seed: 3}\n";

SolverServices Services() {
  AdmmOptions admm;
  admm.num_threads = 1;
  admm.max_iterations = 2000;
  return internal::MakeSolverServices(admm, ExactOptions{});
}

struct Driver {
  GpuPlacementDomain d;
  Problem p{0, 0};
  SolverServices services = Services();
  Status Init(const std::string& yaml, uint64_t seed = 7) {
    PluginContext ctx;
    ctx.seed = seed;
    ctx.config_dir = kData;
    Status st = internal::ConfigureWithSettings(&d, Settings(yaml), ctx);
    if (!st.ok()) return st;
    return d.Describe(&p);
  }
  // One round as the runner does with solver.kind: plugin. false when the plugin says finished.
  bool Round(const std::string& method,
             int round,
             RoundReport* report = nullptr,
             Allocation* out = nullptr) {
    bool finished = false;
    EXPECT_TRUE(d.Refresh(round, &p, &finished).ok());
    if (finished) return false;
    Allocation a;
    SolveSummary s;
    Status st = d.SolveWith(method, round, p, services, &a, &s);
    EXPECT_TRUE(st.ok()) << st.message();
    EXPECT_TRUE(d.Repair(p, &a).ok());
    RoundReport r;
    EXPECT_TRUE(d.Report(round, p, a, &r).ok());
    if (report) *report = r;
    if (out) *out = a;
    return true;
  }
  int RunToEnd(const std::string& method, int from = 0) {
    int round = from;
    while (Round(method, round)) ++round;
    return round;
  }
  std::vector<double> Completions() const {
    std::vector<double> c;
    for (const SimJob& j : d.simulation().jobs()) c.push_back(j.res.end_s);
    return c;
  }
};

const std::vector<std::string> kMethods = {
    "dally", "dally-manual", "dally-nowait", "dally-consolidated", "tiresias", "gandiva"};

TEST(GpuPlacementDomain, MethodsAreTheSixPolicies) {
  Driver r;
  ASSERT_TRUE(r.Init(kSmall).ok());
  std::vector<std::string> names;
  for (const MethodInfo& m : r.d.Methods()) names.push_back(m.name);
  EXPECT_EQ(names, kMethods);
  bool finished = false;
  ASSERT_TRUE(r.d.Refresh(0, &r.p, &finished).ok());
  Allocation a;
  SolveSummary s;
  Status st = r.d.SolveWith("fifo", 0, r.p, SolverServices{}, &a, &s);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("fifo"), std::string::npos);
  EXPECT_NE(st.message().find("dally-consolidated"), std::string::npos);
}

// Ticks of any length take exactly the decisions of one uninterrupted simulation.
TEST(GpuPlacementDomain, TickedRunEqualsUninterruptedSimulation) {
  for (const std::string& method : kMethods) {
    Driver r;
    ASSERT_TRUE(r.Init(kSmall).ok());
    const int rounds = r.RunToEnd(method);
    EXPECT_TRUE(r.d.simulation().Done());
    SimOptions o = r.d.settings().sim;
    ParseMethod(method, &o.policy);
    const SimResult full = Simulate(r.d.workload(), o);
    const auto c = r.Completions();
    ASSERT_EQ(c.size(), full.jobs.size());
    for (size_t i = 0; i < c.size(); ++i) {
      EXPECT_GT(c[i], 0) << method;
      EXPECT_EQ(c[i], full.jobs[i].end_s) << method << " job " << i;
    }
    // The deployment ends in the round after the last completion.
    const double last = *std::max_element(c.begin(), c.end());
    EXPECT_LE(r.d.TickEnd(rounds - 2), last) << method;
    EXPECT_GE(r.d.TickEnd(rounds - 1), last) << method;
  }
}

TEST(GpuPlacementDomain, AllocationIsGpusHeldAndFeasible) {
  Driver r;
  ASSERT_TRUE(r.Init(kSmall).ok());
  int busy_rounds = 0;
  for (int round = 0; round < 30; ++round) {
    Allocation a;
    ASSERT_TRUE(r.Round("dally", round, nullptr, &a));
    const auto& jobs = r.d.simulation().jobs();
    double held = 0;
    for (size_t j = 0; j < jobs.size(); ++j) {
      double sum = 0;
      for (VarId v = 0; v < r.p.num_variables(); ++v)
        if (r.p.variable(v).demand == static_cast<int>(j)) sum += a.values[v];
      EXPECT_EQ(sum, jobs[j].running ? jobs[j].spec.gpus : 0) << "job " << j << " round " << round;
      held += sum;
    }
    EXPECT_EQ(held, r.d.simulation().UsedGpus());
    busy_rounds += held > 0;
    EXPECT_LE(r.p.MeasureViolation(a.values).Max(), 1e-9) << "round " << round;
  }
  EXPECT_GT(busy_rounds, 10);
}

TEST(GpuPlacementDomain, FinishedOnlyWhenEveryJobCompleted) {
  Driver r;
  ASSERT_TRUE(r.Init(kSmall).ok());
  const int rounds = r.RunToEnd("tiresias");
  bool finished = false;
  ASSERT_TRUE(r.d.Refresh(rounds, &r.p, &finished).ok());
  EXPECT_TRUE(finished);
  EXPECT_EQ(r.d.simulation().remaining(), 0);
  Driver q;
  ASSERT_TRUE(q.Init(kSmall).ok());
  ASSERT_TRUE(q.d.Refresh(rounds - 1, &q.p, &finished).ok());  // replays rounds - 1 ticks
  EXPECT_FALSE(finished);
}

// Kill after k rounds, restore from the checkpoint, continue: identical to a straight run.
TEST(GpuPlacementDomain, CheckpointResumeIsExact) {
  for (const std::string& method :
       {std::string("dally"), std::string("gandiva"), std::string("tiresias")}) {
    Driver straight;
    ASSERT_TRUE(straight.Init(kSmall).ok());
    const int total = straight.RunToEnd(method);
    ASSERT_GT(total, 20);
    for (int k : {1, 7, total / 2}) {
      Driver first;
      ASSERT_TRUE(first.Init(kSmall).ok());
      for (int round = 0; round < k; ++round) ASSERT_TRUE(first.Round(method, round));
      std::string state;
      ASSERT_TRUE(first.d.SaveState(k - 1, &state).ok());
      Driver second;  // a new process: Configure, Describe, RestoreState, then rounds k...
      ASSERT_TRUE(second.Init(kSmall).ok());
      Status st = second.d.RestoreState(k - 1, state);
      ASSERT_TRUE(st.ok()) << st.message();
      EXPECT_EQ(second.RunToEnd(method, k), total) << method << " k " << k;
      EXPECT_EQ(second.Completions(), straight.Completions()) << method << " k " << k;
      EXPECT_EQ(second.d.simulation().Save(), straight.d.simulation().Save())
          << method << " k " << k;
    }
  }
}

// Without a checkpoint (checkpoint_every: 0) a new process replays from round 0: same schedule.
TEST(GpuPlacementDomain, ResumeWithoutCheckpointReplays) {
  const std::string yaml = std::string(kSmall) + "checkpoint_every: 0\n";
  Driver straight;
  ASSERT_TRUE(straight.Init(yaml).ok());
  const int total = straight.RunToEnd("dally");
  Driver first;
  ASSERT_TRUE(first.Init(yaml).ok());
  for (int round = 0; round < 9; ++round) ASSERT_TRUE(first.Round("dally", round));
  std::string state;
  ASSERT_TRUE(first.d.SaveState(8, &state).ok());
  EXPECT_LT(state.size(), 64u);  // the policy only
  Driver second;
  ASSERT_TRUE(second.Init(yaml).ok());
  ASSERT_TRUE(second.d.RestoreState(8, state).ok());
  EXPECT_EQ(second.RunToEnd("dally", 9), total);
  EXPECT_EQ(second.Completions(), straight.Completions());
  // The replay uses the saved policy, also when it is not settings.policy: the finish round is
  // decided with the right schedule.
  Driver t_straight, t_first, t_second;
  ASSERT_TRUE(t_straight.Init(yaml).ok());
  const int t_total = t_straight.RunToEnd("gandiva");
  ASSERT_TRUE(t_first.Init(yaml).ok());
  for (int round = 0; round < 9; ++round) ASSERT_TRUE(t_first.Round("gandiva", round));
  ASSERT_TRUE(t_first.d.SaveState(8, &state).ok());
  ASSERT_TRUE(t_second.Init(yaml).ok());
  ASSERT_TRUE(t_second.d.RestoreState(8, state).ok());
  bool finished = true;
  ASSERT_TRUE(t_second.d.Refresh(9, &t_second.p, &finished).ok());
  EXPECT_FALSE(finished);
  EXPECT_EQ(t_second.d.simulation().options().policy, Policy::kGandiva);
  EXPECT_EQ(t_second.RunToEnd("gandiva", 9), t_total);
  EXPECT_EQ(t_second.Completions(), t_straight.Completions());
}

TEST(GpuPlacementDomain, RestoreRejectsForeignState) {
  Driver a;
  ASSERT_TRUE(a.Init(kSmall).ok());
  ASSERT_TRUE(a.Round("dally", 0));
  std::string state;
  ASSERT_TRUE(a.d.SaveState(0, &state).ok());
  Driver b;
  ASSERT_TRUE(b.Init("workload: {source: synthetic, jobs: 41}\n").ok());
  EXPECT_EQ(b.d.RestoreState(0, state).code(), StatusCode::kFailedPrecondition);
  Driver c;
  ASSERT_TRUE(c.Init(kSmall).ok());
  EXPECT_FALSE(c.d.RestoreState(3, state).ok());  // state of round 0 handed back as round 3
  std::string cut = state.substr(0, state.size() / 2);
  EXPECT_FALSE(c.d.RestoreState(0, cut).ok());
}

TEST(GpuPlacementDomain, RecordsDescribeJobsPlacementsHistoriesAndTimers) {
  Driver r;
  ASSERT_TRUE(r.Init(std::string(kSmall) + "policy: dally\n").ok());
  std::set<std::string> kinds;
  std::set<std::string> finished_jobs, placed_jobs;
  int round = 0;
  RoundReport rep;
  while (r.Round("dally", round, &rep)) {
    std::set<std::pair<std::string, std::string>> keys;
    for (const DomainRecord& rec : rep.records) {
      EXPECT_TRUE(keys.insert({rec.kind, rec.key}).second)
          << "duplicate " << rec.kind << " " << rec.key;
      kinds.insert(rec.kind);
      auto label = [&](const char* name) {
        for (const auto& [k, v] : rec.labels)
          if (k == name) return v;
        return std::string();
      };
      if (rec.kind == "job" && label("state") == "finished") {
        EXPECT_TRUE(finished_jobs.insert(rec.key).second);
      }
      if (rec.kind == "placement" && !label("machines").empty()) placed_jobs.insert(rec.key);
    }
    std::map<std::string, double> m;
    for (const Metric& x : rep.metrics) m[x.name] = x.value;
    EXPECT_GE(m["gpu_utilization"], 0);
    EXPECT_LE(m["gpu_utilization"], 1 + 1e-9);
    EXPECT_EQ(m["running_jobs"] + m["queued_jobs"] + m["finished_jobs"], m["arrived_jobs"]);
    EXPECT_NEAR(m["sim_time_h"] * 3600, r.d.TickEnd(round), 1e-6);
    ++round;
  }
  EXPECT_EQ(finished_jobs.size(), 40u);  // each job's completion recorded exactly once
  EXPECT_EQ(placed_jobs.size(), 40u);
  EXPECT_TRUE(kinds.count("timer"));
  EXPECT_TRUE(kinds.count("wait_sample")) << "the congested small cluster records waits";
  std::map<std::string, double> last;
  for (const Metric& x : rep.metrics) last[x.name] = x.value;
  const SimResult res = r.d.simulation().Result();
  EXPECT_NEAR(last["makespan_h"] * 3600, res.metrics.makespan_s, 1e-6);
  EXPECT_NEAR(last["jct_avg_h"] * 3600, res.metrics.jct_avg_s, 1e-6);
}

TEST(GpuPlacementSettings, DefaultsFollowThePaper) {
  DomainSettings s;
  PluginContext ctx;
  ASSERT_TRUE(Parse(Settings("tick_s: 300\n"), ctx, &s).ok());
  EXPECT_DOUBLE_EQ(s.sim.manual_machine_timer_s, 12 * 3600);
  EXPECT_DOUBLE_EQ(s.sim.manual_rack_timer_s, 24 * 3600);  // 12 h + another 12 h
  EXPECT_DOUBLE_EQ(s.sim.lease_s, 3600);
  EXPECT_DOUBLE_EQ(s.sim.history_leases, 48);
  EXPECT_TRUE(s.sim.lease_expiry);
  EXPECT_TRUE(s.sim.large_job_cumulative_rack_wait);
  EXPECT_EQ(s.types.size(), 1u);
  EXPECT_EQ(s.types[0].shape.gpus_per_machine, 8);
  EXPECT_EQ(s.types[0].shape.machines_per_rack, 8);
  EXPECT_DOUBLE_EQ(s.overheads.at("MobileNetV3").network, 195.92);
  EXPECT_FALSE(s.sim.starvation_since_assignment);  // the timer runs while the job waits
  EXPECT_FALSE(s.sim.never_run_first);              // a new job has endured no slowdown: Nw_sens 1
  EXPECT_TRUE(s.sim.tiresias_any_offer);            // low skew: any offer
  EXPECT_TRUE(s.sim.tiresias_fewest_machines);      // high skew "into as few machines as possible"
  EXPECT_FALSE(s.sim.tiresias_continuous_las);      // discretized 2D-LAS
}

TEST(GpuPlacementSettings, TimerUnitsModesAndOverrides) {
  DomainSettings s;
  PluginContext ctx;
  ASSERT_TRUE(
      Parse(Settings("lease_s: 600\n"
                     "timers: {units: leases, machine: 6, rack: 18, rack_mode: cumulative}\n"
                     "preemption: none\n"
                     "overheads: {ResNet50: {machine: 0.5, rack: 1, network: 2}, "
                     "default: {machine: 0, rack: 0.1, network: 0.2}}\n"
                     "tiresias: {priority: continuous, queue_limits_gpu_s: [100, 200, 300]}\n"),
            ctx,
            &s)
          .ok());
  EXPECT_DOUBLE_EQ(s.sim.manual_machine_timer_s, 3600);
  EXPECT_DOUBLE_EQ(s.sim.manual_rack_timer_s, 18 * 600);
  EXPECT_FALSE(s.sim.lease_expiry);
  EXPECT_DOUBLE_EQ(s.overheads.at("ResNet50").machine, 0.5);
  EXPECT_DOUBLE_EQ(s.default_overhead.rack, 0.1);
  EXPECT_TRUE(s.sim.tiresias_continuous_las);
  EXPECT_EQ(s.sim.tiresias_queue_limits_gpu_s.size(), 3u);
}

TEST(GpuPlacementSettings, ErrorsNameFileKeyAndValue) {
  PluginContext ctx;
  ctx.config_dir = kData;
  auto error = [&](const std::string& yaml) {
    DomainSettings s;
    Status st = Parse(Settings(yaml), ctx, &s);
    if (st.ok()) {
      Result<std::vector<JobSpec>> w = LoadWorkload(s);
      return w.ok() ? std::string() : w.status().message();
    }
    return st.message();
  };
  std::string m = error("cluster: {racks: 0}\n");
  EXPECT_NE(m.find("test.yaml:"), std::string::npos) << m;
  EXPECT_NE(m.find("plugin.settings.cluster.racks"), std::string::npos) << m;
  EXPECT_NE(m.find("0"), std::string::npos) << m;
  m = error("timers: {units: days}\n");
  EXPECT_NE(m.find("plugin.settings.timers.units"), std::string::npos) << m;
  EXPECT_NE(m.find("days"), std::string::npos) << m;
  m = error("lease: 3\n");
  EXPECT_NE(m.find("lease"), std::string::npos) << m;
  m = error("overheads: {VGG: {machine: 0.1, rack: 0.2}}\n");
  EXPECT_NE(m.find("plugin.settings.overheads.VGG"), std::string::npos) << m;
  EXPECT_NE(m.find("network"), std::string::npos) << m;
  m = error("workload: {source: dally_csv}\n");
  EXPECT_NE(m.find("plugin.settings.workload.trace"), std::string::npos) << m;
  m = error("workload: {source: tiresias_csv, trace: no_such.csv}\n");
  EXPECT_NE(m.find("no_such.csv"), std::string::npos) << m;
  m = error("tiresias: {queue_limits_gpu_s: [10, 5]}\n");
  EXPECT_NE(m.find("queue_limits_gpu_s"), std::string::npos) << m;
  EXPECT_NE(m.find("'5'"), std::string::npos) << m;
  m = error(
      "cluster: {racks: 1, machines_per_rack: 1, gpus_per_machine: 4}\n"
      "workload: {source: tiresias_csv, trace: tiresias_jobs_60.csv}\n");
  EXPECT_NE(m.find("needs 8 GPUs"), std::string::npos) << m;
  m = error("cluster: {racks: 1}\ngpu_types: [{name: a}]\n");
  EXPECT_NE(m.find("not both"), std::string::npos) << m;
}

// A trace is replayed whole unless workload.jobs cuts it; a cut is counted, not silent.
TEST(GpuPlacementWorkload, TraceJobsDefaultToAllAndACutIsCounted) {
  PluginContext ctx;
  ctx.config_dir = kData;
  DomainSettings all;
  ASSERT_TRUE(
      Parse(Settings("workload: {source: tiresias_csv, trace: tiresias_jobs_60.csv}\n"), ctx, &all)
          .ok());
  EXPECT_EQ(all.jobs, 0);
  int skipped = -1;
  Result<std::vector<JobSpec>> w = LoadWorkload(all, &skipped);
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(w->size(), 60u);
  EXPECT_EQ(skipped, 0);
  DomainSettings cut;
  ASSERT_TRUE(
      Parse(Settings("workload: {source: tiresias_csv, trace: tiresias_jobs_60.csv, jobs: 20}\n"),
            ctx,
            &cut)
          .ok());
  w = LoadWorkload(cut, &skipped);
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(w->size(), 20u);
  EXPECT_EQ(skipped, 40);
  DomainSettings synthetic;
  ASSERT_TRUE(Parse(Settings("workload: {source: synthetic}\n"), ctx, &synthetic).ok());
  EXPECT_EQ(synthetic.jobs, 100);
}

// workload.arrivals as dally_bench --arrivals: a trace keeps its own times by default ("trace"),
// "batch" puts every job at time 0; "poisson" (generated) is for the synthetic workload and
// "trace" needs a trace: both mismatches are errors naming the key.
TEST(GpuPlacementWorkload, ArrivalModesShareDallyBenchSemantics) {
  PluginContext ctx;
  ctx.config_dir = kData;
  const auto load = [&](const std::string& arrivals) {
    DomainSettings s;
    Status st = Parse(Settings("workload: {source: tiresias_csv, trace: "
                               "tiresias_jobs_60.csv" +
                               arrivals + "}\n"),
                      ctx,
                      &s);
    if (!st.ok()) return Result<std::vector<JobSpec>>(st);
    return LoadWorkload(s);
  };
  Result<std::vector<JobSpec>> own = load("");
  ASSERT_TRUE(own.ok()) << own.status().message();
  double latest = 0;
  for (const JobSpec& j : own.value()) latest = std::max(latest, j.arrival_s);
  EXPECT_GT(latest, 0);  // the trace's own times
  Result<std::vector<JobSpec>> same = load(", arrivals: trace");
  ASSERT_TRUE(same.ok());
  ASSERT_EQ(same->size(), own->size());
  for (std::size_t i = 0; i < own->size(); ++i)
    EXPECT_EQ(same.value()[i].arrival_s, own.value()[i].arrival_s);
  Result<std::vector<JobSpec>> batch = load(", arrivals: batch");
  ASSERT_TRUE(batch.ok());
  ASSERT_EQ(batch->size(), own->size());
  for (const JobSpec& j : batch.value()) EXPECT_EQ(j.arrival_s, 0);
  Result<std::vector<JobSpec>> poisson = load(", arrivals: poisson");
  ASSERT_FALSE(poisson.ok());
  EXPECT_THAT(poisson.status().message(), ::testing::HasSubstr("workload.arrivals"));
  EXPECT_THAT(poisson.status().message(), ::testing::HasSubstr("synthetic"));
  DomainSettings synthetic;
  const Status st =
      Parse(Settings("workload: {source: synthetic, arrivals: trace}\n"), ctx, &synthetic);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), ::testing::HasSubstr("need a trace"));
}

// Jobs without work (a trace's jobs that failed at once) are dropped by the plugin and by
// dally_bench alike (DropZeroWorkJobs), and counted: the plugin reports them every round.
TEST(GpuPlacementWorkload, ZeroWorkJobsAreDroppedAndCounted) {
  const std::string dir = ::testing::TempDir();
  {
    std::ofstream out(dir + "/zero_work.csv");
    out << "job_id,arrival_s,num_gpus,total_iterations,time_per_iteration_s,ideal_duration_s,"
           "cross_slot_slowdown,cross_machine_slowdown,cross_rack_slowdown,loss_function_type,"
           "job_group_id,model,dataset,batch_size,trace_duration_s,trace_submit_time\n"
           "1,20,4,15950,0.02,319.0,1,0.72,0.52,sublinear,1,,,,,\n"
           "2,30,2,0,0.02,0,1,0.72,0.52,sublinear,1,,,,,\n"
           "3,40,1,100,0,0,1,0.72,0.52,sublinear,1,,,,,\n"
           "4,50,8,1000,0.5,500,1,0.72,0.52,sublinear,1,,,,,\n";
  }
  PluginContext ctx;
  ctx.config_dir = dir;
  DomainSettings s;
  ASSERT_TRUE(
      Parse(Settings("workload: {source: dally_csv, trace: zero_work.csv}\n"), ctx, &s).ok());
  int skipped = -1, zero = -1;
  Result<std::vector<JobSpec>> w = LoadWorkload(s, &skipped, &zero);
  ASSERT_TRUE(w.ok()) << w.status().message();
  ASSERT_EQ(w->size(), 2u);
  EXPECT_EQ(w.value()[0].id, 1);
  EXPECT_EQ(w.value()[1].id, 4);
  EXPECT_EQ(zero, 2);
  EXPECT_EQ(skipped, 0);
  GpuPlacementDomain d;
  ASSERT_TRUE(internal::ConfigureWithSettings(
                  &d, Settings("workload: {source: dally_csv, trace: zero_work.csv}\n"), ctx)
                  .ok());
  Problem problem(0, 0);
  ASSERT_TRUE(d.Describe(&problem).ok());
  bool finished = false;
  ASSERT_TRUE(d.Refresh(0, &problem, &finished).ok());
  Allocation allocation;
  allocation.values.assign(problem.num_variables(), 0.0);
  ASSERT_TRUE(d.Repair(problem, &allocation).ok());
  RoundReport report;
  ASSERT_TRUE(d.Report(0, problem, allocation, &report).ok());
  double reported = -1;
  for (const Metric& m : report.metrics)
    if (m.name == "trace_zero_work_jobs") reported = m.value;
  EXPECT_EQ(reported, 2.0);
}

TEST(GpuPlacementWorkload, TiresiasSampleLoads) {
  DomainSettings s;
  PluginContext ctx;
  ctx.config_dir = kData;
  ASSERT_TRUE(
      Parse(Settings("workload: {source: tiresias_csv, trace: tiresias_jobs_60.csv}\n"), ctx, &s)
          .ok());
  Result<std::vector<JobSpec>> w = LoadWorkload(s);
  ASSERT_TRUE(w.ok()) << w.status().message();
  ASSERT_EQ(w->size(), 60u);
  const JobSpec& j1 = w.value()[1];  // 1,30,8,vgg11,133,147: ideal runtime = duration on its 8 GPUs
  EXPECT_EQ(j1.id, 1);
  EXPECT_EQ(j1.gpus, 8);
  EXPECT_DOUBLE_EQ(j1.arrival_s, 30);
  EXPECT_NEAR(j1.iterations * j1.time_per_iteration_s / j1.gpus, 147, 1e-9);
  EXPECT_DOUBLE_EQ(j1.overhead.rack, TableIOverheads().at("VGG").rack);
  for (const JobSpec& j : w.value()) {
    if (j.model == "googlenet") {
      EXPECT_DOUBLE_EQ(j.overhead.network, s.default_overhead.network);
    }
  }
  // The whole sample runs through every policy on a 2 x 2 x 4 cluster.
  for (const std::string& method : kMethods) {
    Driver r;
    ASSERT_TRUE(r.Init("tick_s: 60\nlease_s: 600\ncluster: {racks: 2, machines_per_rack: 2, "
                       "gpus_per_machine: 4}\n"
                       "workload: {source: tiresias_csv, trace: tiresias_jobs_60.csv}\n")
                    .ok());
    r.RunToEnd(method);
    EXPECT_EQ(r.d.simulation().remaining(), 0) << method;
  }
}

// Combined mode: the solver's max-min shares pick the pool, the policy places inside it.
struct Combined {
  Driver r;
  std::unique_ptr<AdmmSolver> solver;
  Status Init(const std::string& yaml) {
    Status st = r.Init(yaml);
    if (!st.ok()) return st;
    AdmmOptions o;
    o.num_threads = 1;
    o.max_iterations = 2000;
    solver = std::make_unique<AdmmSolver>(r.p, o);
    return Status::Ok();
  }
  bool Round(int round, Allocation* out = nullptr) {
    bool finished = false;
    EXPECT_TRUE(r.d.Refresh(round, &r.p, &finished).ok());
    if (finished) return false;
    Allocation a;
    SolveSummary s;
    solver->Solve(&a, &s);
    EXPECT_TRUE(r.d.Repair(r.p, &a).ok());
    RoundReport rep;
    EXPECT_TRUE(r.d.Report(round, r.p, a, &rep).ok());
    if (out) *out = a;
    return true;
  }
};

TEST(GpuPlacementCombined, OneGpuTypeReproducesPureDally) {
  Combined c;
  ASSERT_TRUE(c.Init(kSmall).ok());
  int round = 0;
  while (c.Round(round)) ++round;
  Driver pure;
  ASSERT_TRUE(pure.Init(kSmall).ok());
  EXPECT_EQ(pure.RunToEnd("dally"), round);
  EXPECT_EQ(c.r.Completions(), pure.Completions());
  EXPECT_EQ(c.r.d.simulation().Save(), pure.d.simulation().Save());
}

constexpr const char* kTwoTypes =
    "tick_s: 7200\n"
    "gpu_types:\n"
    "  - {name: v100, racks: 1, machines_per_rack: 2, gpus_per_machine: 8, speed: 1.0}\n"
    "  - {name: k80, racks: 1, machines_per_rack: 2, gpus_per_machine: 8, speed: 0.4,\n"
    "     model_speed: {ResNet50: 0.8}}\n"
    "workload: {source: synthetic, jobs: 16, arrivals: poisson, jobs_per_day: 200, seed: 3}\n";

// Plugin methods on several GPU types: cold-start ADMM shares each round, so a restart from the
// checkpoint repeats the schedule exactly.
TEST(GpuPlacementCombined, TwoGpuTypesPluginMethodResumesExactly) {
  Driver straight;
  ASSERT_TRUE(straight.Init(kTwoTypes).ok());
  std::set<int> pools;
  int total = 0;
  while (straight.Round("dally", total)) {
    for (const SimJob& j : straight.d.simulation().jobs())
      if (j.running) pools.insert(j.pool);
    ++total;
  }
  EXPECT_EQ(straight.d.simulation().remaining(), 0);
  EXPECT_EQ(pools, (std::set<int>{0, 1}));
  Driver first;
  ASSERT_TRUE(first.Init(kTwoTypes).ok());
  const int k = total / 3;
  for (int round = 0; round < k; ++round) ASSERT_TRUE(first.Round("dally", round));
  std::string state;
  ASSERT_TRUE(first.d.SaveState(k - 1, &state).ok());
  Driver second;
  ASSERT_TRUE(second.Init(kTwoTypes).ok());
  ASSERT_TRUE(second.d.RestoreState(k - 1, state).ok());
  EXPECT_EQ(second.RunToEnd("dally", k), total);
  EXPECT_EQ(second.Completions(), straight.Completions());
  // Without a checkpoint a later round cannot be replayed (the shares need the solver).
  Driver third;
  ASSERT_TRUE(third.Init(kTwoTypes).ok());
  bool finished = false;
  EXPECT_EQ(third.d.Refresh(3, &third.p, &finished).code(), StatusCode::kFailedPrecondition);
}

// A job larger than one pool is only ever offered in a pool that fits it.
TEST(GpuPlacementCombined, JobsGoOnlyToPoolsThatFit) {
  Combined c;
  ASSERT_TRUE(
      c.Init("tick_s: 3600\n"
             "gpu_types:\n"
             "  - {name: small, racks: 1, machines_per_rack: 1, gpus_per_machine: 8}\n"
             "  - {name: big, racks: 1, machines_per_rack: 4, gpus_per_machine: 8, speed: 0.5}\n"
             "workload: {source: synthetic, jobs: 40, arrivals: batch, seed: 11}\n")
          .ok());
  int large = 0;
  for (const JobSpec& j : c.r.d.workload()) large += j.gpus > 8;
  ASSERT_GT(large, 0);
  int round = 0;
  while (c.Round(round)) {
    for (const SimJob& j : c.r.d.simulation().jobs()) {
      if (j.spec.gpus > 8) {
        EXPECT_EQ(j.target, 1) << "job " << j.spec.id;
        if (j.running) {
          EXPECT_EQ(j.pool, 1);
        }
      }
    }
    ASSERT_LT(++round, 20000);
  }
  EXPECT_EQ(c.r.d.simulation().remaining(), 0);
}

TEST(GpuPlacementCombined, TwoGpuTypesShareByMaxMin) {
  Combined c;
  ASSERT_TRUE(
      c.Init("tick_s: 1800\n"
             "gpu_types:\n"
             "  - {name: v100, racks: 1, machines_per_rack: 2, gpus_per_machine: 8, speed: 1.0}\n"
             "  - {name: k80, racks: 1, machines_per_rack: 2, gpus_per_machine: 8, speed: 0.4,\n"
             "     model_speed: {ResNet50: 0.8}}\n"
             "workload: {source: synthetic, jobs: 30, arrivals: poisson, jobs_per_day: 200, seed: "
             "3}\n")
          .ok());
  std::set<int> pools_used;
  int round = 0;
  Allocation a;
  while (c.Round(round, &a)) {
    for (const SimJob& j : c.r.d.simulation().jobs())
      if (j.running) pools_used.insert(j.pool);
    EXPECT_LE(c.r.p.MeasureViolation(a.values).Max(), 1e-9) << "round " << round;
    ++round;
    ASSERT_LT(round, 5000);
  }
  EXPECT_EQ(c.r.d.simulation().remaining(), 0);
  EXPECT_EQ(pools_used, (std::set<int>{0, 1}));
  // A fast-pool-only job takes less time than on the slow pool: per-type speeds are applied.
  bool slow_seen = false;
  for (const SimJob& j : c.r.d.simulation().jobs())
    slow_seen |= j.spec.pool_speed.size() == 2 && j.spec.pool_speed[1] < 1;
  EXPECT_TRUE(slow_seen);
}

// ---- Inbox events: jobs submitted while the deployment runs --------------------------------

Event Arrival(std::int64_t id, const std::string& target, const std::string& payload_yaml) {
  Event e;
  e.id = id;
  e.kind = "job_arrive";
  e.target = target;
  // The runner parses a payload with the origin "event <id>", so errors name the event.
  Result<ConfigNode> root =
      internal::ParseYamlString("payload: " + payload_yaml, "event " + std::to_string(id));
  EXPECT_TRUE(root.ok()) << root.status().message();
  e.payload = *root->Find("payload");
  return e;
}

std::string Apply(Driver& r, int round, const Event& e) {
  std::string rejection;
  EXPECT_TRUE(r.d.ApplyEvent(round, e, &rejection).ok());
  return rejection;
}

const std::string kSlots = std::string(kSmall) + "event_job_slots: 2\n";

// A submitted job joins the simulation at the start of its round's tick: the schedule is the one
// of a simulation that had the job in its list from the start with that arrival time.
TEST(GpuPlacementEvents, SubmittedJobIsScheduledAsIfListedFromTheStart) {
  for (const std::string& method : {std::string("dally"), std::string("tiresias")}) {
    Driver r;
    ASSERT_TRUE(r.Init(kSlots).ok());
    const size_t workload = r.d.workload().size();
    for (int round = 0; round < 3; ++round) ASSERT_TRUE(r.Round(method, round));
    ASSERT_EQ(Apply(r, 3, Arrival(1, "900", "{gpus: 8, model: VGG19, duration_s: 20000}")), "");
    int round = 3;
    for (; round < 5000 && r.d.simulation().remaining() > 0; ++round) {
      Allocation a;
      ASSERT_TRUE(r.Round(method, round, nullptr, &a));
      EXPECT_LE(r.p.MeasureViolation(a.values).Max(), 1e-9) << "round " << round;
    }
    const auto& jobs = r.d.simulation().jobs();
    ASSERT_EQ(jobs.size(), workload + 1);
    const SimJob& job = jobs.back();
    EXPECT_EQ(job.spec.id, 900);
    EXPECT_EQ(job.spec.arrival_s, r.d.TickEnd(2));
    EXPECT_TRUE(job.finished) << method;
    EXPECT_GE(job.res.first_start_s, job.spec.arrival_s);
    EXPECT_DOUBLE_EQ(job.ideal_runtime_s, 20000);
    // One free slot left: the deployment runs idle rounds instead of finishing.
    bool finished = true;
    ASSERT_TRUE(r.d.Refresh(round, &r.p, &finished).ok());
    EXPECT_FALSE(finished);

    // workload(): the configured jobs and then the submitted one, as the simulator lists them.
    SimOptions o = r.d.settings().sim;
    ParseMethod(method, &o.policy);
    const SimResult full = Simulate(r.d.workload(), o);
    ASSERT_EQ(full.jobs.size(), jobs.size());
    std::map<int, double> end;
    for (const JobResult& j : full.jobs) end[j.id] = j.end_s;
    for (const SimJob& j : jobs)
      EXPECT_EQ(j.res.end_s, end.at(j.spec.id)) << method << " " << j.spec.id;
  }
}

// Kill after k rounds: the new process gets the applied events again (replay, before
// RestoreState) and reaches the straight run's state, with and without full checkpoints.
TEST(GpuPlacementEvents, ResumeWithSubmissionsIsExact) {
  const Event first = Arrival(1, "900", "{gpus: 8, iterations: 5000, time_per_iteration_s: 30}");
  const Event second = Arrival(2, "901", "{gpus: 2, model: ResNet50, duration_s: 9000}");
  for (const std::string& extra : {std::string(), std::string("checkpoint_every: 0\n")}) {
    const std::string yaml = kSlots + extra;
    auto run = [&](Driver& r, int from, int to) {
      for (int round = from; round < to; ++round) {
        if (round == 3) {
          EXPECT_EQ(Apply(r, 3, first), "");
        }
        if (round == 6) {
          EXPECT_EQ(Apply(r, 6, second), "");
        }
        ASSERT_TRUE(r.Round("dally", round));
      }
    };
    Driver straight;
    ASSERT_TRUE(straight.Init(yaml).ok());
    run(straight, 0, 30);
    for (int k : {4, 7}) {
      Driver a;
      ASSERT_TRUE(a.Init(yaml).ok());
      run(a, 0, k);
      std::string state;
      ASSERT_TRUE(a.d.SaveState(k - 1, &state).ok());
      Driver b;
      ASSERT_TRUE(b.Init(yaml).ok());
      Event replay = first;
      replay.replay = true;
      EXPECT_EQ(Apply(b, 3, replay), "");
      if (k > 6) {
        replay = second;
        replay.replay = true;
        EXPECT_EQ(Apply(b, 6, replay), "");
      }
      Status st = b.d.RestoreState(k - 1, state);
      ASSERT_TRUE(st.ok()) << st.message();
      run(b, k, 30);
      EXPECT_EQ(b.d.simulation().Save(), straight.d.simulation().Save()) << extra << " k " << k;
      EXPECT_EQ(b.Completions(), straight.Completions()) << extra << " k " << k;
    }
  }
}

TEST(GpuPlacementEvents, MalformedSubmissionsAreRejectedWithTheirReason) {
  Driver none;
  ASSERT_TRUE(none.Init(kSmall).ok());
  EXPECT_THAT(Apply(none, 0, Arrival(3, "900", "{gpus: 1, duration_s: 10}")),
              testing::HasSubstr("event 3 (job_arrive): the deployment reserved no slots"));
  Driver r;
  ASSERT_TRUE(r.Init(kSlots).ok());
  const std::string used = std::to_string(r.d.workload().front().id);
  const std::vector<std::pair<Event, std::string>> cases = {
      {Arrival(4, "abc", "{gpus: 1, duration_s: 10}"), "target 'abc' is not a job id"},
      {Arrival(5, used, "{gpus: 1, duration_s: 10}"), "job id " + used + " is already in use"},
      {Arrival(6, "900", "{duration_s: 10}"), "gpus"},
      {Arrival(7, "900", "{gpus: 64, duration_s: 10}"), "more than the largest GPU pool (32)"},
      {Arrival(8, "900", "{gpus: 0, duration_s: 10}"), "gpus"},
      {Arrival(9, "900", "{gpus: 1, duration_s: 10, iterations: 3}"), "not both"},
      {Arrival(10, "900", "{gpus: 1, iterations: 3}"), "time_per_iteration_s"},
      {Arrival(11, "900", "{gpus: 1, duration_s: -1}"), "duration_s"},
      {Arrival(12, "900", "{gpus: 1, duration_s: 10, priority: 2}"), "priority"}};
  for (const auto& [event, why] : cases) {
    const std::string rejection = Apply(r, 0, event);
    EXPECT_THAT(rejection, testing::HasSubstr(why)) << "event " << event.id;
    EXPECT_THAT(rejection, testing::HasSubstr("event " + std::to_string(event.id)));
  }
  Event unknown = Arrival(13, "900", "{gpus: 1, duration_s: 10}");
  unknown.kind = "job_cancel";
  EXPECT_THAT(Apply(r, 0, unknown), testing::HasSubstr("event 13 (job_cancel): unknown kind"));
  // Rejections change nothing; then two fill the slots and a third finds none.
  EXPECT_EQ(Apply(r, 0, Arrival(14, "900", "{gpus: 1, duration_s: 10}")), "");
  EXPECT_EQ(Apply(r, 0, Arrival(15, "901", "{gpus: 1, duration_s: 10}")), "");
  EXPECT_THAT(Apply(r, 0, Arrival(16, "902", "{gpus: 1, duration_s: 10}")),
              testing::HasSubstr("all 2 slots for submitted jobs are taken"));
  ASSERT_TRUE(r.Round("dally", 0));
  EXPECT_EQ(r.d.simulation().jobs().size(), r.d.workload().size());
  EXPECT_EQ(r.d.workload().size(), 42u);
}

}  // namespace
}  // namespace dede::gpu
