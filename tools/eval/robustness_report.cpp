// Tables and plots of the robustness study (see robustness.h).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>

#include "robustness.h"

namespace dede::eval {
namespace {

std::string Fmt(double v, const char* format) {
  if (std::isnan(v)) return "-";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, v);
  return buffer;
}

std::string AxisLabel(const std::string& study) {
  if (study == "granularity") return "mean edge betweenness (share of demands served by a link)";
  if (study == "temporal") return "temporal fluctuation c (noise variance / change variance)";
  if (study == "spatial") return "share of the volume in the top 10% of demands";
  if (study == "failures") return "failed links";
  return study;
}

}  // namespace

RobustnessReport::Study& RobustnessReport::StudyFor(const std::string& name) {
  for (Study& s : studies_) {
    if (s.name == name) return s;
  }
  studies_.push_back(Study{name, {}, {}, {}});
  return studies_.back();
}

void RobustnessReport::Add(const RobustnessRow& r) {
  Study& study = StudyFor(r.study);
  if (static_cast<int>(study.levels.size()) <= r.level_index) {
    study.levels.resize(r.level_index + 1);
    for (auto& row : study.cells) row.resize(study.levels.size());
  }
  study.levels[r.level_index] = {r.level, r.x};
  const std::string method = r.row.method + " (" + std::to_string(r.row.threads) + "t)";
  auto it = std::find(study.methods.begin(), study.methods.end(), method);
  if (it == study.methods.end()) {
    study.methods.push_back(method);
    study.cells.emplace_back(study.levels.size());
    it = study.methods.end() - 1;
  }
  Cell& cell = study.cells[it - study.methods.begin()][r.level_index];
  ++cell.rows;
  if (!std::isnan(r.row.quality)) {
    ++cell.with_quality;
    cell.quality_sum += r.row.quality;
    cell.quality_min = std::min(cell.quality_min, r.row.quality);
  }
  if (!std::isnan(r.row.value) && r.total_demand > 0) {
    ++cell.with_satisfied;
    cell.satisfied_sum += r.row.value / r.total_demand;
  }
  if (!std::isnan(r.row.seconds)) cell.seconds_sum += r.row.seconds;
}

std::string RobustnessReport::Markdown() const {
  std::ostringstream out;
  for (const Study& s : studies_) {
    out << "\n#### robustness: " << s.name
        << " (mean quality = total flow / exact optimum over the rounds; worst in brackets)\n\n"
        << "| method |";
    for (const Level& l : s.levels) {
      out << ' ' << l.label;
      if (s.name == "granularity") out << " (betweenness " << Fmt(l.x, "%.4f") << ")";
      out << " |";
    }
    out << " mean time (s) |\n|---|";
    for (std::size_t i = 0; i < s.levels.size(); ++i) out << "---|";
    out << "---|\n";
    for (std::size_t m = 0; m < s.methods.size(); ++m) {
      out << "| " << s.methods[m] << " |";
      double seconds = 0;
      int rows = 0;
      for (const Cell& c : s.cells[m]) {
        if (c.with_quality > 0) {
          out << ' ' << Fmt(c.quality_sum / c.with_quality, "%.4f") << " ("
              << Fmt(c.quality_min, "%.4f") << ") |";
        } else {
          out << " - |";
        }
        seconds += c.seconds_sum;
        rows += c.rows;
      }
      out << ' ' << Fmt(rows > 0 ? seconds / rows : NAN, "%.3f") << " |\n";
    }
    // The same rows as satisfied demand (total flow / total demand): what the paper's drops
    // under perturbation are measured in.
    out << "\nSatisfied demand (total flow / total demand, mean over the rounds):\n\n| method |";
    for (const Level& l : s.levels) out << ' ' << l.label << " |";
    out << "\n|---|";
    for (std::size_t i = 0; i < s.levels.size(); ++i) out << "---|";
    out << "\n";
    for (std::size_t m = 0; m < s.methods.size(); ++m) {
      out << "| " << s.methods[m] << " |";
      for (const Cell& c : s.cells[m]) {
        out << ' ' << (c.with_satisfied > 0 ? Fmt(c.satisfied_sum / c.with_satisfied, "%.4f") : "-")
            << " |";
      }
      out << "\n";
    }
  }
  return out.str();
}

std::vector<std::string> RobustnessReport::WritePlots(const std::string& dir_name,
                                                      bool run_gnuplot) const {
  namespace fs = std::filesystem;
  const fs::path dir(dir_name);
  std::vector<std::string> written;
  for (const Study& s : studies_) {
    const std::string base = "robustness_" + s.name;
    // Levels sorted by x (the granularity's betweenness is not monotone in the level order).
    std::vector<std::size_t> order(s.levels.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const double xa = s.levels[a].x, xb = s.levels[b].x;
      if (std::isnan(xa) || std::isnan(xb)) return !std::isnan(xa) && std::isnan(xb);
      return xa < xb;
    });
    const fs::path data = dir / (base + ".dat");
    {
      std::ofstream out(data);
      out << "# x level";
      for (const std::string& m : s.methods) out << " \"" << m << '"';
      out << "\n";
      for (std::size_t i : order) {
        if (std::isnan(s.levels[i].x)) continue;
        out << Fmt(s.levels[i].x, "%.8g") << " \"" << s.levels[i].label << '"';
        for (std::size_t m = 0; m < s.methods.size(); ++m) {
          const Cell& c = s.cells[m][i];
          out << ' ' << (c.with_quality > 0 ? Fmt(c.quality_sum / c.with_quality, "%.8g") : "?");
        }
        out << "\n";
      }
    }
    const fs::path script = dir / (base + ".gp");
    {
      std::ofstream gp(script);
      for (const char* terminal : {"pngcairo size 900,600", "svg size 900,600"}) {
        const bool png = std::string(terminal).rfind("png", 0) == 0;
        gp << "set terminal " << terminal << "\n"
           << "set output '" << (dir / (base + (png ? ".png" : ".svg"))).string() << "'\n"
           << "set title 'traffic engineering max total flow: robustness, " << s.name
           << "' noenhanced\n"
           << "set xlabel '" << AxisLabel(s.name) << "' noenhanced\n"
           << "set ylabel 'satisfied demand / exact optimum'\n"
           << "set datafile missing '?'\nset grid\nset key outside right noenhanced\n"
           << "set offsets graph 0.05, graph 0.05, graph 0.05, graph 0.05\n"
           << "plot ";
        for (std::size_t m = 0; m < s.methods.size(); ++m) {
          if (m == 0) {
            gp << '\'' << data.string() << '\'';
          } else {
            gp << "     ''";
          }
          gp << " using 1:" << (m + 3) << " with linespoints pt 7 lw 2 title '" << s.methods[m]
             << "'" << (m + 1 < s.methods.size() ? ", \\\n" : "\n");
        }
      }
    }
    written.push_back(script.string());
    if (run_gnuplot && !s.methods.empty()) {
      const std::string command = "gnuplot '" + script.string() + "' 2>&1";
      if (std::system(command.c_str()) != 0) {
        std::fprintf(stderr, "dede_eval: gnuplot failed on %s\n", script.string().c_str());
      } else {
        written.push_back((dir / (base + ".png")).string());
        written.push_back((dir / (base + ".svg")).string());
      }
    }
  }
  return written;
}

}  // namespace dede::eval
