// dally_bench: the results table of issue 7 (2/4/8/16 racks x batch/Poisson x six policies on the
// synthetic 500-job workload, or a dally-workloads CSV), with Dally's change against Tiresias and
// Gandiva next to the paper's claims, and the wall time of every simulation. `dally_bench --help`
// lists the options: the cluster shape (--racks, --machines-per-rack, --gpus-per-machine) and
// the arrival modes (--arrivals batch|poisson|trace, the plugin's workload.arrivals; poisson with
// --trace re-times the trace's jobs, which the plugin does not).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "gpu_sim.h"

namespace {

using dede::gpu::Policy;

double Change(double dally, double other) {
  return other > 0 ? 100.0 * (dally - other) / other : 0.0;
}

// A trace's jobs as a Poisson process at jobs_per_day: the same jobs (GPUs, work, model) in the
// trace's arrival order (ties in file order), the first at 0 and exponential gaps after it. The
// gaps come from the raw mt19937_64 stream by inversion, not std::exponential_distribution,
// whose algorithm the standard leaves to the library: the same seed gives the same times
// with any standard library.
std::vector<dede::gpu::JobSpec> RetimedAsPoisson(std::vector<dede::gpu::JobSpec> jobs,
                                                 double jobs_per_day,
                                                 unsigned long long seed) {
  std::stable_sort(jobs.begin(), jobs.end(), [](const auto& a, const auto& b) {
    return a.arrival_s < b.arrival_s;
  });
  std::mt19937_64 rng(seed);
  const double mean_gap_s = 86400.0 / jobs_per_day;
  double t = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (i > 0) t += -std::log1p(-static_cast<double>(rng() >> 11) * 0x1.0p-53) * mean_gap_s;
    jobs[i].arrival_s = t;
  }
  return jobs;
}

// The jobs one arrival mode simulates: the synthetic workload (batch or generated Poisson), or
// the trace with its own times (trace), all at 0 (batch) or re-timed (poisson).
std::vector<dede::gpu::JobSpec> WorkloadFor(const std::string& arrival,
                                            const std::vector<dede::gpu::JobSpec>& trace_jobs,
                                            bool synthetic,
                                            int jobs,
                                            double jobs_per_day,
                                            unsigned long long seed) {
  const bool poisson = arrival == "poisson";
  if (synthetic) return dede::gpu::GenerateWorkload(jobs, poisson, jobs_per_day, seed);
  if (poisson) return RetimedAsPoisson(trace_jobs, jobs_per_day, seed);
  std::vector<dede::gpu::JobSpec> w = trace_jobs;
  if (arrival == "batch")
    for (auto& j : w) j.arrival_s = 0;
  return w;
}

// The table's columns: times in days (makespan) and hours, or all in seconds (--seconds).
void PrintColumns(bool seconds) {
  const char* const names[2][9] = {{"makespan_d",
                                    "jct_avg_h",
                                    "jct_med_h",
                                    "jct_p95_h",
                                    "jct_p99_h",
                                    "q_avg_h",
                                    "q_p95_h",
                                    "q_p99_h",
                                    "comm_h"},
                                   {"makespan_s",
                                    "jct_avg_s",
                                    "jct_med_s",
                                    "jct_p95_s",
                                    "jct_p99_s",
                                    "q_avg_s",
                                    "q_p95_s",
                                    "q_p99_s",
                                    "comm_s"}};
  const auto& n = names[seconds ? 1 : 0];
  std::printf("%-5s %-7s %-16s %10s %9s %9s %9s %9s %9s %9s %9s %9s %6s %7s\n",
              "racks",
              "arrival",
              "policy",
              n[0],
              n[1],
              n[2],
              n[3],
              n[4],
              n[5],
              n[6],
              n[7],
              n[8],
              "util",
              "wall_s");
}

void PrintRow(const std::string& racks,
              const std::string& arrival,
              Policy policy,
              const dede::gpu::Metrics& x,
              double wall_s,
              bool seconds) {
  const double day = seconds ? 1 : 86400, hour = seconds ? 1 : 3600;
  std::printf(seconds ? "%-5s %-7s %-16s %10.0f %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f %9.1f "
                        "%6.3f %7.3f\n"
                      : "%-5s %-7s %-16s %10.2f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.2f "
                        "%6.3f %7.3f\n",
              racks.c_str(),
              arrival.c_str(),
              dede::gpu::PolicyName(policy),
              x.makespan_s / day,
              x.jct_avg_s / hour,
              x.jct_median_s / hour,
              x.jct_p95_s / hour,
              x.jct_p99_s / hour,
              x.queue_avg_s / hour,
              x.queue_p95_s / hour,
              x.queue_p99_s / hour,
              x.comm_avg_s / hour,
              x.utilization,
              wall_s);
}

// The header line of a re-timed trace: its rate, and the span of its own and the new arrivals.
void PrintRetiming(const std::string& trace,
                   const std::vector<dede::gpu::JobSpec>& trace_jobs,
                   double jobs_per_day,
                   unsigned long long seed) {
  double own_first = 0, own_last = 0;
  for (size_t i = 0; i < trace_jobs.size(); ++i) {
    const double a = trace_jobs[i].arrival_s;
    own_first = i == 0 ? a : std::min(own_first, a);
    own_last = i == 0 ? a : std::max(own_last, a);
  }
  const auto retimed = RetimedAsPoisson(trace_jobs, jobs_per_day, seed);
  std::printf(
      "%s: arrivals poisson: the trace's own arrival times are replaced; its %zu jobs keep their "
      "order and work, re-timed as a Poisson process at %g jobs/day (mean gap %.1f s, seed %llu): "
      "arrivals over %.0f s (own: %.0f s)\n",
      trace.c_str(),
      retimed.size(),
      jobs_per_day,
      86400.0 / jobs_per_day,
      seed,
      retimed.empty() ? 0.0 : retimed.back().arrival_s,
      own_last - own_first);
}

// The command line.
struct BenchOptions {
  std::string work_model = "artist_linear";
  bool work_model_given = false;
  std::vector<int> racks = {2, 4, 8, 16};
  std::vector<std::string> arrivals;
  std::string tiresias = "paper", trace, las = "discretized", clock = "queue_entry",
              never_run = "last";
  int jobs = 500;
  unsigned long long seed = 2025;
  double jobs_per_day = 100, lease_s = 3600, history = 48;
  bool seconds = false;
  dede::gpu::ClusterShape shape;
  // The unit of the summary lines' times, and its name.
  double HourSeconds() const { return seconds ? 1 : 3600; }
  const char* Hour() const { return seconds ? "s" : "h"; }
};

// Declares every option on `app`; returns the --work-model option (whether it was given).
CLI::Option* AddOptions(CLI::App& app, BenchOptions* b) {
  CLI::Option* work_model_option =
      app.add_option("--work-model",
                     b->work_model,
                     "ideal runtime model (with --trace: the one the trace records, if it does)")
          ->check(CLI::IsMember({"artist_linear", "trace_runtime"}))
          ->capture_default_str();
  app.add_option("--jobs", b->jobs, "synthetic jobs")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  app.add_option("--seed", b->seed, "generator and policy seed")->capture_default_str();
  app.add_option("--jobs-per-day",
                 b->jobs_per_day,
                 "Poisson arrival rate (--arrivals poisson: synthetic jobs, or a trace re-timed)")
      ->check(CLI::Range(1e-6, 1e9))
      ->capture_default_str();
  app.add_option("--racks", b->racks, "cluster sizes in racks, comma-separated")
      ->delimiter(',')
      ->check(CLI::Range(1, 1 << 16))
      ->capture_default_str();
  app.add_option("--machines-per-rack", b->shape.machines_per_rack, "machines per rack")
      ->check(CLI::Range(1, 1 << 16))
      ->capture_default_str();
  app.add_option("--gpus-per-machine", b->shape.gpus_per_machine, "GPUs per machine")
      ->check(CLI::Range(1, 1 << 10))
      ->capture_default_str();
  app.add_option("--arrivals",
                 b->arrivals,
                 "arrival modes, comma-separated: batch (every job at time 0), poisson (at "
                 "--jobs-per-day, seeded by --seed; with --trace the trace's jobs in their order, "
                 "re-timed), trace (the trace's own times; with --trace only), as the plugin's "
                 "workload.arrivals, which has no re-timed trace (default: batch,poisson; with "
                 "--trace: batch,trace)")
      ->delimiter(',')
      ->check(CLI::IsMember({"batch", "poisson", "trace"}));
  app.add_option("--lease-s", b->lease_s, "lease length")
      ->check(CLI::Range(1e-3, 1e9))
      ->capture_default_str();
  app.add_option("--history-leases", b->history, "auto-tuner window in leases")
      ->check(CLI::Range(1e-3, 1e9))
      ->capture_default_str();
  app.add_option(
         "--tiresias", b->tiresias, "Tiresias placement: the paper's text or ArtISt-sim's code")
      ->check(CLI::IsMember({"paper", "code"}))
      ->capture_default_str();
  app.add_flag("--seconds",
               b->seconds,
               "every time in seconds (default: makespan in days, the others in hours)");
  app.add_option("--trace", b->trace, "a dally-workloads CSV instead of the synthetic workload")
      ->check(CLI::ExistingFile);
  app.add_option("--tiresias-priority", b->las, "Tiresias' LAS")
      ->check(CLI::IsMember({"discretized", "continuous"}))
      ->capture_default_str();
  app.add_option("--starvation-clock", b->clock, "Dally's starvation clock")
      ->check(CLI::IsMember({"queue_entry", "last_assignment"}))
      ->capture_default_str();
  app.add_option("--never-run", b->never_run, "order of never-run jobs in Dally's queue")
      ->check(CLI::IsMember({"first", "last"}))
      ->capture_default_str();
  return work_model_option;
}

// The trace's jobs into *jobs (nothing without --trace), with the work model resolved against
// the one the trace records. False, having said why on stderr, on an unusable trace.
bool LoadTrace(BenchOptions* b, std::vector<dede::gpu::JobSpec>* jobs) {
  if (b->trace.empty()) return true;
  std::string error;
  *jobs = dede::gpu::LoadDallyCsv(b->trace, &error);
  if (!error.empty()) {
    std::fprintf(stderr, "dally_bench: %s\n", error.c_str());
    return false;
  }
  // A converted trace records the work model its times were written for: a different
  // --work-model is refused, none given takes the trace's.
  dede::gpu::WorkModel model = b->work_model == "artist_linear"
                                   ? dede::gpu::WorkModel::kArtistLinear
                                   : dede::gpu::WorkModel::kTraceRuntime;
  std::string note;
  if (!dede::gpu::ResolveWorkModel(
          b->trace, model, b->work_model_given, "--work-model", &model, &note, &error)) {
    std::fprintf(stderr, "dally_bench: %s\n", error.c_str());
    return false;
  }
  b->work_model = dede::gpu::WorkModelName(model);
  if (!note.empty()) std::printf("%s: %s\n", b->trace.c_str(), note.c_str());
  // As the plugin does: jobs without work are dropped, and counted.
  if (const int zero = dede::gpu::DropZeroWorkJobs(jobs); zero > 0)
    std::printf("%s: %d job(s) without work (zero iterations or time) dropped, %zu kept\n",
                b->trace.c_str(),
                zero,
                jobs->size());
  return true;
}

// The run's settings, and what the workload is.
void PrintHeader(const BenchOptions& b, const std::vector<dede::gpu::JobSpec>& trace_jobs) {
  std::printf(
      "work model %s, %s, lease %.0f s, history %.0f leases, Dally starvation clock %s, never-run "
      "jobs %s, "
      "Tiresias %s LAS, placement: %s\n",
      b.work_model.c_str(),
      b.trace.empty()
          ? ("synthetic " + std::to_string(b.jobs) + " jobs, seed " + std::to_string(b.seed))
                .c_str()
          : b.trace.c_str(),
      b.lease_s,
      b.history,
      b.clock.c_str(),
      b.never_run.c_str(),
      b.las.c_str(),
      b.tiresias == "paper" ? "paper text (any offer / fewest machines)" : "ArtISt-sim code");
  if (b.trace.empty())
    std::printf(
        "(the paper's 500-job SenseTime trace is not distributed in "
        "/work/shared/data/dally-workloads: the\n"
        " synthetic workload follows its model x GPU-demand histogram; absolute numbers are not "
        "the paper's)\n");
  else if (std::count(b.arrivals.begin(), b.arrivals.end(), "poisson") > 0)
    PrintRetiming(b.trace, trace_jobs, b.jobs_per_day, b.seed);
}

// The simulation's settings for one policy on a cluster of `racks` racks.
dede::gpu::SimOptions SimOptionsFor(const BenchOptions& b, int racks, Policy p) {
  dede::gpu::SimOptions o;
  o.cluster = b.shape;
  o.cluster.racks = racks;
  o.policy = p;
  o.lease_s = b.lease_s;
  o.history_leases = b.history;
  o.seed = b.seed;
  o.record_utilization_timeline = false;
  o.work_model = b.work_model == "artist_linear" ? dede::gpu::WorkModel::kArtistLinear
                                                 : dede::gpu::WorkModel::kTraceRuntime;
  o.tiresias_any_offer = o.tiresias_fewest_machines = b.tiresias == "paper";
  o.tiresias_continuous_las = b.las == "continuous";
  o.starvation_since_assignment = b.clock == "last_assignment";
  o.never_run_first = b.never_run == "first";
  return o;
}

// The six policies' results on one cluster size and arrival mode, in the order they ran.
struct Group {
  std::vector<dede::gpu::Metrics> m;
  std::vector<std::pair<double, double>> split;  // avg JCT (h) of 1-GPU and of multi-GPU jobs
  std::pair<double, double> tuner[2] = {{0, 0},
                                        {0, 0}};  // Dally: (samples, mean wait in leases) per tier
  double wall = 0;
};

// Jobs larger than the cluster never run and are not in the metrics (which cover finished
// jobs): says how many, once per cluster size and arrival mode.
void PrintNeverRun(const std::string& racks,
                   const dede::gpu::SimOptions& o,
                   const std::vector<dede::gpu::JobSpec>& w) {
  const int gpus = o.cluster.TotalGpus();
  int never = 0;
  for (const auto& j : w) never += j.gpus > gpus;
  if (never > 0)
    std::printf(
        "(%s racks: %d job(s) need more than the cluster's %d GPUs; they never "
        "run and are not in the metrics below)\n",
        racks.c_str(),
        never,
        gpus);
}

// Runs the six policies on workload w with `racks` racks, printing a row each.
Group RunGroup(const BenchOptions& b,
               int racks,
               const std::string& arrival,
               const std::vector<dede::gpu::JobSpec>& w) {
  const std::string r = std::to_string(racks);
  const double hour_s = b.HourSeconds();
  Group g;
  for (Policy p : {Policy::kDally,
                   Policy::kDallyManual,
                   Policy::kDallyNoWait,
                   Policy::kDallyFullyConsolidated,
                   Policy::kTiresias,
                   Policy::kGandiva}) {
    const dede::gpu::SimOptions o = SimOptionsFor(b, racks, p);
    const auto t0 = std::chrono::steady_clock::now();
    if (p == Policy::kDally) PrintNeverRun(r, o, w);
    dede::gpu::Simulation sim(w, o);
    sim.RunToEnd();
    const auto res = sim.Result();
    if (p == Policy::kDally) {  // the auto-tuner's samples (Fig. 4: larger in smaller clusters)
      for (int tier = 0; tier < 2; ++tier) {
        double sum = 0, n = 0;
        for (const auto& [key, v] : sim.history(0).samples())
          if (key.first == tier)
            for (const auto& e : v) sum += e.second, n += 1;
        g.tuner[tier] = {n, n > 0 ? sum / n : 0};
      }
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    g.wall += wall;
    const auto& x = res.metrics;
    g.m.push_back(x);
    double one = 0, multi = 0;
    int n_one = 0, n_multi = 0;
    for (const auto& j : res.jobs) {
      if (j.end_s < 0) continue;
      (j.gpus == 1 ? one : multi) += j.end_s - j.arrival_s;
      (j.gpus == 1 ? n_one : n_multi) += 1;
    }
    g.split.push_back({n_one ? one / n_one / hour_s : 0, n_multi ? multi / n_multi / hour_s : 0});
    PrintRow(r, arrival, p, x, wall, b.seconds);
  }
  return g;
}

// Dally against Tiresias and Gandiva, next to the paper's claims, and the group's wall time.
void PrintComparison(const BenchOptions& b, const Group& group) {
  const double hour_s = b.HourSeconds();
  const char* hour = b.Hour();
  const auto& d = group.m[0];
  const auto& t = group.m[4];
  const auto& g = group.m[5];
  const auto& split = group.split;
  std::printf(
      "  Dally vs Tiresias: makespan %+.0f%%, avg JCT %+.0f%%, avg queue %+.0f%%, P95 queue "
      "%+.0f%%, "
      "P99 queue %+.0f%%, comm %+.0f%%   [paper: makespan up to -69%%, avg JCT -19..-36%% "
      "(Poisson "
      "-16..-34%%), avg queue -18..-31%%, P95 -58..-71%%, P99 -67..-78%%, comm -53..-83%%]\n",
      Change(d.makespan_s, t.makespan_s),
      Change(d.jct_avg_s, t.jct_avg_s),
      Change(d.queue_avg_s, t.queue_avg_s),
      Change(d.queue_p95_s, t.queue_p95_s),
      Change(d.queue_p99_s, t.queue_p99_s),
      Change(d.comm_avg_s, t.comm_avg_s));
  std::printf(
      "  Dally vs Gandiva:  makespan %+.0f%%, avg JCT %+.0f%%, P99 queue %+.0f%%; Gandiva "
      "median/P99 JCT "
      "%.1f / %.1f %s   [paper: makespan up to -92%%, avg JCT -23..-51%%, tail queue up to "
      "-81%%; short "
      "median, huge tail]\n",
      Change(d.makespan_s, g.makespan_s),
      Change(d.jct_avg_s, g.jct_avg_s),
      Change(d.queue_p99_s, g.queue_p99_s),
      g.jct_median_s / hour_s,
      g.jct_p99_s / hour_s,
      hour);
  std::printf(
      "  avg JCT %s, 1-GPU / multi-GPU jobs: Dally %.1f / %.1f, Tiresias %.1f / %.1f, "
      "Gandiva %.1f / %.1f\n",
      hour,
      split[0].first,
      split[0].second,
      split[4].first,
      split[4].second,
      split[5].first,
      split[5].second);
  std::printf(
      "  Dally auto-tuner samples: machine %.0f (mean wait %.1f leases), rack %.0f (mean wait "
      "%.1f leases)\n",
      group.tuner[0].first,
      group.tuner[0].second,
      group.tuner[1].first,
      group.tuner[1].second);
  std::printf("  wall time of the six simulations: %.3f s\n", group.wall);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "dally_bench: Dally, its variants, Tiresias and Gandiva on the synthetic 500-job workload "
      "or a trace, per cluster size and arrival mode"};
  BenchOptions b;
  CLI::Option* work_model_option = AddOptions(app, &b);
  CLI11_PARSE(app, argc, argv);
  b.work_model_given = work_model_option->count() > 0;
  if (b.arrivals.empty()) {
    b.arrivals = b.trace.empty() ? std::vector<std::string>{"batch", "poisson"}
                                 : std::vector<std::string>{"batch", "trace"};
  }
  if (b.trace.empty() && std::count(b.arrivals.begin(), b.arrivals.end(), "trace") > 0) {
    std::fprintf(stderr,
                 "dally_bench: --arrivals trace: the trace's own times need --trace (the synthetic "
                 "workload has batch and poisson)\n");
    return 2;
  }
  std::vector<dede::gpu::JobSpec> trace_jobs;
  if (!LoadTrace(&b, &trace_jobs)) return 2;
  PrintHeader(b, trace_jobs);
  PrintColumns(b.seconds);
  double total_wall = 0;
  for (const int rack_count : b.racks) {
    for (const std::string& arrival : b.arrivals) {
      const auto w =
          WorkloadFor(arrival, trace_jobs, b.trace.empty(), b.jobs, b.jobs_per_day, b.seed);
      const Group group = RunGroup(b, rack_count, arrival, w);
      total_wall += group.wall;
      PrintComparison(b, group);
    }
  }
  std::printf("total wall time: %.2f s\n", total_wall);
  return 0;
}
