// Trace readers of the gpu_placement simulator (gpu_sim.h): Dally's online-comparison CSV and
// Tiresias-style job lists. Every field is checked; errors name file:line:column and the column.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dede/csv.h"
#include "gpu_sim.h"

namespace dede::gpu {

namespace {

// A trace CSV (dede/csv.h) with its required columns. Rows may be ragged: a missing field
// reads as empty (an error where a value is required), columns beyond the header are ignored.
// Empty with *error set when the file cannot be opened or a required column is missing.
std::optional<CsvReader> OpenTrace(const std::string& path,
                                   const std::vector<std::string_view>& required,
                                   std::string* error) {
  Result<CsvReader> csv = CsvReader::Open(path, {.ragged = true});
  Status status = csv.ok() ? csv->RequireColumns(required) : csv.status();
  if (!status.ok()) {
    if (error) *error = status.message();
    return std::nullopt;
  }
  return std::move(csv.value());
}

// Reads the named column of the current row as a finite number in [lo, hi] (an integer
// written as digits or as an integral number when `integer`). False with *error naming
// file:line:column, the column and the value.
bool ReadField(const CsvReader& csv,
               const char* column,
               double lo,
               double hi,
               bool integer,
               double* out,
               std::string* error) {
  const int c = csv.Column(column);
  Status status;
  if (integer) {
    std::int64_t v = 0;
    status = csv.ReadIntegral(
        c, &v, static_cast<std::int64_t>(std::ceil(lo)), static_cast<std::int64_t>(std::floor(hi)));
    if (status.ok()) *out = static_cast<double>(v);
  } else {
    status = csv.Read(c, out, lo, hi);
  }
  if (!status.ok() && error) *error = status.message();
  return status.ok();
}

}  // namespace

std::vector<JobSpec> LoadDallyCsv(const std::string& path, std::string* error) {
  std::optional<CsvReader> csv = OpenTrace(
      path, {"job_id", "arrival_s", "num_gpus", "total_iterations", "time_per_iteration_s"}, error);
  if (!csv) return {};
  const bool has_slowdowns = csv->Column("cross_slot_slowdown") >= 0 &&
                             csv->Column("cross_machine_slowdown") >= 0 &&
                             csv->Column("cross_rack_slowdown") >= 0;
  const auto table = TableIOverheads();
  std::vector<JobSpec> jobs;
  Status status;
  while (csv->Next(&status)) {
    JobSpec s;
    double id = 0, gpus = 0;
    if (!ReadField(*csv, "job_id", 0, 2147483647, true, &id, error) ||
        !ReadField(*csv, "arrival_s", 0, 1e15, false, &s.arrival_s, error) ||
        !ReadField(*csv, "num_gpus", 1, 1e6, true, &gpus, error) ||
        !ReadField(*csv, "total_iterations", 0, 1e18, false, &s.iterations, error) ||
        !ReadField(*csv, "time_per_iteration_s", 0, 1e9, false, &s.time_per_iteration_s, error)) {
      return {};
    }
    s.id = static_cast<int>(id);
    s.gpus = static_cast<int>(gpus);
    s.model = csv->Field(csv->Column("model"));
    auto it = table.find(s.model);
    if (it != table.end()) {
      s.overhead = it->second;
    } else if (has_slowdowns) {
      // Slowdown factors in (0, 1] (1: no slowdown); the overhead is 1 / factor - 1.
      double factors[3] = {1, 1, 1};
      const char* names[3] = {
          "cross_slot_slowdown", "cross_machine_slowdown", "cross_rack_slowdown"};
      for (int k = 0; k < 3; ++k) {
        if (!ReadField(*csv, names[k], 1e-9, 1, false, &factors[k], error)) return {};
      }
      s.overhead = {1 / factors[0] - 1, 1 / factors[1] - 1, 1 / factors[2] - 1};
    } else {
      if (error) {
        *error = csv->Where() + ": model '" + s.model +
                 "' is not in Table I and the file has no "
                 "cross_slot_slowdown, cross_machine_slowdown and cross_rack_slowdown columns: its "
                 "communication overhead is unknown (give the columns, or a model of Table I)";
      }
      return {};
    }
    jobs.push_back(s);
  }
  if (!status.ok()) {
    if (error) *error = status.message();
    return {};
  }
  return jobs;
}

std::vector<JobSpec> LoadTiresiasCsv(const std::string& path,
                                     WorkModel work_model,
                                     std::string* error) {
  std::optional<CsvReader> csv = OpenTrace(
      path, {"job_id", "arrival_s", "num_gpu", "model", "iterations", "duration_s"}, error);
  if (!csv) return {};
  std::vector<JobSpec> jobs;
  Status status;
  while (csv->Next(&status)) {
    JobSpec s;
    double id = 0, gpus = 0, duration = 0;
    if (!ReadField(*csv, "job_id", 0, 2147483647, true, &id, error) ||
        !ReadField(*csv, "arrival_s", 0, 1e15, false, &s.arrival_s, error) ||
        !ReadField(*csv, "num_gpu", 1, 1e6, true, &gpus, error) ||
        !ReadField(*csv, "iterations", 0, 1e18, false, &s.iterations, error) ||
        !ReadField(*csv, "duration_s", 0, 1e15, false, &duration, error)) {
      return {};
    }
    s.id = static_cast<int>(id);
    s.gpus = static_cast<int>(gpus);
    s.time_per_iteration_s =
        s.iterations > 0
            ? duration / s.iterations * (work_model == WorkModel::kArtistLinear ? s.gpus : 1)
            : 0;
    s.model = csv->Field(csv->Column("model"));
    jobs.push_back(s);
  }
  if (!status.ok()) {
    if (error) *error = status.message();
    return {};
  }
  return jobs;
}

std::string TraceMetaPath(const std::string& trace) { return trace + ".meta.json"; }

const char* WorkModelName(WorkModel m) {
  return m == WorkModel::kArtistLinear ? "artist_linear" : "trace_runtime";
}

bool ReadTraceMeta(const std::string& trace, TraceMeta* meta, std::string* error) {
  *meta = TraceMeta{};
  meta->path = TraceMetaPath(trace);
  std::ifstream in(meta->path);
  if (!in) return true;  // no sidecar: the trace records nothing
  meta->present = true;
  nlohmann::json j;
  try {
    in >> j;
  } catch (const std::exception& e) {
    *error = meta->path + ": not valid JSON (" + e.what() + ")";
    return false;
  }
  const auto text = [&](const char* key) {
    return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>()
                                                                  : std::string();
  };
  meta->work_model = text("work_model");
  if (meta->work_model != "artist_linear" && meta->work_model != "trace_runtime") {
    *error = meta->path + ": work_model '" + meta->work_model +
             "' is not artist_linear or trace_runtime (the model this trace's time per iteration "
             "was written for)";
    return false;
  }
  if (j.contains("source") && j["source"].is_object()) {
    const nlohmann::json& s = j["source"];
    const auto field = [&](const char* key) {
      return s.contains(key) && s[key].is_string() ? s[key].get<std::string>() : std::string();
    };
    meta->source = field("shape");
    if (!field("version").empty()) meta->source += " (" + field("version") + ")";
    if (!field("input").empty()) meta->source += " " + field("input");
  }
  return true;
}

bool ResolveWorkModel(const std::string& trace,
                      WorkModel requested,
                      bool explicit_choice,
                      const std::string& requested_by,
                      WorkModel* resolved,
                      std::string* note,
                      std::string* error) {
  *resolved = requested;
  note->clear();
  TraceMeta meta;
  if (!ReadTraceMeta(trace, &meta, error)) return false;
  if (!meta.present) return true;
  const WorkModel recorded =
      meta.work_model == "artist_linear" ? WorkModel::kArtistLinear : WorkModel::kTraceRuntime;
  if (explicit_choice && recorded != requested) {
    *error = requested_by + " is " + WorkModelName(requested) + ", but " + trace +
             " was written for work model " + meta.work_model + " (" + meta.path +
             (meta.source.empty() ? std::string() : ", converted from " + meta.source) +
             "): its time per iteration would be read " +
             (recorded == WorkModel::kArtistLinear ? "without" : "with") +
             " the division by the GPU count it was written " +
             (recorded == WorkModel::kArtistLinear ? "with" : "without") + "; run with " +
             meta.work_model + " or convert the trace again with --work-model " +
             WorkModelName(requested);
    return false;
  }
  *resolved = recorded;
  *note = "work model " + meta.work_model + " (recorded in " + meta.path +
          (explicit_choice ? ")" : "; not set, so the trace's)");
  return true;
}

int DropZeroWorkJobs(std::vector<JobSpec>* jobs) {
  const auto zero = [](const JobSpec& j) {
    return j.iterations == 0 || j.time_per_iteration_s == 0;
  };
  const std::size_t before = jobs->size();
  jobs->erase(std::remove_if(jobs->begin(), jobs->end(), zero), jobs->end());
  return static_cast<int>(before - jobs->size());
}

}  // namespace dede::gpu
