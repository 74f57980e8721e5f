// `dede convert SHAPE INPUT -o DIR`: public GPU-cluster trace shapes -> the input files of the
// cluster_scheduling plugin (`source: trace`) and of the gpu_placement plugin (`source:
// dally_csv`, also what dally_bench --trace reads). Every change made to the data on the way
// (rounded GPU counts, mapped ids, dropped rows and why, defaulted fields, clipped values,
// duplicate ids, reordered rows) is counted in a ConvertReport, printed at the end and
// optionally written as JSON; nothing is changed silently. Malformed input stops the conversion
// with an error naming file:line:column, the column and the value (dede/csv.h).
//
// Why a converter and not more readers in the plugins: the plugins' formats stay exact and
// strict (every field checked, no guessing), the converted files can be read, diffed and
// edited, the id mapping is written next to them, and one tool serves the plugins and
// dally_bench alike. The accepted input columns of each shape are in tools/dede/README-convert
// (section "Your own trace" of the plugins' READMEs) and in ShapeHelp().
#pragma once

#include <algorithm>
#include <initializer_list>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "dede/csv.h"
#include "dede/status.h"

namespace dede::tools {

struct ConvertOptions {
  // philly, gavel (-> cluster_scheduling), dally, tiresias, helios, alibaba (-> gpu_placement).
  std::string shape;
  std::string input;
  std::string output_dir;
  std::string report_json;  // also write the report here (empty: no file)
  // philly: Gavel's throughput table `job_type,num_gpus,gpu_type,steps_per_s`, for jobs without
  // per-job `<gpu>_steps_per_s` values (or whose GPU count was rounded).
  std::string throughputs;
  // philly: GPUs per worker type, "v100=64,p100=32"; types not named get default_gpus_per_type.
  std::string gpus_per_type;
  int default_gpus_per_type = 64;
  std::vector<std::string> vcs;  // philly: keep only these virtual clusters (empty: all)
  // keep | first (subtract the earliest arrival) | auto (first for helios and alibaba, whose
  // times are clock times; keep otherwise).
  std::string time_origin = "auto";
  int max_jobs = 0;  // keep the first N jobs by arrival (0: all)
  // gpu shapes: how time_per_iteration_s is written for a duration, as the plugin's
  // workload.work_model reads it (artist_linear: run time = iterations * tpi / GPUs).
  std::string work_model = "artist_linear";
  // gpu shapes: slowdown factors (slot, machine, rack) written for rows that have none.
  std::vector<double> slowdowns = {1.0, 0.8, 0.7};
  std::string nodes;  // gpu shapes: a node list -> the plugin's cluster / gpu_types (cluster.yaml)
  // Record classes (RecordClasses()) to keep or to drop, overriding each class's default.
  std::vector<std::string> keep, drop;
};

// A class of source records a user decides on (--keep CLASS / --drop CLASS): what keeping one
// means, and whether it is kept unless told otherwise. Records no simulator can run (no GPUs,
// no work, a required field missing, a repeated id) are always dropped and counted.
struct RecordClass {
  const char* name;
  bool kept_by_default;
  const char* kept_as;  // what a kept record becomes
  const char* found_in;
};
const std::vector<RecordClass>& RecordClasses();
// Whether records of class `name` are written (the class's default unless --keep / --drop).
bool Keeps(const ConvertOptions& options, const std::string& name);
// --keep / --drop name known classes, and no class twice; an error names the option and value.
Status CheckRecordClasses(const ConvertOptions& options);

// Counts of adjustments by kind ("rounded_gpus", "dropped_rows.no_gpu", ...), each with up to
// three examples ("trace.csv:12: num_gpus 0.5 -> 1").
class Adjustments {
 public:
  // A kind that applies to the shape: listed (with 0) even if nothing was adjusted.
  void Declare(const std::string& kind);
  void Count(const std::string& kind, const std::string& example, int n = 1);
  int Get(const std::string& kind) const;
  // Adds other's counts (only the kinds starting with `prefix`, if given).
  void Merge(const Adjustments& other, std::string_view prefix = {});
  struct Entry {
    int count = 0;
    std::vector<std::string> examples;
  };
  const std::map<std::string, Entry>& entries() const { return entries_; }

 private:
  std::map<std::string, Entry> entries_;
};

struct ConvertReport {
  std::string shape, input, target;  // target: the plugin and source the output is for
  std::string source_version;        // the layout found ("v2023 pod list", "Gavel .trace", ...)
  std::string work_model;            // gpu shapes: what time_per_iteration_s is written for
  std::string main_output;           // the converted trace; its sidecar is main_output.meta.json
  int rows_read = 0, jobs_written = 0;
  std::vector<std::string> outputs;  // files written
  std::vector<std::string> notes;    // how to use the output (the deployment keys)
  Adjustments adjustments;
  void Print(std::ostream& out) const;
  // The report, the source, the options and (gpu shapes) the work model: also the sidecar.
  std::string Json(const ConvertOptions& options) const;
};

// The shapes and their columns, for --help and errors.
std::string ShapeHelp();

// Reads, converts, writes the files and fills *report. Errors (bad input, unwritable output)
// are InvalidArgument / NotFound with file:line:column where a record is at fault.
Status Convert(const ConvertOptions& options, ConvertReport* report);

// ---- shared by the shapes (convert_*.cpp) -------------------------------------------------

// Output id mapping: assigns 0..n-1 in output order, counting "mapped_ids" for each job whose
// source id is not the same integer, and writes job_ids.csv (job_id,source_job_id[,vc]).
struct SourceJob {
  std::string source_id;
  std::string vc;
  int line = 0;
  int new_id = -1;  // -1: the position in the output
};
Status WriteIdMap(const std::string& path,
                  const std::string& input,
                  const std::vector<SourceJob>& jobs,
                  bool with_vc,
                  Adjustments* adjustments);

// Opens a shape's input: header required, letter case of names ignored, ragged rows allowed.
Result<CsvReader> OpenInput(const std::string& path);
// The column of the first of `names` (the accepted spellings of one field) the header has, or
// -1; a header name matches with '-' or ' ' for '_' (cluster-sim's "job-id"). Required: an error
// "<file>:<line>: missing column 'a' (or 'b', 'c'); the header is ...".
int FindColumn(const CsvReader& csv, const std::vector<std::string_view>& names);
Status RequireColumn(const CsvReader& csv, const std::vector<std::string_view>& names, int* column);

// A double as the shortest text that reads back the same.
std::string Num(double v);
// "file:line" of the record `csv` is on: where an adjustment's example comes from.
inline std::string At(const CsvReader& csv) {
  return csv.name() + ":" + std::to_string(csv.line());
}
// Counts a row dropped under dropped_rows.<kind> (example: where and why); false, a row reader's
// "not kept".
inline bool DropRow(Adjustments* adj,
                    const std::string& at,
                    const char* kind,
                    const std::string& why) {
  adj->Count(std::string("dropped_rows.") + kind, at + ": " + why);
  return false;
}

// The steps every shape's rows go through (Row: a `SourceJob source`, a `double arrival_s` and
// an `Adjustments adjusted`).
//
// Keeps a row just read unless its job id repeats an earlier row's (then counted as dropped);
// the row's own adjustments wait in row.adjusted until the row is known to be written.
template <typename Row>
void KeepUnlessDuplicate(const CsvReader& csv,
                         Row row,
                         Adjustments row_adj,
                         std::unordered_map<std::string, int>* line_of_id,
                         std::vector<Row>* rows,
                         Adjustments* adj) {
  const auto [it, inserted] = line_of_id->emplace(row.source.source_id, csv.line());
  if (!inserted) {
    adj->Count(
        "dropped_rows.duplicate_id",
        At(csv) + ": job_id '" + row.source.source_id + "' of line " + std::to_string(it->second));
    return;
  }
  row.adjusted = std::move(row_adj);
  rows->push_back(std::move(row));
}

// Reads every row of `csv`: read_row(&row, &row_adj, &status) fills one and says whether to
// keep it; a dropped row's adjustments are counted at once, a kept row's when it is written
// (KeepUnlessDuplicate, OrderByArrival). An error if no row is left.
template <typename Row, typename ReadRowFn>
Status ReadRows(CsvReader& csv,
                const ConvertOptions& options,
                ReadRowFn read_row,
                std::vector<Row>* rows,
                ConvertReport* report) {
  Adjustments& adj = report->adjustments;
  std::unordered_map<std::string, int> line_of_id;
  Status status;
  while (csv.Next(&status)) {
    ++report->rows_read;
    Row row;
    Adjustments row_adj;
    const bool keep = read_row(&row, &row_adj, &status);
    if (!status.ok()) return status;
    if (!keep) {  // only why it was dropped: what reading it had adjusted is not written
      adj.Merge(row_adj, "dropped_rows.");
      continue;
    }
    KeepUnlessDuplicate(csv, std::move(row), std::move(row_adj), &line_of_id, rows, &adj);
  }
  if (!status.ok()) return status;
  if (rows->empty()) return InvalidArgument(options.input + ": no job left to write");
  return Status::Ok();
}

// Arrival order (each row found out of order counted), --max-jobs (the later arrivals counted
// as dropped), then the written rows' own adjustments into *adj.
template <typename Row>
void OrderByArrival(const ConvertOptions& options, std::vector<Row>* rows, Adjustments* adj) {
  double latest = 0;
  for (std::size_t i = 0; i < rows->size(); ++i) {
    const Row& r = (*rows)[i];
    if (i > 0 && r.arrival_s < latest)
      adj->Count("reordered_rows",
                 options.input + ":" + std::to_string(r.source.line) + ": arrival " +
                     Num(r.arrival_s) + " < an earlier row's " + Num(latest));
    latest = std::max(latest, r.arrival_s);
  }
  std::stable_sort(rows->begin(), rows->end(), [](const Row& a, const Row& b) {
    return a.arrival_s < b.arrival_s;
  });
  if (options.max_jobs > 0 && static_cast<int>(rows->size()) > options.max_jobs) {
    adj->Count("dropped_rows.over_max_jobs",
               "after the first " + std::to_string(options.max_jobs) + " arrivals",
               static_cast<int>(rows->size()) - options.max_jobs);
    rows->resize(options.max_jobs);
  }
  for (const Row& r : *rows) adj->Merge(r.adjusted);
}

// The first of `columns` (>= 0) whose field is empty in the current record, or -1.
int EmptyField(const CsvReader& csv, std::initializer_list<int> columns);

Status ConvertPhilly(const ConvertOptions& options, ConvertReport* report);
Status ConvertGpu(const ConvertOptions& options, ConvertReport* report);

}  // namespace dede::tools
