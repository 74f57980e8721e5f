// `dede convert`: the report, the id map and the shapes' help (convert.h).
#include "convert.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace dede::tools {

void Adjustments::Declare(const std::string& kind) { entries_.try_emplace(kind); }

void Adjustments::Count(const std::string& kind, const std::string& example, int n) {
  Entry& e = entries_[kind];
  e.count += n;
  if (e.examples.size() < 3 && !example.empty()) e.examples.push_back(example);
}

void Adjustments::Merge(const Adjustments& other, std::string_view prefix) {
  for (const auto& [kind, e] : other.entries_) {
    if (!kind.starts_with(prefix)) continue;
    if (e.count == 0) Declare(kind);
    for (std::size_t i = 0; i < e.examples.size(); ++i)
      Count(kind, e.examples[i], i == 0 ? e.count : 0);
    if (e.examples.empty() && e.count > 0) Count(kind, "", e.count);
  }
}

int Adjustments::Get(const std::string& kind) const {
  auto it = entries_.find(kind);
  return it == entries_.end() ? 0 : it->second.count;
}

void ConvertReport::Print(std::ostream& out) const {
  out << "converted " << input << " (shape " << shape << ") for " << target << ": " << rows_read
      << " rows read, " << jobs_written << " jobs written\n";
  for (const std::string& f : outputs) out << "  wrote " << f << "\n";
  int total = 0;
  for (const auto& [kind, e] : adjustments.entries()) total += e.count;
  out << "adjustments (" << total << " in all):\n";
  for (const auto& [kind, e] : adjustments.entries()) {
    char line[160];
    std::snprintf(line, sizeof line, "  %-36s %8d", kind.c_str(), e.count);
    out << line;
    if (!e.examples.empty()) {
      out << "   e.g. " << e.examples[0];
      for (std::size_t i = 1; i < e.examples.size(); ++i) out << "; " << e.examples[i];
    }
    out << "\n";
  }
  for (const std::string& n : notes) out << n << "\n";
}

const std::vector<RecordClass>& RecordClasses() {
  static const std::vector<RecordClass> kClasses = {
      {"never_scheduled",
       false,
       "a job whose run time is the time it waited (deletion - creation)",
       "alibaba (pod_phase Pending or no scheduled_time), helios (no start_time)"},
      {"failed",
       true,
       "a job of its recorded run time (it held its GPUs that long)",
       "alibaba (pod_phase Failed), helios (state FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY)"},
      {"cancelled", true, "a job of its recorded run time", "helios (state CANCELLED)"},
      {"fractional_gpu",
       true,
       "a job of the next whole GPU count (rounded_gpus)",
       "alibaba (gpu_milli < 1000, plan_gpu), any shape with a non-integer GPU count"},
      {"no_end_time",
       false,
       "a job running until the latest time in the file (clipped.run_time_at_trace_end)",
       "alibaba (empty deletion_time: still running when the trace ends)"},
      {"running_at_end",
       true,
       "a job of the run time recorded until the trace's end (its true run time is longer)",
       "alibaba (pod_phase Running with the file's latest deletion_time)"},
      {"gpu_type_constraint",
       true,
       "a job that may run on any GPU type (ignored.gpu_type_constraint)",
       "alibaba (gpu_spec)"},
      {"slo", true, "a job without its deadline (ignored.slo)", "gavel (SLO > 0)"},
  };
  return kClasses;
}

bool Keeps(const ConvertOptions& options, const std::string& name) {
  const auto has = [&](const std::vector<std::string>& v) {
    return std::find(v.begin(), v.end(), name) != v.end();
  };
  if (has(options.keep)) return true;
  if (has(options.drop)) return false;
  for (const RecordClass& c : RecordClasses())
    if (name == c.name) return c.kept_by_default;
  return false;
}

Status CheckRecordClasses(const ConvertOptions& options) {
  std::string known;
  for (const RecordClass& c : RecordClasses())
    known += (known.empty() ? "" : ", ") + std::string(c.name);
  for (const auto* list : {&options.keep, &options.drop}) {
    const char* option = list == &options.keep ? "--keep" : "--drop";
    for (const std::string& name : *list) {
      const bool is_class = std::any_of(RecordClasses().begin(),
                                        RecordClasses().end(),
                                        [&](const RecordClass& c) { return name == c.name; });
      if (!is_class) {
        const bool always = name == "no_gpu" || name == "no_work" || name == "missing_field" ||
                            name == "duplicate_id";
        return InvalidArgument(
            std::string(option) + " " + name + ": " +
            (always ? "these records are always dropped (the simulators cannot run a job "
                      "without GPUs, work, a required field or its own id); the classes "
                      "a user decides on are: "
                    : "not a record class; the classes are: ") +
            known);
      }
      if (list == &options.keep &&
          std::find(options.drop.begin(), options.drop.end(), name) != options.drop.end())
        return InvalidArgument("--keep " + name + " and --drop " + name + ": choose one");
    }
  }
  return Status::Ok();
}

int EmptyField(const CsvReader& csv, std::initializer_list<int> columns) {
  for (int c : columns)
    if (c >= 0 && csv.Field(c).empty()) return c;
  return -1;
}

std::string ConvertReport::Json(const ConvertOptions& options) const {
  nlohmann::json j;
  j["format"] = "dede convert report";
  j["source"] = {{"shape", shape}, {"input", input}, {"version", source_version}};
  if (!work_model.empty()) j["work_model"] = work_model;
  nlohmann::json o = {{"time_origin", options.time_origin}, {"max_jobs", options.max_jobs}};
  if (shape == "philly" || shape == "gavel") {
    o["throughputs"] = options.throughputs;
    o["gpus_per_type"] = options.gpus_per_type;
    o["default_gpus_per_type"] = options.default_gpus_per_type;
    o["vc"] = options.vcs;
  } else {
    o["work_model"] = options.work_model;
    o["slowdowns"] = options.slowdowns;
    o["nodes"] = options.nodes;
  }
  nlohmann::json classes = nlohmann::json::object();
  for (const RecordClass& c : RecordClasses())
    classes[c.name] = Keeps(options, c.name) ? "keep" : "drop";
  o["record_classes"] = classes;
  j["options"] = o;
  j["shape"] = shape;
  j["input"] = input;
  j["target"] = target;
  j["rows_read"] = rows_read;
  j["jobs_written"] = jobs_written;
  j["outputs"] = outputs;
  nlohmann::json a = nlohmann::json::object();
  for (const auto& [kind, e] : adjustments.entries())
    a[kind] = {{"count", e.count}, {"examples", e.examples}};
  j["adjustments"] = a;
  // Ids and examples are the input's bytes: invalid UTF-8 is written as U+FFFD, not an error.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string Num(double v) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
  return ec == std::errc() ? std::string(buffer, end) : std::to_string(v);
}

Result<CsvReader> OpenInput(const std::string& path) {
  return CsvReader::Open(path, {.ignore_header_case = true, .ragged = true});
}

int FindColumn(const CsvReader& csv, const std::vector<std::string_view>& names) {
  for (std::string_view n : names) {
    if (int c = csv.Column(n); c >= 0) return c;
    for (char sep : {'-', ' '}) {
      std::string spelled(n);
      std::replace(spelled.begin(), spelled.end(), '_', sep);
      if (int c = csv.Column(spelled); c >= 0) return c;
    }
  }
  return -1;
}

Status RequireColumn(const CsvReader& csv,
                     const std::vector<std::string_view>& names,
                     int* column) {
  *column = FindColumn(csv, names);
  if (*column >= 0) return Status::Ok();
  std::string text = csv.name() + ":" + std::to_string(std::max(1, csv.header_line())) +
                     ": missing column '" + std::string(names.front()) + "'";
  if (names.size() > 1) {
    text += " (or";
    for (std::size_t i = 1; i < names.size(); ++i)
      text += std::string(i > 1 ? "," : "") + " '" + std::string(names[i]) + "'";
    text += ")";
  }
  text += "; the header is '";
  for (std::size_t i = 0; i < csv.header().size(); ++i) text += (i ? "," : "") + csv.header()[i];
  return InvalidArgument(text + "'");
}

Status WriteIdMap(const std::string& path,
                  const std::string& input,
                  const std::vector<SourceJob>& jobs,
                  bool with_vc,
                  Adjustments* adjustments) {
  std::ofstream out(path);
  if (!out) return InvalidArgument(path + ": cannot write the file");
  out << "job_id,source_job_id" << (with_vc ? ",vc" : "") << "\n";
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const SourceJob& j = jobs[i];
    const std::int64_t id_out = j.new_id >= 0 ? j.new_id : static_cast<std::int64_t>(i);
    std::int64_t v = -1;
    if (!ParseInteger(j.source_id, &v) || v != id_out) {
      adjustments->Count("mapped_ids",
                         input + ":" + std::to_string(j.line) + ": '" + j.source_id + "' -> " +
                             std::to_string(id_out));
    }
    // Quoted as CSV when needed: ids may hold commas or quotes.
    std::string id = j.source_id;
    if (id.find_first_of(",\"\r\n") != std::string::npos) {
      std::string q = "\"";
      for (char c : id) q += c == '"' ? std::string("\"\"") : std::string(1, c);
      id = q + "\"";
    }
    out << id_out << "," << id;
    if (with_vc) out << "," << j.vc;
    out << "\n";
  }
  out.close();
  if (!out) return InvalidArgument(path + ": write failed");
  return Status::Ok();
}

std::string ShapeHelp() {
  std::string text =
      R"(Shapes (column names: any letter case, any order, '-' or ' ' for '_'; the first spelling is the one written):
  philly    Philly/Gavel job list -> cluster_scheduling `source: trace`
            job_id (opt.), vc (opt.), arrival_s|arrival_time_s|arrival_time|submit_time,
            num_gpus|scale_factor|num_gpu|gpus, job_type, total_steps|num_steps|iterations,
            <gpu>_steps_per_s (opt., one column per GPU type), priority_weight|weight (opt.),
            duration_s|est_duration_v100_s (opt.); --throughputs job_type,num_gpus,gpu_type,steps_per_s
  gavel     Gavel's own .trace (tab-separated, no header; 10 fields: job_type, command,
            working_directory, num_steps_arg, needs_data_dir, total_steps, scale_factor,
            priority_weight, SLO, arrival_time; or the 9 without working_directory)
            -> cluster_scheduling `source: trace`; --throughputs (Gavel's table) is required
  dally     Dally/cluster-sim CSV, or cluster-sim's JSON job list (a .json file: an array of
            objects) -> gpu_placement `source: dally_csv`
            job_id, arrival_s|arrival_time|submit_time|start_time,
            num_gpus|num_gpu|gpu_num|max_parallelism, total_iterations|iterations,
            time_per_iteration_s|time_per_iteration, model (opt.),
            cross_slot_slowdown, cross_machine_slowdown, cross_rack_slowdown (opt.)
  tiresias  Tiresias job list -> gpu_placement `source: dally_csv`
            job_id, arrival_s|submit_time, num_gpu|num_gpus, iterations, duration_s|duration,
            model|model_name (opt.)
  helios    Helios (SenseTime) cluster_log -> gpu_placement `source: dally_csv`
            job_id, submit_time (seconds or 'YYYY-MM-DD HH:MM:SS' UTC), gpu_num|num_gpus,
            duration (s), state (opt.), start_time (opt.; empty: never scheduled)
  alibaba   Alibaba pod list (cluster-trace-gpu-v2020/v2023) -> gpu_placement `source: dally_csv`
            name|job_name|pod_name|job_id, creation_time|submit_time, deletion_time|end_time,
            scheduled_time|start_time (opt.), num_gpu (+ gpu_milli, per-GPU thousandths) or
            plan_gpu (percent of one GPU), gpu_spec|gpu_type (opt.), pod_phase|status (opt.)
  --nodes   node list -> cluster.yaml: node|node_id|machine|sn|name, num_gpu|num_gpus|gpu_num|gpus|gpu,
            rack|switch|rack_id (opt.), gpu_type|gpu_model|gpu_spec|model (opt.)
Record classes (--keep CLASS / --drop CLASS; default in brackets):
)";
  for (const RecordClass& c : RecordClasses()) {
    text += "  " + std::string(c.name) + " [" + (c.kept_by_default ? "keep" : "drop") +
            "]: " + c.found_in + "; kept as " + c.kept_as + "\n";
  }
  return text +
         "  always dropped: no_gpu, no_work, missing_field (a required field empty), "
         "duplicate_id\n";
}

Status Convert(const ConvertOptions& options, ConvertReport* report) {
  report->shape = options.shape;
  report->input = options.input;
  std::error_code ec;
  std::filesystem::create_directories(options.output_dir, ec);
  if (ec)
    return InvalidArgument(options.output_dir + ": cannot create the directory: " + ec.message());
  if (Status s = CheckRecordClasses(options); !s.ok()) return s;
  Status status = options.shape == "philly" || options.shape == "gavel"
                      ? ConvertPhilly(options, report)
                      : ConvertGpu(options, report);
  if (!status.ok()) return status;
  // The sidecar beside the converted trace (its source, options, counts and, for the gpu
  // shapes, the work model the plugin and dally_bench check), and --report's copy.
  std::vector<std::string> files = {report->main_output + ".meta.json"};
  if (!options.report_json.empty()) files.push_back(options.report_json);
  for (const std::string& path : files) {
    report->outputs.push_back(path);
    std::ofstream out(path);
    out << report->Json(options);
    out.close();
    if (!out) return InvalidArgument(path + ": cannot write the report");
  }
  return Status::Ok();
}

}  // namespace dede::tools
