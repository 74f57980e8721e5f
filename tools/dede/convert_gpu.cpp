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
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
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
  // A run time still to turn into iterations and tpi (FinishRow), and its start; an open end
  // (a kept no_end_time record) runs until the latest time in the file.
  double duration = -1, start = 0;
  bool open_end = false;
  // Still running when last seen (Alibaba pod_phase Running) and its end: a pod whose end is
  // the file's last time was cut by the trace's end (class running_at_end).
  bool running = false;
  double end = -1;
  int gpus = 1;
  std::string model;
  double slowdown[3] = {1, 1, 1};
};

struct Columns {
  int id = 0, arrival = 0, gpus = -1, iterations = -1, tpi = -1, duration = -1, end = -1,
      start = -1, milli = -1, plan_gpu = -1, model = -1, spec = -1, state = -1;
  int slowdown[3] = {-1, -1, -1};
};

Status FindColumns(const std::string& shape, const CsvReader& csv, Columns* c) {
  Status s;
  c->model = FindColumn(csv, {"model", "model_name"});
  if (shape == "dally") {
    // Also cluster-sim's own names (its JSON job lists and CSVs): max_parallelism GPUs, the
    // arrival as start_time (arrival_time where given), time_per_iteration.
    s.Update(RequireColumn(csv, {"job_id", "id"}, &c->id));
    s.Update(RequireColumn(
        csv, {"arrival_s", "arrival_time", "submit_time", "start_time"}, &c->arrival));
    s.Update(RequireColumn(csv, {"num_gpus", "num_gpu", "gpu_num", "max_parallelism"}, &c->gpus));
    s.Update(RequireColumn(csv, {"total_iterations", "iterations"}, &c->iterations));
    s.Update(RequireColumn(csv, {"time_per_iteration_s", "time_per_iteration"}, &c->tpi));
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
    c->state = FindColumn(csv, {"state", "status"});
    c->start = FindColumn(csv, {"start_time"});
  } else {  // alibaba
    s.Update(RequireColumn(csv, {"name", "job_name", "pod_name", "job_id"}, &c->id));
    s.Update(RequireColumn(csv, {"creation_time", "submit_time"}, &c->arrival));
    s.Update(RequireColumn(csv, {"deletion_time", "end_time"}, &c->end));
    c->start = FindColumn(csv, {"scheduled_time", "start_time"});
    c->gpus = FindColumn(csv, {"num_gpu", "gpu_num"});
    c->milli = FindColumn(csv, {"gpu_milli"});
    c->plan_gpu = FindColumn(csv, {"plan_gpu"});
    c->spec = FindColumn(csv, {"gpu_spec", "gpu_type"});
    c->state = FindColumn(csv, {"pod_phase", "status", "state"});
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

// The record class a row's state puts it in ("" for a finished job) and why: Alibaba's
// pod_phase, Helios' state, a missing start (never scheduled).
std::string StateClass(const CsvReader& csv, const Columns& c, std::string* why) {
  const std::string field = c.state >= 0 ? std::string(csv.Field(c.state)) : std::string();
  std::string state = field;
  for (char& ch : state) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  *why = c.state >= 0 ? csv.FieldName(c.state) + " " + field : std::string();
  if (state == "pending") return "never_scheduled";
  if (c.start >= 0 && csv.Field(c.start).empty()) {
    *why = "empty " + csv.FieldName(c.start);
    return "never_scheduled";
  }
  if (state == "failed" || state == "timeout" || state == "node_fail" || state == "out_of_memory")
    return "failed";
  if (state == "cancelled" || state == "canceled") return "cancelled";
  return "";
}

// The classes of a record that are a user's choice (RecordClasses): false (status OK) when one
// of them is dropped; kept ones are counted in *adj (the row's own adjustments).
bool DecideClasses(const CsvReader& csv,
                   const Columns& c,
                   const ConvertOptions& options,
                   double gpus,
                   Adjustments* adj,
                   GpuRow* row) {
  const std::string at = At(csv);
  const auto decide = [&](const std::string& cls, const std::string& why, const char* kept) {
    if (!Keeps(options, cls)) return DropRow(adj, at, cls.c_str(), why);
    adj->Count(kept, at + ": " + why);
    return true;
  };
  std::string why;
  if (const std::string cls = StateClass(csv, c, &why); !cls.empty()) {
    if (!decide(cls, why, ("kept." + cls).c_str())) return false;
    if (cls == "never_scheduled") row->start = row->arrival_s;  // its wait is its run time
  }
  if (std::ceil(gpus) != gpus &&
      !decide("fractional_gpu", Num(gpus) + " GPU -> " + Num(std::ceil(gpus)), "rounded_gpus"))
    return false;
  if (c.end >= 0 && csv.Field(c.end).empty()) {
    if (!decide("no_end_time", "empty " + csv.FieldName(c.end), "kept.no_end_time")) return false;
    row->open_end = true;
  }
  if (c.spec >= 0 && !csv.Field(c.spec).empty() &&
      !decide("gpu_type_constraint",
              csv.FieldName(c.spec) + " '" + std::string(csv.Field(c.spec)) + "'",
              "ignored.gpu_type_constraint"))
    return false;
  return true;
}

// The slowdown factors of a row (its own, clipped to 1, or --slowdowns).
void ReadSlowdowns(const CsvReader& csv,
                   const Columns& c,
                   const ConvertOptions& options,
                   Adjustments* adj,
                   GpuRow* row,
                   Status* status) {
  const std::string at = At(csv);
  const bool has = c.slowdown[0] >= 0 && c.slowdown[1] >= 0 && c.slowdown[2] >= 0 &&
                   EmptyField(csv, {c.slowdown[0], c.slowdown[1], c.slowdown[2]}) < 0;
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
}

// One record -> *row; false with status OK when the row is dropped (counted under its reason).
// A run time (duration, or end - start) is turned into iterations by FinishRow.
bool ReadRow(const CsvReader& csv,
             const Columns& c,
             const ConvertOptions& options,
             Adjustments* adj,
             GpuRow* row,
             Status* status) {
  const std::string at = At(csv);
  row->source.line = csv.line();
  row->source.source_id = csv.Field(c.id);
  const int gpu_column = c.gpus >= 0 ? c.gpus : c.plan_gpu;
  if (const int empty =
          EmptyField(csv, {c.id, c.arrival, gpu_column, c.iterations, c.tpi, c.duration});
      empty >= 0)
    return DropRow(adj, at, "missing_field", "empty " + csv.FieldName(empty));
  double gpus = 0;
  status->Update(ReadTime(csv, c.arrival, &row->arrival_s));
  status->Update(ReadGpus(csv, c, &gpus));
  if (c.iterations >= 0) status->Update(csv.Read(c.iterations, &row->iterations, 0.0));
  if (c.tpi >= 0) status->Update(csv.Read(c.tpi, &row->tpi, 0.0));
  if (c.duration >= 0) status->Update(csv.Read(c.duration, &row->duration, 0.0));
  if (!status->ok()) return false;
  if (gpus == 0) return DropRow(adj, at, "no_gpu", "0 GPUs");
  row->gpus = static_cast<int>(std::ceil(gpus));
  row->start = row->arrival_s;
  if (c.start >= 0 && c.end >= 0 && !csv.Field(c.start).empty()) {
    status->Update(ReadTime(csv, c.start, &row->start));
    if (row->start <= 0) row->start = row->arrival_s;  // Alibaba writes 0 before the first pod
  }
  if (!status->ok() || !DecideClasses(csv, c, options, gpus, adj, row)) return false;
  if (c.end >= 0 && !row->open_end) {
    status->Update(ReadTime(csv, c.end, &row->end));
    row->duration = row->end - row->start;
    row->running =
        c.state >= 0 && (csv.Field(c.state) == "Running" || csv.Field(c.state) == "running" ||
                         csv.Field(c.state) == "RUNNING");
  }
  if (c.model >= 0) row->model = csv.Field(c.model);
  ReadSlowdowns(csv, c, options, adj, row, status);
  return status->ok();
}

// A run time -> iterations (given, or one per second) and the time per iteration that the work
// model turns back into it; false when the row has no work (counted as dropped).
bool FinishRow(const ConvertOptions& options, bool has_iterations, GpuRow* row, Adjustments* adj) {
  const std::string at = options.input + ":" + std::to_string(row->source.line);
  if (row->duration >= 0) {
    if (row->duration <= 0)
      return DropRow(adj, at, "no_work", "run time " + Num(row->duration) + " s");
    if (!has_iterations) {
      row->iterations = std::max(1.0, std::round(row->duration));
      row->adjusted.Count("defaulted.total_iterations",
                          at + ": " + Num(row->iterations) + " (one per second)");
    }
    if (row->iterations <= 0) return DropRow(adj, at, "no_work", "0 iterations");
    row->tpi =
        row->duration / row->iterations * (options.work_model == "artist_linear" ? row->gpus : 1);
  }
  if (row->iterations <= 0 || row->tpi <= 0)
    return DropRow(adj, at, "no_work", "0 iterations or time per iteration");
  return true;
}

std::string Quote(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

// cluster-sim's JSON job list (an array of objects of strings or numbers) as CSV text: the
// keys in order of first appearance, one record per object, each on the line where its object
// starts in the file (blank lines between), so messages name the JSON file's lines.
Result<CsvReader> JsonJobsAsCsv(const std::string& path) {
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  nlohmann::json jobs;
  try {
    jobs = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    return InvalidArgument(path + ": not valid JSON (" + e.what() + ")");
  }
  if (!jobs.is_array()) return InvalidArgument(path + ": expected a JSON array of job objects");
  std::vector<int> lines;  // the line of each object's '{'
  int depth = 0, line = 1;
  bool in_string = false, escaped = false;
  for (char ch : text) {
    if (ch == '\n') ++line;
    if (in_string) {
      in_string = !(ch == '"' && !escaped);
      escaped = !escaped && ch == '\\';
      continue;
    }
    if (ch == '"') in_string = true;
    if (ch == '{' && depth == 1) lines.push_back(line);
    if (ch == '[' || ch == '{') ++depth;
    if (ch == ']' || ch == '}') --depth;
  }
  std::vector<std::string> keys;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    if (!jobs[k].is_object())
      return InvalidArgument(path + ": job " + std::to_string(k + 1) + " is not an object");
    for (const auto& [key, value] : jobs[k].items())
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  bool by_line = lines.size() == jobs.size() && (lines.empty() || lines.front() > 1);
  for (std::size_t k = 1; by_line && k < lines.size(); ++k) by_line = lines[k] > lines[k - 1];
  std::string csv;
  for (std::size_t i = 0; i < keys.size(); ++i) csv += (i ? "," : "") + Quote(keys[i]);
  int at = 1;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const int target = by_line ? lines[k] : at + 1;
    csv.append(static_cast<std::size_t>(target - at), '\n');
    at = target;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const auto it = jobs[k].find(keys[i]);
      std::string v;
      if (it != jobs[k].end() && !it->is_null())
        v = it->is_string() ? it->get<std::string>() : it->dump();
      csv += (i ? "," : "") + Quote(v);
    }
  }
  csv += "\n";
  return CsvReader::FromString(std::move(csv),
                               by_line ? path : path + " (job k on line k + 1)",
                               {.ignore_header_case = true, .ragged = true});
}

std::string SourceVersion(const std::string& shape, const CsvReader& csv, bool json) {
  if (json) return "cluster-sim JSON job list";
  if (shape == "alibaba")
    return FindColumn(csv, {"plan_gpu"}) >= 0    ? "v2020 (plan_gpu)"
           : FindColumn(csv, {"gpu_milli"}) >= 0 ? "v2023 pod list"
                                                 : "pod list";
  if (shape == "dally")
    return FindColumn(csv, {"max_parallelism"}) >= 0 ? "cluster-sim CSV" : "dally_csv";
  return shape == "helios" ? "cluster_log" : "job list";
}

Status ReadJobs(const ConvertOptions& options, std::vector<GpuRow>* rows, ConvertReport* report) {
  const bool json = options.shape == "dally" && options.input.ends_with(".json");
  Result<CsvReader> opened = json ? JsonJobsAsCsv(options.input) : OpenInput(options.input);
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  Columns c;
  if (Status s = FindColumns(options.shape, csv, &c); !s.ok()) return s;
  report->source_version = SourceVersion(options.shape, csv, json);
  double latest = 0;  // the latest time in the file: where a kept open-ended record stops
  Status status = ReadRows(
      csv,
      options,
      [&](GpuRow* row, Adjustments* row_adj, Status* status) {
        for (int col : {c.arrival, c.end, c.start}) {
          double t = 0;
          if (col >= 0 && !csv.Field(col).empty() && ReadTime(csv, col, &t).ok())
            latest = std::max(latest, t);
        }
        return ReadRow(csv, c, options, row_adj, row, status);
      },
      rows,
      report);
  if (!status.ok()) return status;
  double last_end = 0;  // the latest end: pods still running then were cut by the trace's end
  for (const GpuRow& r : *rows) last_end = std::max(last_end, r.end);
  std::vector<GpuRow> kept;
  for (GpuRow& r : *rows) {
    const std::string at = options.input + ":" + std::to_string(r.source.line);
    if (r.running && r.end == last_end) {
      const std::string why = "running at the trace's last time " + Num(last_end);
      if (!Keeps(options, "running_at_end")) {
        DropRow(&report->adjustments, at, "running_at_end", why);
        continue;
      }
      r.adjusted.Count("kept.running_at_end", at + ": " + why);
    }
    if (r.open_end) {
      r.duration = latest - r.start;
      r.adjusted.Count(
          "clipped.run_time_at_trace_end",
          options.input + ":" + std::to_string(r.source.line) + ": ends at " + Num(latest));
    }
    if (FinishRow(options, c.iterations >= 0, &r, &report->adjustments))
      kept.push_back(std::move(r));
  }
  *rows = std::move(kept);
  if (rows->empty()) return InvalidArgument(options.input + ": no job left to write");
  return Status::Ok();
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
  for (const char* kind : {"mapped_ids",
                           "dropped_rows.duplicate_id",
                           "dropped_rows.missing_field",
                           "dropped_rows.no_gpu",
                           "dropped_rows.no_work",
                           "reordered_rows",
                           "defaulted.slowdowns",
                           "clipped.arrival_s"})
    adj.Declare(kind);
  // The record classes this shape has, under the name of what was done with them.
  std::vector<std::string> classes = {"fractional_gpu"};
  if (options.shape == "alibaba")
    classes = {"never_scheduled",
               "failed",
               "fractional_gpu",
               "no_end_time",
               "running_at_end",
               "gpu_type_constraint"};
  if (options.shape == "helios")
    classes = {"never_scheduled", "failed", "cancelled", "fractional_gpu"};
  for (const std::string& cls : classes) {
    const std::string kept = cls == "fractional_gpu"        ? "rounded_gpus"
                             : cls == "gpu_type_constraint" ? "ignored.gpu_type_constraint"
                                                            : "kept." + cls;
    adj.Declare(Keeps(options, cls) ? kept : "dropped_rows." + cls);
  }
  report->work_model = options.work_model;
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
  report->main_output = dir + "jobs.csv";
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
      options.work_model + "}\nor: dally_bench --trace " + dir +
      "jobs.csv\n(the work model is recorded in " + dir +
      "jobs.csv.meta.json: both refuse another one)");
  return Status::Ok();
}

}  // namespace dede::tools
