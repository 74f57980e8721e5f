// `dede convert`: the report, the id map and the shapes' help (convert.h).
#include "convert.h"

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

void Adjustments::Merge(const Adjustments& other) {
  for (const auto& [kind, e] : other.entries_) {
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

std::string ConvertReport::Json() const {
  nlohmann::json j;
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
  return j.dump(2) + "\n";
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
  for (std::string_view n : names)
    if (int c = csv.Column(n); c >= 0) return c;
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
  return R"(Shapes (column names: any letter case, any order; the first spelling is the one written):
  philly    Philly/Gavel job list -> cluster_scheduling `source: trace`
            job_id (opt.), vc (opt.), arrival_s|arrival_time_s|arrival_time|submit_time,
            num_gpus|scale_factor|num_gpu|gpus, job_type, total_steps|num_steps|iterations,
            <gpu>_steps_per_s (opt., one column per GPU type), priority_weight|weight (opt.),
            duration_s|est_duration_v100_s (opt.); --throughputs job_type,num_gpus,gpu_type,steps_per_s
  dally     Dally/cluster-sim CSV -> gpu_placement `source: dally_csv`
            job_id, arrival_s|arrival_time|submit_time, num_gpus|num_gpu|gpu_num,
            total_iterations|iterations, time_per_iteration_s, model (opt.),
            cross_slot_slowdown, cross_machine_slowdown, cross_rack_slowdown (opt.)
  tiresias  Tiresias job list -> gpu_placement `source: dally_csv`
            job_id, arrival_s|submit_time, num_gpu|num_gpus, iterations, duration_s|duration,
            model|model_name (opt.)
  helios    Helios (SenseTime) cluster_log -> gpu_placement `source: dally_csv`
            job_id, submit_time (seconds or 'YYYY-MM-DD HH:MM:SS' UTC), gpu_num|num_gpus,
            duration (s), state (opt.)
  alibaba   Alibaba pod list (cluster-trace-gpu-v2020/v2023) -> gpu_placement `source: dally_csv`
            name|job_name|pod_name|job_id, creation_time|submit_time, deletion_time|end_time,
            scheduled_time|start_time (opt.), num_gpu (+ gpu_milli, per-GPU thousandths) or
            plan_gpu (percent of one GPU), gpu_spec|gpu_type (opt.), pod_phase|status (opt.)
)";
}

Status Convert(const ConvertOptions& options, ConvertReport* report) {
  report->shape = options.shape;
  report->input = options.input;
  std::error_code ec;
  std::filesystem::create_directories(options.output_dir, ec);
  if (ec)
    return InvalidArgument(options.output_dir + ": cannot create the directory: " + ec.message());
  Status status =
      options.shape == "philly" ? ConvertPhilly(options, report) : ConvertGpu(options, report);
  if (!status.ok()) return status;
  if (!options.report_json.empty()) {
    std::ofstream out(options.report_json);
    out << report->Json();
    out.close();
    if (!out) return InvalidArgument(options.report_json + ": cannot write the report");
    report->outputs.push_back(options.report_json);
  }
  return Status::Ok();
}

}  // namespace dede::tools
