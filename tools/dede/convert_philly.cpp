// `dede convert philly`: a Philly/Gavel job list -> the cluster_scheduling plugin's `source:
// trace` files (trace.csv, throughputs.csv, cluster_spec.csv) plus job_types.csv and
// job_ids.csv (the name of each job type index, the source id and VC of each job id).
//
// The plugin needs job ids 0..n-1 in arrival order, integer job-type indices, scale factors that
// are powers of two in 1..32 and a throughput per (worker type, job type, scale factor): the
// conversion maps ids and type names to indices, rounds GPU counts up to the next power of two
// (the job then holds the GPUs it would be given on a real Gavel cluster) and looks the
// throughput up at the rounded count. Arrival times are kept (or shifted with --time-origin
// first); the plugin has no per-VC policy, so VCs are kept in job_ids.csv and --vc selects them.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "convert.h"

namespace dede::tools {
namespace {

constexpr int kMaxScaleFactor = 32;  // cluster_data.h: scale factors 1..32

struct PhillyRow {
  SourceJob source;
  // What reading the row adjusted: counted once the row is known to be written (after the
  // duplicates and --max-jobs), so the counts describe the output.
  Adjustments adjusted;
  double arrival_s = 0, total_steps = 0, duration_s = -1, weight = 1;
  int scale_factor = 1;
  std::string job_type;
  std::vector<double> throughput;  // per GPU type, 0: cannot run there
};

// Gavel's table `job_type,num_gpus,gpu_type,steps_per_s` (../shared/data/philly-gavel).
using ThroughputKey = std::tuple<std::string, int, std::string>;  // job type, GPUs, GPU type

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Status ReadGavelThroughputs(const std::string& path,
                            std::vector<std::string>* gpu_types,
                            std::map<ThroughputKey, double>* table) {
  Result<CsvReader> opened = OpenInput(path);
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  int c_type = 0, c_gpus = 0, c_gpu = 0, c_value = 0;
  Status status = RequireColumn(csv, {"job_type"}, &c_type);
  status.Update(RequireColumn(csv, {"num_gpus", "scale_factor"}, &c_gpus));
  status.Update(RequireColumn(csv, {"gpu_type", "worker_type"}, &c_gpu));
  status.Update(RequireColumn(csv, {"steps_per_s", "throughput"}, &c_value));
  if (!status.ok()) return status;
  while (csv.Next(&status)) {
    int gpus = 0;
    double value = 0;
    status.Update(csv.Read(c_gpus, &gpus, 1, 1 << 20));
    status.Update(csv.Read(c_value, &value, 0.0));
    if (!status.ok()) return status;
    const std::string gpu = Lower(std::string(csv.Field(c_gpu)));
    if (gpu.empty()) return csv.Expected(c_gpu, "a GPU type name");
    if (std::find(gpu_types->begin(), gpu_types->end(), gpu) == gpu_types->end())
      gpu_types->push_back(gpu);
    auto [it, inserted] =
        table->emplace(ThroughputKey{std::string(csv.Field(c_type)), gpus, gpu}, value);
    if (!inserted && it->second != value)
      return csv.FieldError(c_value,
                            "a second, different throughput for this job type, GPU count "
                            "and GPU type");
  }
  return status;
}

struct Columns {
  int id = -1, vc = -1, arrival = 0, gpus = 0, type = 0, steps = 0, weight = -1, duration = -1;
  std::vector<int> per_job;  // column of each GPU type's `<gpu>_steps_per_s`, or -1
};

// The columns of the job list; GPU types of `<gpu>_steps_per_s` columns are added to *gpu_types.
Status FindColumns(const CsvReader& csv, std::vector<std::string>* gpu_types, Columns* c) {
  Status status = RequireColumn(
      csv, {"arrival_s", "arrival_time_s", "arrival_time", "submit_time"}, &c->arrival);
  status.Update(RequireColumn(csv, {"num_gpus", "scale_factor", "num_gpu", "gpus"}, &c->gpus));
  status.Update(RequireColumn(csv, {"job_type"}, &c->type));
  status.Update(RequireColumn(
      csv, {"total_steps", "num_steps", "iterations", "total_iterations"}, &c->steps));
  c->id = FindColumn(csv, {"job_id", "jobid", "id"});
  c->vc = FindColumn(csv, {"vc", "virtual_cluster"});
  c->weight = FindColumn(csv, {"priority_weight", "weight"});
  c->duration = FindColumn(csv, {"duration_s", "est_duration_v100_s", "duration"});
  const std::string suffix = "_steps_per_s";
  std::vector<std::pair<std::string, int>> found;
  for (int i = 0; i < static_cast<int>(csv.header().size()); ++i) {
    const std::string h = Lower(csv.header()[i]);
    if (h.size() > suffix.size() && h.ends_with(suffix))
      found.emplace_back(h.substr(0, h.size() - suffix.size()), i);
  }
  for (const auto& [gpu, col] : found)
    if (std::find(gpu_types->begin(), gpu_types->end(), gpu) == gpu_types->end())
      gpu_types->push_back(gpu);
  c->per_job.assign(gpu_types->size(), -1);
  for (const auto& [gpu, col] : found)
    c->per_job[std::find(gpu_types->begin(), gpu_types->end(), gpu) - gpu_types->begin()] = col;
  return status;
}

// One record -> *row; false (status OK) when the row is dropped, counted under its reason.
bool ReadRow(const CsvReader& csv,
             const Columns& c,
             const ConvertOptions& options,
             const std::vector<std::string>& gpu_types,
             const std::map<ThroughputKey, double>& table,
             Adjustments* adj,
             PhillyRow* row,
             Status* status) {
  const std::string at = At(csv);
  const auto drop = [&](const char* kind, const std::string& why) {
    return DropRow(adj, at, kind, why);
  };
  row->source.line = csv.line();
  row->source.vc = c.vc >= 0 ? std::string(csv.Field(c.vc)) : "";
  if (const int empty = EmptyField(csv, {c.arrival, c.gpus, c.type, c.steps}); empty >= 0)
    return drop("missing_field", "empty " + csv.FieldName(empty));
  double gpus = 0;
  status->Update(csv.Read(c.arrival, &row->arrival_s));
  status->Update(csv.Read(c.gpus, &gpus, 0.0, 1e9));
  status->Update(csv.Read(c.steps, &row->total_steps, 0.0));
  if (!status->ok()) return false;
  row->job_type = csv.Field(c.type);
  if (!options.vcs.empty() &&
      std::find(options.vcs.begin(), options.vcs.end(), row->source.vc) == options.vcs.end())
    return drop("not_in_vc", "vc '" + row->source.vc + "'");
  if (gpus == 0) return drop("no_gpu", "num_gpus 0");
  if (row->total_steps == 0) return drop("no_work", "0 steps");
  if (row->arrival_s < 0) {
    adj->Count("clipped.arrival_s", at + ": " + Num(row->arrival_s) + " -> 0");
    row->arrival_s = 0;
  }
  const int whole = static_cast<int>(std::ceil(gpus));
  if (whole != gpus) {
    const std::string why = "num_gpus " + Num(gpus) + " -> " + Num(whole);
    if (!Keeps(options, "fractional_gpu")) return drop("fractional_gpu", why);
    adj->Count("rounded_gpus", at + ": " + why);
  }
  while (row->scale_factor < whole) row->scale_factor *= 2;
  if (row->scale_factor > kMaxScaleFactor) {
    return drop("over_max_scale_factor",
                "num_gpus " + Num(gpus) + " > " + std::to_string(kMaxScaleFactor));
  }
  if (row->scale_factor != whole) {
    adj->Count("rounded_scale_factors",
               at + ": num_gpus " + std::to_string(whole) + " -> scale factor " +
                   std::to_string(row->scale_factor));
  }
  // Throughputs: the row's own values at its own GPU count, else Gavel's table.
  bool from_table = false;
  row->throughput.assign(gpu_types.size(), 0.0);
  for (std::size_t g = 0; g < gpu_types.size(); ++g) {
    const int col = g < c.per_job.size() ? c.per_job[g] : -1;
    if (col >= 0 && !csv.Field(col).empty() && row->scale_factor == gpus) {
      status->Update(csv.Read(col, &row->throughput[g], 0.0));
      if (!status->ok()) return false;
      continue;
    }
    auto it = table.find({row->job_type, row->scale_factor, gpu_types[g]});
    if (it != table.end() && it->second > 0) row->throughput[g] = it->second, from_table = true;
  }
  const double best = *std::max_element(row->throughput.begin(), row->throughput.end());
  if (best <= 0) {
    return drop("no_throughput",
                "'" + row->job_type + "' x " + std::to_string(row->scale_factor) + " GPUs");
  }
  if (from_table) adj->Count("defaulted.throughput_from_table", at);
  if (c.weight >= 0 && !csv.Field(c.weight).empty()) {
    status->Update(csv.Read(c.weight, &row->weight, 1e-9));
  } else {
    adj->Count("defaulted.priority_weight", at + ": 1");
  }
  if (c.duration >= 0 && !csv.Field(c.duration).empty()) {
    status->Update(csv.Read(c.duration, &row->duration_s, 0.0));
  } else {
    row->duration_s = row->total_steps / best;
    adj->Count("defaulted.duration_s",
               at + ": steps / fastest throughput = " + Num(row->duration_s));
  }
  return status->ok();
}

// The columns of a Gavel .trace line (no header): job_type, command, [working_directory,]
// num_steps_arg, needs_data_dir, total_steps, scale_factor, priority_weight, SLO, arrival_time.
// False (with *status set, or a row with an SLO dropped and counted) when the line is not read.
bool GavelColumns(const CsvReader& csv,
                  const ConvertOptions& options,
                  Columns* c,
                  Adjustments* adj,
                  Status* status) {
  if (csv.size() != 9 && csv.size() != 10) {
    *status = csv.RecordError(std::to_string(csv.size()) +
                              " tab-separated fields; a Gavel .trace line has 10 (job_type, "
                              "command, working_directory, num_steps_arg, needs_data_dir, "
                              "total_steps, scale_factor, priority_weight, SLO, arrival_time) or "
                              "the 9 without working_directory");
    return false;
  }
  const int o = csv.size() - 10;  // -1 without working_directory
  c->type = 0;
  c->steps = 5 + o;
  c->gpus = 6 + o;
  c->weight = 7 + o;
  c->arrival = 9 + o;
  const int slo = 8 + o;
  double deadline = -1;
  if (!csv.Field(slo).empty()) status->Update(csv.Read(slo, &deadline));
  if (!status->ok()) return false;
  if (deadline > 0) {
    const std::string why = "SLO " + Num(deadline) + " (cluster_scheduling has no deadlines)";
    if (!Keeps(options, "slo")) return DropRow(adj, At(csv), "slo", why);
    adj->Count("ignored.slo", At(csv) + ": " + why);
  }
  return true;
}

// "v100=64,p100=32" -> GPUs per type; names not among the types are an error.
Status ParseGpuCounts(const std::string& text,
                      const std::vector<std::string>& gpu_types,
                      std::vector<int>* counts) {
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    int n = 0;
    const std::string name = Lower(item.substr(0, eq));
    if (eq == std::string::npos || !ParseInteger(item.substr(eq + 1), &n) || n < 1)
      return InvalidArgument("--gpus-per-type: '" + item + "' is not NAME=COUNT (COUNT >= 1)");
    auto it = std::find(gpu_types.begin(), gpu_types.end(), name);
    if (it == gpu_types.end()) {
      std::string known;
      for (const std::string& g : gpu_types) known += (known.empty() ? "" : ", ") + g;
      return InvalidArgument(
          "--gpus-per-type: GPU type '" + name +
          "' is in neither the trace nor the throughput table (they have: " + known + ")");
    }
    (*counts)[it - gpu_types.begin()] = n;
  }
  return Status::Ok();
}

Status ReadJobs(const ConvertOptions& options,
                std::vector<std::string>* gpu_types,
                std::vector<PhillyRow>* rows,
                ConvertReport* report) {
  std::map<ThroughputKey, double> table;
  if (!options.throughputs.empty()) {
    if (Status s = ReadGavelThroughputs(options.throughputs, gpu_types, &table); !s.ok()) return s;
  }
  const bool gavel = options.shape == "gavel";
  Result<CsvReader> opened =
      gavel ? CsvReader::Open(options.input, {.delimiter = '\t', .header = false, .ragged = true})
            : OpenInput(options.input);
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  Columns c;
  if (!gavel) {
    if (Status s = FindColumns(csv, gpu_types, &c); !s.ok()) return s;
  }
  report->source_version = gavel ? "Gavel .trace" : "job list";
  if (gpu_types->empty())
    return InvalidArgument(options.input +
                           (gavel ? ": a Gavel .trace needs --throughputs (Gavel's table "
                                    "job_type,num_gpus,gpu_type,steps_per_s)"
                                  : ": no <gpu>_steps_per_s columns and no --throughputs table") +
                           ": the throughput of a job on each GPU type is unknown");
  return ReadRows(
      csv,
      options,
      [&](PhillyRow* row, Adjustments* row_adj, Status* status) {
        if (gavel && !GavelColumns(csv, options, &c, row_adj, status)) return false;
        const bool keep = ReadRow(csv, c, options, *gpu_types, table, row_adj, row, status);
        if (!keep || !status->ok()) return keep;
        if (c.id >= 0 && !csv.Field(c.id).empty()) {
          row->source.source_id = csv.Field(c.id);
        } else {
          row->source.source_id = std::to_string(report->rows_read - 1);
          row_adj->Count("defaulted.job_id", At(csv) + ": row index " + row->source.source_id);
        }
        return true;
      },
      rows,
      report);
}

// Arrival order, --time-origin, --max-jobs: each change counted.
void OrderJobs(const ConvertOptions& options, std::vector<PhillyRow>* rows, Adjustments* adj) {
  OrderByArrival(options, rows, adj);
  const double origin = rows->front().arrival_s;
  if (options.time_origin == "first" && origin > 0) {
    for (PhillyRow& r : *rows) r.arrival_s -= origin;
    adj->Count("shifted_arrivals",
               "every arrival - " + Num(origin) + " s",
               static_cast<int>(rows->size()));
  }
}

}  // namespace

Status ConvertPhilly(const ConvertOptions& options, ConvertReport* report) {
  report->target = "cluster_scheduling (source: trace)";
  Adjustments& adj = report->adjustments;
  for (const char* kind : {"rounded_gpus",
                           "rounded_scale_factors",
                           "mapped_ids",
                           "dropped_rows.duplicate_id",
                           "dropped_rows.no_throughput",
                           "dropped_rows.over_max_scale_factor",
                           "dropped_rows.missing_field",
                           "reordered_rows",
                           "defaulted.priority_weight",
                           "defaulted.cluster_gpus",
                           "clipped.arrival_s"})
    adj.Declare(kind);
  if (options.shape == "gavel")
    adj.Declare(Keeps(options, "slo") ? "ignored.slo" : "dropped_rows.slo");
  std::vector<std::string> gpu_types;
  std::vector<PhillyRow> rows;
  if (Status s = ReadJobs(options, &gpu_types, &rows, report); !s.ok()) return s;
  OrderJobs(options, &rows, &adj);
  std::vector<int> counts(gpu_types.size(), 0);
  if (Status s = ParseGpuCounts(options.gpus_per_type, gpu_types, &counts); !s.ok()) return s;
  for (std::size_t g = 0; g < gpu_types.size(); ++g) {
    if (counts[g] > 0) continue;
    counts[g] = options.default_gpus_per_type;
    adj.Count("defaulted.cluster_gpus", gpu_types[g] + " = " + std::to_string(counts[g]));
  }
  // Job type indices: one per name, split when two jobs of a name disagree on a throughput.
  std::vector<std::string> type_names;
  std::map<std::tuple<int, int>, std::vector<double>> cells;  // (type, sf) -> per GPU type
  std::map<std::string, std::vector<int>> types_of_name;
  std::vector<int> type_of_job;
  for (const PhillyRow& r : rows) {
    int type = -1;
    for (int t : types_of_name[r.job_type]) {
      auto it = cells.find({t, r.scale_factor});
      if (it == cells.end() || it->second == r.throughput) {
        type = t;
        break;
      }
    }
    if (type < 0) {
      type = static_cast<int>(type_names.size());
      if (!types_of_name[r.job_type].empty())
        adj.Count("job_types_split",
                  options.input + ":" + std::to_string(r.source.line) + ": '" + r.job_type +
                      "' has other throughputs than an earlier job: job type " +
                      std::to_string(type));
      type_names.push_back(r.job_type);
      types_of_name[r.job_type].push_back(type);
    }
    cells[{type, r.scale_factor}] = r.throughput;
    type_of_job.push_back(type);
  }
  const std::string dir = options.output_dir + "/";
  std::ofstream trace(dir + "trace.csv"), tput(dir + "throughputs.csv"),
      spec(dir + "cluster_spec.csv"), names(dir + "job_types.csv");
  trace << "job_id,kind,arrival_time_s,job_type,scale_factor,duration_s,total_steps,"
           "priority_weight\n";
  for (std::size_t j = 0; j < rows.size(); ++j) {
    const PhillyRow& r = rows[j];
    trace << j << ",arrival," << Num(r.arrival_s) << "," << type_of_job[j] << "," << r.scale_factor
          << "," << Num(r.duration_s) << "," << Num(r.total_steps) << "," << Num(r.weight) << "\n";
  }
  tput << "worker_type,job_type,scale_factor,throughput\n";
  for (std::size_t g = 0; g < gpu_types.size(); ++g)
    for (const auto& [key, values] : cells)
      if (values[g] > 0)
        tput << g << "," << std::get<0>(key) << "," << std::get<1>(key) << "," << Num(values[g])
             << "\n";
  spec << "worker_type_index,worker_type,num_gpus\n";
  for (std::size_t g = 0; g < gpu_types.size(); ++g)
    spec << g << "," << gpu_types[g] << "," << counts[g] << "\n";
  names << "job_type,name\n";
  for (std::size_t t = 0; t < type_names.size(); ++t) {
    std::string n = type_names[t];
    if (n.find_first_of(",\"") != std::string::npos) {
      std::string q;
      for (char ch : n) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
      n = "\"" + q + "\"";
    }
    names << t << "," << n << "\n";
  }
  for (std::ofstream* f : {&trace, &tput, &spec, &names}) {
    f->close();
    if (!*f) return InvalidArgument(dir + ": cannot write the converted files");
  }
  std::vector<SourceJob> ids;
  for (const PhillyRow& r : rows) ids.push_back(r.source);
  if (Status s = WriteIdMap(dir + "job_ids.csv", options.input, ids, /*with_vc=*/true, &adj);
      !s.ok())
    return s;
  report->jobs_written = static_cast<int>(rows.size());
  report->main_output = dir + "trace.csv";
  for (const char* f :
       {"trace.csv", "throughputs.csv", "cluster_spec.csv", "job_types.csv", "job_ids.csv"})
    report->outputs.push_back(dir + f);
  report->notes.push_back(
      "use in a deployment:\n  plugin:\n    name: cluster_scheduling\n    settings:\n"
      "      source: trace\n      trace: " +
      dir + "trace.csv\n      throughputs: " + dir + "throughputs.csv\n      cluster_spec: " + dir +
      "cluster_spec.csv");
  return Status::Ok();
}

}  // namespace dede::tools
