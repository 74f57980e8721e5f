// Cluster scheduling data: the throughput table, the cluster spec and the job trace (CSV files
// of ../shared/data/dede-examples/cluster_scheduling/), and a seeded generator for the paper's
// scale. The tables are read with dede/csv.h: errors name file:line:column, the column and the
// value.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "dede/status.h"

namespace dede::cluster {

// Scale factors of the table, indexed by log2: 1, 2, 4, 8, 16, 32.
inline constexpr int kNumScaleFactors = 6;

// throughput(worker type, job type, scale factor) in steps per second; 0 = not allowed.
struct ThroughputTable {
  int num_worker_types = 0;
  int num_job_types = 0;
  std::vector<double> values;  // [(worker * num_job_types + job) * kNumScaleFactors + log2 sf]
  double Get(int worker_type, int job_type, int scale_factor) const;
};

struct WorkerType {
  std::string name;
  int count = 0;  // instances (GPUs)
};

struct Job {
  int id = 0;
  bool steady_state = false;  // present at time 0 (kind = steady_state)
  double arrival_s = 0.0;
  int job_type = 0;
  int scale_factor = 1;  // instances used at once
  double duration_s = 0.0;
  double total_steps = 0.0;
  double weight = 1.0;  // priority weight
};

// `worker_type,job_type,scale_factor,throughput`; every index >= 0, scale factor a power of two
// in 1..32, throughput >= 0 and finite. Absent combinations are 0.
Result<ThroughputTable> LoadThroughputs(const std::string& path);
// `worker_type_index,worker_type,num_gpus`; indices 0..n-1 in order, num_gpus >= 1.
Result<std::vector<WorkerType>> LoadClusterSpec(const std::string& path);
// `job_id,kind,arrival_time_s,job_type,scale_factor,duration_s,total_steps,priority_weight`;
// kind is steady_state or arrival, arrival times non-decreasing, weights > 0, steps > 0.
Result<std::vector<Job>> LoadJobTrace(const std::string& path);

// A self-contained instance: worker types and jobs with their per-type throughput (only the
// allowed types, throughput > 0).
struct Instance {
  std::vector<WorkerType> types;
  std::vector<Job> jobs;
  std::vector<std::vector<std::pair<int, double>>> throughput;  // per job: (type, T > 0)
};

// The jobs of a trace on a spec, throughputs looked up in the table. Fails if a job's type or
// worker type lies outside the table, or a job may run nowhere.
Result<Instance> MakeInstance(const std::vector<WorkerType>& types,
                              const ThroughputTable& table,
                              std::vector<Job> jobs,
                              const std::string& trace_name);

struct GeneratorOptions {
  int num_types = 456;   // counts 8 * U{1..8}: ~16,400 instances at 456 types
  int num_jobs = 2000;   // jobs present at time 0 (steady state) ...
  int num_arrivals = 0;  // ... plus Poisson arrivals
  double mean_interarrival_s = 100.0;
  double restricted_fraction = 1.0 / 3.0;  // jobs allowed on a random subset of types only
  int max_allowed_types = 16;  // a restricted job's subset has 1..max_allowed_types types
  // Scale factors: "uniform" over {1, 2, 4, 8, 16, 32} as the DeDe reference's generator (about
  // 21,000 GPUs requested by 2,000 jobs: the paper's cluster is oversubscribed, so max-min is
  // decided by sharing), or "philly" (1, 2, 4, 8 with probabilities 0.5, 0.25, 0.15, 0.1: mostly
  // small jobs; the cluster is then undersubscribed and the max-min optimum is usually one
  // job's ceiling, i.e. its whole round on its best type).
  std::string scale_factors = "uniform";
  double max_weight = 10.0;  // priorities U(1, max_weight); 1: all equal
  std::uint64_t seed = 0;
};
// One job of a Philly-derived trace (../shared/data/philly-gavel/, Gavel/POP's MSR traces):
// `job_id,vc,vc_job_index,arrival_s,num_gpus,job_type,model,batch_size,total_steps,
// v100_steps_per_s,p100_steps_per_s,k80_steps_per_s,est_duration_v100_s`. Throughputs are
// steps per second at num_gpus; 0 where the source table has no entry (empty field).
struct PhillyJob {
  double arrival_s = 0.0;
  int num_gpus = 1;
  std::string job_type;
  double total_steps = 0.0;
  double steps_per_s[3] = {0.0, 0.0, 0.0};  // v100, p100, k80
};
Result<std::vector<PhillyJob>> LoadPhillyTrace(const std::string& path);

// Deterministic in the options. Throughput of job j on type r = base(job type) * speed(r) *
// noise * sf^0.8 (sub-linear scaling); scale factors as `scale_factors`; priorities
// U(1, max_weight); durations as the reference simulator (60*10^U(3,4) s with probability 0.2, else
// 60*10^U(1.5,3) s); total steps = duration * mean allowed throughput.
Instance GenerateInstance(const GeneratorOptions& options);

// The generator's cluster shape and job stream with the job characteristics of a Philly-derived
// trace: worker type r is a variant of base GPU r mod 3 (v100, p100, k80) with a seeded speed
// factor in [0.8, 1.25] and 8 * U{1..8} instances; job i takes the i-th trace job that has all
// three throughputs (wrapping around when the stream is longer than the trace): its GPUs as
// scale factor, its steps, its throughput on the base GPU times the type's factor. Arrivals,
// priorities (U(1, max_weight)) and type restrictions are drawn as in GenerateInstance (the trace's
// own arrival times span months; the simulator uses Poisson arrivals with a chosen mean).
// Fails if no trace job has all three throughputs.
Result<Instance> MakePhillyInstance(const std::vector<PhillyJob>& trace,
                                    const GeneratorOptions& options);

}  // namespace dede::cluster
