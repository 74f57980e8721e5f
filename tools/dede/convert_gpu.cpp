// `dede convert dally|tiresias|helios|alibaba`: GPU job lists -> the gpu_placement plugin's
// `source: dally_csv` trace (jobs.csv; also dally_bench --trace), job_ids.csv, and with --nodes
// the cluster shape (cluster.yaml: `cluster` for one GPU type, `gpu_types` for several).
//
// The written columns are job_id, arrival_s, num_gpus, total_iterations, time_per_iteration_s,
// model and the three slowdown factors. A trace that gives a run time instead of iterations
// (Tiresias, Helios, Alibaba) is written so that the plugin's work model reproduces it, exactly
// as its own tiresias_csv reader does: time_per_iteration_s = duration / iterations, times the
// GPU count under work_model artist_linear (run time = iterations * tpi / GPUs).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <unordered_map>

#include "convert.h"

namespace dede::tools {
namespace {

struct GpuRow {
  SourceJob source;
  // What reading the row adjusted: counted once the row is known to be written (after the
  // duplicates and --max-jobs), so the counts describe the output.
  Adjustments adjusted;
  double arrival_s = 0, iterations = 0, tpi = 0;
  int gpus = 1;
  std::string model;
  double slowdown[3] = {1, 1, 1};
};

struct Columns {
  int id = 0, arrival = 0, gpus = -1, iterations = -1, tpi = -1, duration = -1, end = -1,
      start = -1, milli = -1, plan_gpu = -1, model = -1, spec = -1;
  int slowdown[3] = {-1, -1, -1};
};

Status FindColumns(const std::string& shape, const CsvReader& csv, Columns* c) {
  Status s;
  c->model = FindColumn(csv, {"model", "model_name"});
  if (shape == "dally") {
    s.Update(RequireColumn(csv, {"job_id", "id"}, &c->id));
    s.Update(RequireColumn(csv, {"arrival_s", "arrival_time", "submit_time"}, &c->arrival));
    s.Update(RequireColumn(csv, {"num_gpus", "num_gpu", "gpu_num"}, &c->gpus));
    s.Update(RequireColumn(csv, {"total_iterations", "iterations"}, &c->iterations));
    s.Update(RequireColumn(csv, {"time_per_iteration_s"}, &c->tpi));
    c->slowdown[0] = FindColumn(csv, {"cross_slot_slowdown"});
    c->slowdown[1] = FindColumn(csv, {"cross_machine_slowdown"});
    c->slowdown[2] = FindColumn(csv, {"cross_rack_slowdown"});
  } else if (shape == "tiresias") {
    s.Update(RequireColumn(csv, {"job_id", "id"}, &c->id));
    s.Update(RequireColumn(csv, {"arrival_s", "submit_time"}, &c->arrival));
    s.Update(RequireColumn(csv, {"num_gpu", "num_gpus"}, &c->gpus));
    s.Update(RequireColumn(csv, {"iterations"}, &c->iterations));
    s.Update(RequireColumn(csv, {"duration_s", "duration"}, &c->duration));
  } else if (shape == "helios") {
    s.Update(RequireColumn(csv, {"job_id", "jobid"}, &c->id));
    s.Update(RequireColumn(csv, {"submit_time", "arrival_s"}, &c->arrival));
    s.Update(RequireColumn(csv, {"gpu_num", "num_gpus", "num_gpu"}, &c->gpus));
    s.Update(RequireColumn(csv, {"duration", "duration_s"}, &c->duration));
  } else {  // alibaba
    s.Update(RequireColumn(csv, {"name", "job_name", "pod_name", "job_id"}, &c->id));
    s.Update(RequireColumn(csv, {"creation_time", "submit_time"}, &c->arrival));
    s.Update(RequireColumn(csv, {"deletion_time", "end_time"}, &c->end));
    c->start = FindColumn(csv, {"scheduled_time", "start_time"});
    c->gpus = FindColumn(csv, {"num_gpu", "gpu_num"});
    c->milli = FindColumn(csv, {"gpu_milli"});
    c->plan_gpu = FindColumn(csv, {"plan_gpu"});
    c->spec = FindColumn(csv, {"gpu_spec", "gpu_type"});
    if (c->gpus < 0 && c->plan_gpu < 0)
      s.Update(RequireColumn(csv, {"num_gpu", "plan_gpu"}, &c->gpus));
  }
  return s;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
long long DaysFromCivil(long long y, unsigned m, unsigned d) {
  y -= m <= 2;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

// Seconds, or a UTC date-time "YYYY-MM-DD HH:MM:SS" (Helios) as seconds since 1970.
Status ReadTime(const CsvReader& csv, int column, double* out) {
  const std::string text(csv.Field(column));
  if (ParseDouble(text, out) && std::isfinite(*out)) return Status::Ok();
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  char tail = 0;
  const int n =
      std::sscanf(text.c_str(), "%d-%d-%d%*[ T]%d:%d:%d%c", &y, &mo, &d, &h, &mi, &s, &tail);
  if ((n == 6) && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h < 24 && mi < 60 && s < 61) {
    *out = static_cast<double>(DaysFromCivil(y, mo, d)) * 86400.0 + h * 3600 + mi * 60 + s;
    return Status::Ok();
  }
  return csv.Expected(column, "seconds or a date-time 'YYYY-MM-DD HH:MM:SS'");
}

// The GPUs a row asks for, possibly fractional (Alibaba: num_gpu x gpu_milli / 1000, or
// plan_gpu / 100).
Status ReadGpus(const CsvReader& csv, const Columns& c, double* gpus) {
  Status s;
  if (c.gpus >= 0) {
    s.Update(csv.Read(c.gpus, gpus, 0.0, 1e6));
    if (s.ok() && c.milli >= 0 && !csv.Field(c.milli).empty()) {
      double milli = 0;
      s.Update(csv.Read(c.milli, &milli, 0.0, 1000.0));
      if (s.ok() && milli > 0) *gpus *= milli / 1000.0;
    }
    return s;
  }
  s.Update(csv.Read(c.plan_gpu, gpus, 0.0, 1e8));
  *gpus /= 100.0;
  return s;
}

// One record -> *row; false with status OK when the row is dropped (counted under its reason).
bool ReadRow(const CsvReader& csv,
             const Columns& c,
             const ConvertOptions& options,
             Adjustments* adj,
             GpuRow* row,
             Status* status) {
  const std::string at = At(csv);
  const auto drop = [&](const char* kind, const std::string& why) {
    return DropRow(adj, at, kind, why);
  };
  row->source.line = csv.line();
  row->source.source_id = csv.Field(c.id);
  if (row->source.source_id.empty()) return (*status = csv.Expected(c.id, "a job id")).ok();
  double gpus = 0, duration = -1;
  status->Update(ReadTime(csv, c.arrival, &row->arrival_s));
  status->Update(ReadGpus(csv, c, &gpus));
  if (c.iterations >= 0) status->Update(csv.Read(c.iterations, &row->iterations, 0.0));
  if (c.tpi >= 0) status->Update(csv.Read(c.tpi, &row->tpi, 0.0));
  if (c.duration >= 0) status->Update(csv.Read(c.duration, &duration, 0.0));
  if (c.end >= 0) {
    if (csv.Field(c.end).empty()) return drop("no_end_time", "empty " + csv.FieldName(c.end));
    double end = 0, start = row->arrival_s;
    status->Update(ReadTime(csv, c.end, &end));
    if (c.start >= 0 && !csv.Field(c.start).empty()) status->Update(ReadTime(csv, c.start, &start));
    if (start <= 0) start = row->arrival_s;  // Alibaba writes 0 for never-scheduled pods
    duration = end - start;
  }
  if (!status->ok()) return false;
  if (gpus == 0) return drop("no_gpu", "0 GPUs");
  row->gpus = static_cast<int>(std::ceil(gpus));
  if (row->gpus != gpus)
    adj->Count("rounded_gpus", at + ": " + Num(gpus) + " GPU -> " + std::to_string(row->gpus));
  if (duration >= 0) {  // a run time: iterations (given or one per second) and tpi from it
    if (duration <= 0) return drop("no_work", "run time " + Num(duration) + " s");
    if (c.iterations < 0) {
      row->iterations = std::max(1.0, std::round(duration));
      adj->Count("defaulted.total_iterations",
                 at + ": " + Num(row->iterations) + " (one per second)");
    }
    if (row->iterations <= 0) return drop("no_work", "0 iterations");
    row->tpi = duration / row->iterations * (options.work_model == "artist_linear" ? row->gpus : 1);
  }
  if (row->iterations <= 0 || row->tpi <= 0)
    return drop("no_work", "0 iterations or time per iteration");
  if (c.model >= 0) row->model = csv.Field(c.model);
  if (c.spec >= 0 && !csv.Field(c.spec).empty())
    adj->Count("ignored.gpu_type_constraint", at + ": '" + std::string(csv.Field(c.spec)) + "'");
  const bool has = c.slowdown[0] >= 0 && c.slowdown[1] >= 0 && c.slowdown[2] >= 0 &&
                   !csv.Field(c.slowdown[0]).empty() && !csv.Field(c.slowdown[1]).empty() &&
                   !csv.Field(c.slowdown[2]).empty();
  for (int k = 0; k < 3; ++k) {
    if (!has) {
      row->slowdown[k] = options.slowdowns[k];
      continue;
    }
    status->Update(csv.Read(c.slowdown[k], &row->slowdown[k], 1e-9));
    if (status->ok() && row->slowdown[k] > 1) {
      adj->Count("clipped.slowdown",
                 at + ": " + csv.FieldName(c.slowdown[k]) + " " + Num(row->slowdown[k]) + " -> 1");
      row->slowdown[k] = 1;
    }
  }
  if (!has) adj->Count("defaulted.slowdowns", at);
  return status->ok();
}

std::string Quote(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

Status ReadJobs(const ConvertOptions& options, std::vector<GpuRow>* rows, ConvertReport* report) {
  Result<CsvReader> opened = OpenInput(options.input);
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  Columns c;
  if (Status s = FindColumns(options.shape, csv, &c); !s.ok()) return s;
  return ReadRows(
      csv,
      options,
      [&](GpuRow* row, Adjustments* row_adj, Status* status) {
        return ReadRow(csv, c, options, row_adj, row, status);
      },
      rows,
      report);
}

// Arrival order, time origin, --max-jobs and ids: each change counted.
void OrderJobs(const ConvertOptions& options, std::vector<GpuRow>* rows, Adjustments* adj) {
  OrderByArrival(options, rows, adj);
  const bool clock = options.shape == "helios" || options.shape == "alibaba";
  const double origin = rows->front().arrival_s;
  if ((options.time_origin == "first" || (options.time_origin == "auto" && clock)) && origin != 0) {
    for (GpuRow& r : *rows) r.arrival_s -= origin;
    adj->Count("shifted_arrivals",
               "every arrival - " + Num(origin) + " s",
               static_cast<int>(rows->size()));
  }
  for (GpuRow& r : *rows) {
    if (r.arrival_s >= 0) continue;
    adj->Count(
        "clipped.arrival_s",
        options.input + ":" + std::to_string(r.source.line) + ": " + Num(r.arrival_s) + " -> 0");
    r.arrival_s = 0;
  }
  // Ids: kept when every one is an integer in [0, 2^31); else 0..n-1 in arrival order.
  bool keep = true;
  for (const GpuRow& r : *rows) {
    std::int64_t v = -1;
    keep = keep && ParseInteger(r.source.source_id, &v) && v >= 0 && v <= 2147483647;
  }
  for (std::size_t i = 0; i < rows->size(); ++i) {
    std::int64_t v = static_cast<std::int64_t>(i);
    if (keep) ParseInteger((*rows)[i].source.source_id, &v);
    (*rows)[i].source.new_id = static_cast<int>(v);
  }
}

}  // namespace

Status ConvertNodes(const ConvertOptions& options, ConvertReport* report, int largest_job);

Status ConvertGpu(const ConvertOptions& options, ConvertReport* report) {
  if (options.shape != "dally" && options.shape != "tiresias" && options.shape != "helios" &&
      options.shape != "alibaba")
    return InvalidArgument("dede convert: unknown shape '" + options.shape + "'\n" + ShapeHelp());
  if (options.slowdowns.size() != 3)
    return InvalidArgument("--slowdowns: give three factors (slot, machine, rack), got " +
                           std::to_string(options.slowdowns.size()));
  report->target = "gpu_placement (workload.source: dally_csv)";
  Adjustments& adj = report->adjustments;
  for (const char* kind : {"rounded_gpus",
                           "mapped_ids",
                           "dropped_rows.duplicate_id",
                           "dropped_rows.no_gpu",
                           "dropped_rows.no_work",
                           "reordered_rows",
                           "defaulted.slowdowns",
                           "clipped.arrival_s"})
    adj.Declare(kind);
  std::vector<GpuRow> rows;
  if (Status s = ReadJobs(options, &rows, report); !s.ok()) return s;
  OrderJobs(options, &rows, &adj);
  const std::string dir = options.output_dir + "/";
  std::ofstream out(dir + "jobs.csv");
  out << "job_id,arrival_s,num_gpus,total_iterations,time_per_iteration_s,model,"
         "cross_slot_slowdown,cross_machine_slowdown,cross_rack_slowdown\n";
  int largest = 0;
  for (const GpuRow& r : rows) {
    out << r.source.new_id << "," << Num(r.arrival_s) << "," << r.gpus << "," << Num(r.iterations)
        << "," << Num(r.tpi) << "," << Quote(r.model) << "," << Num(r.slowdown[0]) << ","
        << Num(r.slowdown[1]) << "," << Num(r.slowdown[2]) << "\n";
    largest = std::max(largest, r.gpus);
  }
  out.close();
  if (!out) return InvalidArgument(dir + "jobs.csv: cannot write the file");
  std::vector<SourceJob> ids;
  for (const GpuRow& r : rows) ids.push_back(r.source);
  if (Status s = WriteIdMap(dir + "job_ids.csv", options.input, ids, /*with_vc=*/false, &adj);
      !s.ok())
    return s;
  report->jobs_written = static_cast<int>(rows.size());
  report->outputs.push_back(dir + "jobs.csv");
  report->outputs.push_back(dir + "job_ids.csv");
  if (!options.nodes.empty()) {
    if (Status s = ConvertNodes(options, report, largest); !s.ok()) return s;
  }
  report->notes.push_back(
      "use in a deployment:\n  plugin:\n    name: gpu_placement\n    settings:\n"
      "      workload: {source: dally_csv, trace: " +
      dir +
      "jobs.csv, arrivals: trace, "
      "work_model: " +
      options.work_model + "}\nor: dally_bench --trace " + dir + "jobs.csv");
  return Status::Ok();
}

}  // namespace dede::tools
