// Trace readers of the gpu_placement simulator (gpu_sim.h): Dally's online-comparison CSV and
// Tiresias-style job lists. Every field is checked; errors name file:line and the column.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_sim.h"

namespace dede::gpu {

namespace {
std::vector<std::string> SplitCsv(const std::string& line) {
  std::vector<std::string> f;
  std::string cur;
  for (char c : line) {
    if (c == ',')
      f.push_back(cur), cur.clear();
    else if (c != '\r')
      cur += c;
  }
  f.push_back(cur);
  return f;
}

// Opens a trace CSV and reads its header (a UTF-8 byte-order mark and a trailing CR are
// skipped) into column positions by name. False with *error when the file cannot be opened or
// a required column is missing.
bool OpenTrace(const std::string& path,
               std::initializer_list<const char*> required,
               std::ifstream* in,
               std::map<std::string, size_t>* col,
               std::string* error) {
  in->open(path);
  if (!*in) {
    if (error) *error = "cannot open " + path;
    return false;
  }
  std::string line;
  std::getline(*in, line);
  if (line.size() >= 3 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const auto header = SplitCsv(line);
  for (size_t i = 0; i < header.size(); ++i) (*col)[header[i]] = i;
  for (const char* need : required) {
    if (!col->count(need)) {
      if (error) *error = path + ": missing column " + need;
      return false;
    }
  }
  return true;
}
}  // namespace

namespace {

// A finite number in [lo, hi], or an integer when `integer`: else *error names file:line and
// the column. Returns false on error.
bool ParseField(const std::string& text,
                const std::string& where,
                const char* column,
                double lo,
                double hi,
                bool integer,
                double* out,
                std::string* error) {
  const std::string trimmed = [&] {
    std::string t = text;
    while (!t.empty() && (t.back() == '\r' || t.back() == ' ')) t.pop_back();
    return t;
  }();
  char* end = nullptr;
  errno = 0;
  const double v = trimmed.empty() ? 0.0 : std::strtod(trimmed.c_str(), &end);
  const bool ok = !trimmed.empty() && end == trimmed.c_str() + trimmed.size() && errno != ERANGE &&
                  std::isfinite(v) && v >= lo && v <= hi && (!integer || v == std::floor(v));
  if (!ok) {
    if (error) {
      std::ostringstream bounds;
      bounds << (integer ? "an integer" : "a number") << " in [" << lo << ", " << hi << "]";
      *error = where + ": column " + column + " = '" + trimmed + "': expected " + bounds.str();
    }
    return false;
  }
  *out = v;
  return true;
}

}  // namespace

std::vector<JobSpec> LoadDallyCsv(const std::string& path, std::string* error) {
  std::ifstream in;
  std::map<std::string, size_t> col;
  if (!OpenTrace(path,
                 {"job_id", "arrival_s", "num_gpus", "total_iterations", "time_per_iteration_s"},
                 &in,
                 &col,
                 error))
    return {};
  std::string line;
  const bool has_slowdowns = col.count("cross_slot_slowdown") &&
                             col.count("cross_machine_slowdown") &&
                             col.count("cross_rack_slowdown");
  const auto table = TableIOverheads();
  std::vector<JobSpec> jobs;
  int line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::string where = path + ":" + std::to_string(line_no);
    const auto f = SplitCsv(line);
    auto get = [&](const char* name) -> std::string {
      auto it = col.find(name);
      return it != col.end() && it->second < f.size() ? f[it->second] : std::string();
    };
    JobSpec s;
    double id = 0, gpus = 0;
    if (!ParseField(get("job_id"), where, "job_id", 0, 2147483647, true, &id, error) ||
        !ParseField(get("arrival_s"), where, "arrival_s", 0, 1e15, false, &s.arrival_s, error) ||
        !ParseField(get("num_gpus"), where, "num_gpus", 1, 1e6, true, &gpus, error) ||
        !ParseField(get("total_iterations"),
                    where,
                    "total_iterations",
                    0,
                    1e18,
                    false,
                    &s.iterations,
                    error) ||
        !ParseField(get("time_per_iteration_s"),
                    where,
                    "time_per_iteration_s",
                    0,
                    1e9,
                    false,
                    &s.time_per_iteration_s,
                    error)) {
      return {};
    }
    s.id = static_cast<int>(id);
    s.gpus = static_cast<int>(gpus);
    s.model = get("model");
    auto it = table.find(s.model);
    if (it != table.end()) {
      s.overhead = it->second;
    } else if (has_slowdowns) {
      // Slowdown factors in (0, 1] (1: no slowdown); the overhead is 1 / factor - 1.
      double factors[3] = {1, 1, 1};
      const char* names[3] = {
          "cross_slot_slowdown", "cross_machine_slowdown", "cross_rack_slowdown"};
      for (int k = 0; k < 3; ++k) {
        if (!ParseField(get(names[k]), where, names[k], 1e-9, 1, false, &factors[k], error))
          return {};
      }
      s.overhead = {1 / factors[0] - 1, 1 / factors[1] - 1, 1 / factors[2] - 1};
    } else {
      if (error) {
        *error = where + ": model '" + s.model +
                 "' is not in Table I and the file has no "
                 "cross_slot_slowdown, cross_machine_slowdown and cross_rack_slowdown columns: its "
                 "communication overhead is unknown (give the columns, or a model of Table I)";
      }
      return {};
    }
    jobs.push_back(s);
  }
  return jobs;
}

std::vector<JobSpec> LoadTiresiasCsv(const std::string& path,
                                     WorkModel work_model,
                                     std::string* error) {
  std::ifstream in;
  std::map<std::string, size_t> col;
  if (!OpenTrace(path,
                 {"job_id", "arrival_s", "num_gpu", "model", "iterations", "duration_s"},
                 &in,
                 &col,
                 error))
    return {};
  std::string line;
  std::vector<JobSpec> jobs;
  int line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::string where = path + ":" + std::to_string(line_no);
    const auto f = SplitCsv(line);
    auto get = [&](const char* name) -> std::string {
      const size_t i = col[name];
      return i < f.size() ? f[i] : std::string();
    };
    JobSpec s;
    double id = 0, gpus = 0, duration = 0;
    if (!ParseField(get("job_id"), where, "job_id", 0, 2147483647, true, &id, error) ||
        !ParseField(get("arrival_s"), where, "arrival_s", 0, 1e15, false, &s.arrival_s, error) ||
        !ParseField(get("num_gpu"), where, "num_gpu", 1, 1e6, true, &gpus, error) ||
        !ParseField(get("iterations"), where, "iterations", 0, 1e18, false, &s.iterations, error) ||
        !ParseField(get("duration_s"), where, "duration_s", 0, 1e15, false, &duration, error)) {
      return {};
    }
    s.id = static_cast<int>(id);
    s.gpus = static_cast<int>(gpus);
    s.time_per_iteration_s =
        s.iterations > 0
            ? duration / s.iterations * (work_model == WorkModel::kArtistLinear ? s.gpus : 1)
            : 0;
    s.model = get("model");
    jobs.push_back(s);
  }
  return jobs;
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
