#include "cluster_data.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <unordered_map>

#include "dede/config_node.h"
#include "dede/csv.h"

namespace dede::cluster {
namespace {

int Log2ScaleFactor(int sf) {
  for (int k = 0; k < kNumScaleFactors; ++k)
    if (sf == (1 << k)) return k;
  return -1;
}

}  // namespace

double ThroughputTable::Get(int worker_type, int job_type, int scale_factor) const {
  const int k = Log2ScaleFactor(scale_factor);
  if (worker_type < 0 || worker_type >= num_worker_types || job_type < 0 ||
      job_type >= num_job_types || k < 0)
    return 0.0;
  return values[(static_cast<std::size_t>(worker_type) * num_job_types + job_type) *
                    kNumScaleFactors +
                k];
}

Result<ThroughputTable> LoadThroughputs(const std::string& path) {
  Result<CsvReader> opened =
      CsvReader::OpenWithHeader(path, {"worker_type", "job_type", "scale_factor", "throughput"});
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  Status status;
  struct Row {
    int w, j, k;
    double t;
  };
  std::vector<Row> rows;
  ThroughputTable table;
  // The table is dense over the type indices: they must be indices (0..n-1), not ids spread
  // over a large range (a worker type 1,000,000 and a job type 16,000,000 asked for 10^14
  // cells, and the process died in the allocator).
  constexpr std::size_t kMaxCells = std::size_t{1} << 26;  // 512 MiB of doubles
  std::unordered_map<std::uint64_t, int> line_of;          // (w, j, k) -> line, for duplicates
  while (csv.Next(&status)) {
    Row row{};
    int sf = 0;
    status.Update(csv.Read(0, &row.w, 0, 1 << 20));
    status.Update(csv.Read(1, &row.j, 0, 1 << 24));
    status.Update(csv.Read(2, &sf, 1, 32));
    status.Update(csv.Read(3, &row.t, 0.0));
    if (!status.ok()) return status;
    row.k = Log2ScaleFactor(sf);
    if (row.k < 0) return csv.Expected(2, "a power of two in 1..32");
    const std::uint64_t key = (static_cast<std::uint64_t>(row.w) << 32) |
                              (static_cast<std::uint64_t>(row.j) << 8) |
                              static_cast<std::uint64_t>(row.k);
    const auto [it, inserted] = line_of.emplace(key, csv.line());
    if (!inserted) {
      return csv.FieldError(3,
                            "a second throughput for worker type " + std::to_string(row.w) +
                                ", job type " + std::to_string(row.j) + ", scale factor " +
                                std::to_string(sf) + " (the first is on line " +
                                std::to_string(it->second) + ")");
    }
    const int workers = std::max(table.num_worker_types, row.w + 1);
    const int jobs = std::max(table.num_job_types, row.j + 1);
    if (static_cast<std::size_t>(workers) * static_cast<std::size_t>(jobs) * kNumScaleFactors >
        kMaxCells) {
      const int column = row.w + 1 > table.num_worker_types ? 0 : 1;
      return csv.FieldError(
          column,
          "'" + std::string(csv.Field(column)) + "' asks for worker types 0.." +
              std::to_string(workers - 1) + " x job types 0.." + std::to_string(jobs - 1) + " x " +
              std::to_string(kNumScaleFactors) + " scale factors, over the dense table's " +
              std::to_string(kMaxCells) + " cells: type columns are indices 0..n-1, not ids");
    }
    table.num_worker_types = workers;
    table.num_job_types = jobs;
    rows.push_back(row);
  }
  if (!status.ok()) return status;
  if (rows.empty()) return InvalidArgument(path + ": no rows");
  // Within the cap, a table almost all empty is ids as well: 4 rows naming job type 87,487
  // asked for 32 M cells (256 MB filled before a row was read). Real tables are dense over
  // their types: a cell per row and scale factor, times 64 for the types some jobs lack.
  const std::size_t cells = static_cast<std::size_t>(table.num_worker_types) *
                            static_cast<std::size_t>(table.num_job_types) * kNumScaleFactors;
  if (cells > 4096 + 64 * kNumScaleFactors * rows.size()) {
    return InvalidArgument(
        path + ": " + std::to_string(rows.size()) + " rows name worker types up to " +
        std::to_string(table.num_worker_types - 1) + " and job types up to " +
        std::to_string(table.num_job_types - 1) + ": a dense table of " + std::to_string(cells) +
        " cells, almost all empty: type columns are indices 0..n-1, not ids");
  }
  table.values.assign(
      static_cast<std::size_t>(table.num_worker_types) * table.num_job_types * kNumScaleFactors,
      0.0);
  for (const Row& r : rows)
    table.values[(static_cast<std::size_t>(r.w) * table.num_job_types + r.j) * kNumScaleFactors +
                 r.k] = r.t;
  return table;
}

Result<std::vector<WorkerType>> LoadClusterSpec(const std::string& path) {
  Result<CsvReader> opened =
      CsvReader::OpenWithHeader(path, {"worker_type_index", "worker_type", "num_gpus"});
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  Status status;
  std::vector<WorkerType> types;
  while (csv.Next(&status)) {
    int index = 0;
    WorkerType type;
    status.Update(csv.Read(0, &index, 0, 1 << 20));
    status.Update(csv.Read(2, &type.count, 1, 1 << 30));
    if (!status.ok()) return status;
    if (index != static_cast<int>(types.size()))
      return csv.Expected(0, std::to_string(types.size()) + " (indices 0..n-1 in order)");
    type.name = csv.Field(1);
    if (type.name.empty()) return csv.Expected(1, "a name");
    types.push_back(type);
  }
  if (!status.ok()) return status;
  if (types.empty()) return InvalidArgument(path + ": no worker types");
  return types;
}

Result<std::vector<Job>> LoadJobTrace(const std::string& path) {
  Result<CsvReader> opened = CsvReader::OpenWithHeader(path,
                                                       {"job_id",
                                                        "kind",
                                                        "arrival_time_s",
                                                        "job_type",
                                                        "scale_factor",
                                                        "duration_s",
                                                        "total_steps",
                                                        "priority_weight"});
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  Status status;
  std::vector<Job> jobs;
  while (csv.Next(&status)) {
    Job job;
    status.Update(csv.Read(0, &job.id, 0, 1 << 30));
    status.Update(csv.Read(2, &job.arrival_s, 0.0));
    status.Update(csv.Read(3, &job.job_type, 0, 1 << 24));
    status.Update(csv.Read(4, &job.scale_factor, 1, 32));
    status.Update(csv.Read(5, &job.duration_s, 0.0));
    status.Update(csv.Read(6, &job.total_steps, 0.0));
    status.Update(csv.Read(7, &job.weight, 0.0));
    if (!status.ok()) return status;
    if (csv.Field(1) == "steady_state") {
      job.steady_state = true;
    } else if (csv.Field(1) != "arrival") {
      return csv.Expected(1, "steady_state or arrival");
    }
    if (Log2ScaleFactor(job.scale_factor) < 0) return csv.Expected(4, "a power of two in 1..32");
    if (job.total_steps <= 0) return csv.Expected(6, "a number > 0");
    if (job.weight <= 0) return csv.Expected(7, "a number > 0");
    if (job.id != static_cast<int>(jobs.size()))
      return csv.Expected(0, std::to_string(jobs.size()) + " (ids 0..n-1 in order)");
    if (!jobs.empty() && job.arrival_s < jobs.back().arrival_s) {
      return csv.Expected(2,
                          "a time >= the previous job's " + FormatNumber(jobs.back().arrival_s) +
                              " (arrival times are non-decreasing)");
    }
    jobs.push_back(job);
  }
  if (!status.ok()) return status;
  if (jobs.empty()) return InvalidArgument(path + ": no jobs");
  return jobs;
}

Result<Instance> MakeInstance(const std::vector<WorkerType>& types,
                              const ThroughputTable& table,
                              std::vector<Job> jobs,
                              const std::string& trace_name) {
  if (static_cast<int>(types.size()) > table.num_worker_types)
    return InvalidArgument("cluster spec has " + std::to_string(types.size()) +
                           " worker types, the throughput table only " +
                           std::to_string(table.num_worker_types));
  Instance instance;
  instance.types = types;
  for (const Job& job : jobs) {
    if (job.job_type >= table.num_job_types)
      return InvalidArgument(trace_name + ": job " + std::to_string(job.id) + ": job_type " +
                             std::to_string(job.job_type) + " is not in the throughput table (" +
                             std::to_string(table.num_job_types) + " job types)");
    std::vector<std::pair<int, double>> allowed;
    for (int r = 0; r < static_cast<int>(types.size()); ++r) {
      const double t = table.Get(r, job.job_type, job.scale_factor);
      if (t > 0) allowed.emplace_back(r, t);
    }
    if (allowed.empty())
      return InvalidArgument(trace_name + ": job " + std::to_string(job.id) + " (job_type " +
                             std::to_string(job.job_type) + ", scale_factor " +
                             std::to_string(job.scale_factor) + ") may run on no worker type");
    instance.throughput.push_back(std::move(allowed));
  }
  instance.jobs = std::move(jobs);
  return instance;
}

Result<std::vector<PhillyJob>> LoadPhillyTrace(const std::string& path) {
  Result<CsvReader> opened = CsvReader::OpenWithHeader(path,
                                                       {"job_id",
                                                        "vc",
                                                        "vc_job_index",
                                                        "arrival_s",
                                                        "num_gpus",
                                                        "job_type",
                                                        "model",
                                                        "batch_size",
                                                        "total_steps",
                                                        "v100_steps_per_s",
                                                        "p100_steps_per_s",
                                                        "k80_steps_per_s",
                                                        "est_duration_v100_s"});
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  Status status;
  std::vector<PhillyJob> jobs;
  while (csv.Next(&status)) {
    PhillyJob job;
    status.Update(csv.Read(3, &job.arrival_s, 0.0));
    status.Update(csv.Read(4, &job.num_gpus, 1, 1 << 16));
    status.Update(csv.Read(8, &job.total_steps, 0.0));
    for (int g = 0; g < 3; ++g) {
      if (!csv.Field(9 + g).empty()) status.Update(csv.Read(9 + g, &job.steps_per_s[g], 0.0));
    }
    if (!status.ok()) return status;
    if (job.total_steps <= 0) return csv.Expected(8, "a number > 0");
    job.job_type = csv.Field(5);
    jobs.push_back(std::move(job));
  }
  if (!status.ok()) return status;
  if (jobs.empty()) return InvalidArgument(path + ": no jobs");
  return jobs;
}

Instance GenerateInstance(const GeneratorOptions& options) {
  std::mt19937_64 rng(options.seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  auto log_uniform = [&](double lo, double hi) {
    return std::exp(std::log(lo) + unit(rng) * (std::log(hi) - std::log(lo)));
  };
  Instance instance;
  const int num_types = std::max(1, options.num_types);
  std::uniform_int_distribution<int> multiple(1, 8);
  std::vector<double> speed(num_types);
  for (int r = 0; r < num_types; ++r) {
    instance.types.push_back({"type_" + std::to_string(r), 8 * multiple(rng)});
    speed[r] = log_uniform(0.25, 4.0);
  }
  constexpr int kJobTypes = 64;
  std::vector<double> base(kJobTypes);
  for (double& b : base) b = log_uniform(0.1, 100.0);
  const int num_jobs = std::max(0, options.num_jobs) + std::max(0, options.num_arrivals);
  std::exponential_distribution<double> interarrival(1.0 / options.mean_interarrival_s);
  std::discrete_distribution<int> sf_pick =
      options.scale_factors == "philly" ? std::discrete_distribution<int>({0.5, 0.25, 0.15, 0.1})
                                        : std::discrete_distribution<int>({1, 1, 1, 1, 1, 1});
  std::uniform_int_distribution<int> type_pick(0, kJobTypes - 1);
  const int max_allowed = std::clamp(options.max_allowed_types, 1, num_types);
  std::uniform_int_distribution<int> subset_size(1, max_allowed);
  double clock = 0.0;
  std::vector<int> pool(num_types);
  for (int j = 0; j < num_jobs; ++j) {
    Job job;
    job.id = j;
    job.steady_state = j < options.num_jobs;
    if (!job.steady_state) {
      job.arrival_s = clock;
      clock += interarrival(rng);
    }
    job.job_type = type_pick(rng);
    job.scale_factor = 1 << sf_pick(rng);
    job.weight = 1.0 + (options.max_weight - 1.0) * unit(rng);
    job.duration_s = unit(rng) < 0.2 ? 60.0 * std::pow(10.0, 3.0 + unit(rng))
                                     : 60.0 * std::pow(10.0, 1.5 + 1.5 * unit(rng));
    std::vector<std::pair<int, double>> allowed;
    if (unit(rng) < options.restricted_fraction) {
      std::iota(pool.begin(), pool.end(), 0);
      const int k = subset_size(rng);
      for (int i = 0; i < k; ++i) {
        std::uniform_int_distribution<int> pick(i, num_types - 1);
        std::swap(pool[i], pool[pick(rng)]);
      }
      std::sort(pool.begin(), pool.begin() + k);
      for (int i = 0; i < k; ++i) allowed.emplace_back(pool[i], 0.0);
    } else {
      for (int r = 0; r < num_types; ++r) allowed.emplace_back(r, 0.0);
    }
    double mean = 0.0;
    for (auto& [r, t] : allowed) {
      t = base[job.job_type] * speed[r] * (0.8 + 0.4 * unit(rng)) * std::pow(job.scale_factor, 0.8);
      mean += t;
    }
    mean /= static_cast<double>(allowed.size());
    job.total_steps = job.duration_s * mean;
    instance.jobs.push_back(job);
    instance.throughput.push_back(std::move(allowed));
  }
  return instance;
}

}  // namespace dede::cluster

namespace dede::cluster {

Result<Instance> MakePhillyInstance(const std::vector<PhillyJob>& trace,
                                    const GeneratorOptions& options) {
  std::vector<int> usable;
  for (int i = 0; i < static_cast<int>(trace.size()); ++i) {
    const PhillyJob& t = trace[i];
    if (t.steps_per_s[0] > 0 && t.steps_per_s[1] > 0 && t.steps_per_s[2] > 0) usable.push_back(i);
  }
  if (usable.empty())
    return InvalidArgument("Philly trace: no job has throughputs on all of v100, p100 and k80");
  // Distinct stream from GenerateInstance's: seed + a constant.
  std::mt19937_64 rng(options.seed + 0x9e3779b97f4a7c15ULL);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Instance instance;
  const int num_types = std::max(1, options.num_types);
  std::uniform_int_distribution<int> multiple(1, 8);
  std::vector<double> factor(num_types);
  static const char* kBase[3] = {"v100", "p100", "k80"};
  for (int r = 0; r < num_types; ++r) {
    instance.types.push_back(
        {std::string(kBase[r % 3]) + "_" + std::to_string(r), 8 * multiple(rng)});
    factor[r] = 0.8 + 0.45 * unit(rng);
  }
  const int num_jobs = std::max(0, options.num_jobs) + std::max(0, options.num_arrivals);
  std::exponential_distribution<double> interarrival(1.0 / options.mean_interarrival_s);
  const int max_allowed = std::clamp(options.max_allowed_types, 1, num_types);
  std::uniform_int_distribution<int> subset_size(1, max_allowed);
  std::vector<int> pool(num_types);
  double clock = 0.0;
  for (int j = 0; j < num_jobs; ++j) {
    const PhillyJob& source = trace[usable[j % usable.size()]];
    Job job;
    job.id = j;
    job.steady_state = j < options.num_jobs;
    if (!job.steady_state) {
      job.arrival_s = clock;
      clock += interarrival(rng);
    }
    job.job_type = usable[j % usable.size()];  // the trace row (0-based) the job copies
    job.scale_factor = source.num_gpus;
    job.weight = 1.0 + (options.max_weight - 1.0) * unit(rng);
    job.total_steps = source.total_steps;
    job.duration_s = source.total_steps / source.steps_per_s[0];
    std::vector<std::pair<int, double>> allowed;
    if (unit(rng) < options.restricted_fraction) {
      std::iota(pool.begin(), pool.end(), 0);
      const int k = subset_size(rng);
      for (int i = 0; i < k; ++i) {
        std::uniform_int_distribution<int> pick(i, num_types - 1);
        std::swap(pool[i], pool[pick(rng)]);
      }
      std::sort(pool.begin(), pool.begin() + k);
      for (int i = 0; i < k; ++i) allowed.emplace_back(pool[i], 0.0);
    } else {
      for (int r = 0; r < num_types; ++r) allowed.emplace_back(r, 0.0);
    }
    for (auto& [r, t] : allowed) t = source.steps_per_s[r % 3] * factor[r];
    instance.jobs.push_back(job);
    instance.throughput.push_back(std::move(allowed));
  }
  return instance;
}

}  // namespace dede::cluster
