// dede_eval: the evaluation harness, a thin driver over deployment files.
//
//   dede_eval deployments configs/te_b4.yaml configs/lb_small.yaml --rounds 3 --out eval-out
//       every method (exact, admm at each --threads count, the plugin's baselines) on the same
//       rounds of each deployment, through the product's own round path (deployments.h); --set
//       overlays vary settings, --sweep runs a setting's values, --budget-fraction gives every
//       method a fraction of the reference's time, --value picks a reported metric: results.csv
//       (one row per method, round, threads), summary.md and one plot per deployment.
//   dede_eval convergence --out eval-out
//       the residual and objective trace of one ADMM solve of a synthetic transport LP, with
//       the exact optimum for reference, as CSV and a plot.
//
// Exit status: 0 every requested method ran; 1 a method failed or no rows came (with --check:
// also when an ADMM or exact row is infeasible); 2 bad command line.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "dede/host_solvers.h"
#include "dede/solver.h"
#include "deployments.h"
#include "eval.h"
#include "synthetic.h"

namespace fs = std::filesystem;
using dede::eval::EvalRow;

namespace {

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string Number(double value, const char* format = "%.10g") {
  if (std::isnan(value)) return "";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

class CsvWriter {
 public:
  explicit CsvWriter(const fs::path& path) : out_(path) {
    out_ << "domain,objective,method,instance,round,threads,value,quality,reference,seconds,"
            "feasible,gap,note\n";
    out_.flush();
  }
  bool ok() const { return static_cast<bool>(out_); }
  void Write(const EvalRow& r) {
    out_ << CsvField(r.domain) << ',' << CsvField(r.objective) << ',' << CsvField(r.method) << ','
         << CsvField(r.instance) << ',' << r.round << ',' << r.threads << ',' << Number(r.value)
         << ',' << Number(r.quality) << ',' << CsvField(r.reference) << ','
         << Number(r.seconds, "%.6f") << ',' << (r.feasible ? 1 : 0) << ',' << Number(r.gap) << ','
         << CsvField(r.note) << '\n';
    out_.flush();  // an interrupted run keeps what it measured
  }

 private:
  std::ofstream out_;
};

// Per (domain, objective, method, threads): what the tables and plots show.
struct Aggregate {
  int rows = 0;
  int feasible = 0;
  int with_quality = 0;
  double quality_sum = 0;
  double quality_min = INFINITY;
  double value_sum = 0;
  int with_value = 0;
  double seconds_sum = 0;
  double seconds_max = 0;
  int with_gap = 0;
  double gap_max = 0;  // the largest certified gap of the rows that have one
  std::string reference;
};

using Key = std::tuple<std::string, std::string, std::string, int>;  // domain, obj, method, thr

void Accumulate(const EvalRow& r, std::map<Key, Aggregate>* table) {
  Aggregate& a = (*table)[{r.domain, r.objective, r.method, r.threads}];
  ++a.rows;
  a.feasible += r.feasible ? 1 : 0;
  if (!std::isnan(r.quality)) {
    ++a.with_quality;
    a.quality_sum += r.quality;
    a.quality_min = std::min(a.quality_min, r.quality);
  }
  if (!std::isnan(r.value)) {
    ++a.with_value;
    a.value_sum += r.value;
  }
  if (!std::isnan(r.seconds)) {
    a.seconds_sum += r.seconds;
    a.seconds_max = std::max(a.seconds_max, r.seconds);
  }
  if (!std::isnan(r.gap)) {
    ++a.with_gap;
    a.gap_max = std::max(a.gap_max, r.gap);
  }
  if (a.reference.empty()) a.reference = r.reference;
}

std::string SummaryMarkdown(const std::map<Key, Aggregate>& table) {
  std::ostringstream out;
  std::string current;
  for (const auto& [key, a] : table) {
    const auto& [domain, objective, method, threads] = key;
    const std::string heading = domain + " / " + objective;
    if (heading != current) {
      current = heading;
      out << "\n#### " << heading << "\n\n"
          << "| method | threads | rounds | mean value | mean quality | worst quality | "
             "mean time (s) | max time (s) | feasible | worst certified gap | quality vs |\n"
          << "|---|---|---|---|---|---|---|---|---|---|---|\n";
    }
    const double mean_quality = a.with_quality > 0 ? a.quality_sum / a.with_quality : NAN;
    out << "| " << method << " | " << threads << " | " << a.rows << " | "
        << (a.with_value > 0 ? Number(a.value_sum / a.with_value, "%.6g") : "-") << " | "
        << (a.with_quality > 0 ? Number(mean_quality, "%.6f") : "-") << " | "
        << (a.with_quality > 0 ? Number(a.quality_min, "%.6f") : "-") << " | "
        << Number(a.seconds_sum / std::max(1, a.rows), "%.4f") << " | "
        << Number(a.seconds_max, "%.4f") << " | " << a.feasible << "/" << a.rows << " | "
        << (a.with_gap == a.rows && a.rows > 0 ? Number(a.gap_max, "%.2e")
            : a.with_gap > 0
                ? Number(a.gap_max, "%.2e") + " (" + std::to_string(a.with_gap) + " rows)"
                : "none")
        << " | " << (a.reference.empty() ? "-" : a.reference) << " |\n";
  }
  return out.str();
}

bool HaveGnuplot() { return std::system("command -v gnuplot >/dev/null 2>&1") == 0; }

std::string Slug(std::string text) {
  for (char& c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return text;
}

// Quality against mean time, one point per method and thread count, as in the paper's
// quality-vs-time figures; without a reference, the mean value per method as bars (labelled
// `value_label`). Returns the files written.
std::vector<std::string> WritePlots(const std::map<Key, Aggregate>& table,
                                    const fs::path& dir,
                                    bool run_gnuplot,
                                    const std::string& value_label) {
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<std::string, Aggregate>>>
      groups;
  for (const auto& [key, a] : table) {
    const auto& [domain, objective, method, threads] = key;
    groups[{domain, objective}].push_back({method + " (" + std::to_string(threads) + "t)", a});
  }
  std::vector<std::string> written;
  for (const auto& [group, points] : groups) {
    const std::string base = Slug(group.first + "_" + group.second);
    bool use_quality = false, any_value = false;
    for (const auto& [label, a] : points) {
      use_quality = use_quality || a.with_quality > 0;
      any_value = any_value || a.with_value > 0;
    }
    if (!use_quality && !any_value) continue;  // only failed rows: nothing to plot
    const fs::path data = dir / (base + ".dat");
    {
      std::ofstream out(data);
      out << "# label mean_seconds " << (use_quality ? "mean_quality" : "mean_value") << "\n";
      for (const auto& [label, a] : points) {
        const double y = use_quality ? (a.with_quality > 0 ? a.quality_sum / a.with_quality : NAN)
                                     : (a.with_value > 0 ? a.value_sum / a.with_value : NAN);
        if (std::isnan(y)) continue;
        out << '"' << label << "\" " << Number(std::max(1e-6, a.seconds_sum / a.rows), "%.6g")
            << ' ' << Number(y, "%.8g") << "\n";
      }
    }
    const fs::path script = dir / (base + ".gp");
    {
      std::ofstream gp(script);
      const std::string title = group.first + ": " + group.second;
      const std::string ylabel = use_quality           ? "quality (1 = reference optimum)"
                                 : value_label.empty() ? "objective"
                                                       : value_label;
      for (const char* terminal : {"pngcairo size 900,600", "svg size 900,600"}) {
        const bool png = std::string(terminal).rfind("png", 0) == 0;
        gp << "set terminal " << terminal << "\n"
           << "set output '" << (dir / (base + (png ? ".png" : ".svg"))).string() << "'\n"
           << "set title '" << title << "' noenhanced\n"
           << "set ylabel '" << ylabel << "' noenhanced\n"
           << "set grid\nset key off\n";
        if (use_quality) {
          gp << "set xlabel 'mean solve time per round (s, log scale)'\n"
             << "set logscale x\nset offsets graph 0.1, graph 0.25, graph 0.1, graph 0.1\n"
             << "plot '" << data.string()
             << "' using 2:3:($0 + 1) with points pt 7 ps 1.5 lc variable, \\\n"
             << "     '' using 2:3:1 with labels offset 0,1 noenhanced\n";
        } else {
          gp << "set style fill solid 0.7\nset boxwidth 0.6\nset yrange [0:*]\n"
             << "set xtics rotate by -30 noenhanced\n"
             << "plot '" << data.string()
             << "' using 0:3:($0 + 1):xtic(1) with boxes lc variable\n";
        }
      }
    }
    written.push_back(script.string());
    if (run_gnuplot) {
      const std::string command = "gnuplot '" + script.string() + "' 2>&1";
      if (std::system(command.c_str()) != 0) {
        std::cerr << "dede_eval: gnuplot failed on " << script << "\n";
      } else {
        written.push_back((dir / (base + ".png")).string());
        written.push_back((dir / (base + ".svg")).string());
      }
    }
  }
  return written;
}

std::vector<int> ParseThreads(const std::string& text) {
  std::vector<int> threads;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item == "all") {
      threads.push_back(0);
      continue;
    }
    std::size_t used = 0;
    const int value = std::stoi(item, &used);
    if (used != item.size() || value < 0) throw std::invalid_argument(item);
    threads.push_back(value);
  }
  return threads;
}

// The output directory and its CSV file (nullptr, with the reason on stderr, if either fails).
std::unique_ptr<CsvWriter> OpenResults(const fs::path& out_dir, const std::string& name) {
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) {
    std::cerr << "dede_eval: cannot create " << out_dir << ": " << ec.message() << "\n";
    return nullptr;
  }
  auto csv = std::make_unique<CsvWriter>(out_dir / name);
  if (!csv->ok()) {
    std::cerr << "dede_eval: cannot write " << (out_dir / name) << "\n";
    return nullptr;
  }
  return csv;
}

// summary.md (the tables), the plots, and where they went.
void WriteOutputs(const std::map<Key, Aggregate>& table,
                  const fs::path& out_dir,
                  bool plots,
                  const std::string& command,
                  const std::string& value_label = "") {
  const std::string summary = SummaryMarkdown(table);
  {
    std::ofstream out(out_dir / "summary.md");
    out << "<!-- " << command << " -->\n" << summary;
  }
  std::cout << summary;
  if (plots) {
    const bool gnuplot = HaveGnuplot();
    if (!gnuplot) std::cerr << "dede_eval: gnuplot not found: writing .gp/.dat files only\n";
    for (const std::string& f : WritePlots(table, out_dir, gnuplot, value_label)) {
      std::cout << "wrote " << f << "\n";
    }
  }
  std::cout << "wrote " << (out_dir / "results.csv").string() << ", "
            << (out_dir / "summary.md").string() << "\n";
}

int DeploymentsCommand(const dede::eval::DeploymentSuite& suite,
                       const fs::path& out_dir,
                       bool plots,
                       bool check,
                       const std::string& command_line) {
  std::unique_ptr<CsvWriter> csv_file = OpenResults(out_dir, "results.csv");
  if (!csv_file) return 2;
  CsvWriter& csv = *csv_file;
  std::map<Key, Aggregate> table;
  int rows = 0;
  int bad = 0;
  const dede::Status status = dede::eval::RunDeployments(suite, [&](const EvalRow& r) {
    csv.Write(r);
    Accumulate(r, &table);
    ++rows;
    if (check && (r.method == "admm" || r.method == "exact") && !r.feasible) ++bad;
    std::cout << "  " << r.objective << "  " << r.method << " x" << r.threads << "  round "
              << r.round << "  value " << Number(r.value, "%.6g") << "  quality "
              << Number(r.quality, "%.6f") << "  gap " << Number(r.gap, "%.2e") << "  "
              << Number(r.seconds, "%.3f") << " s" << (r.feasible ? "" : "  INFEASIBLE") << "  ("
              << r.note << ")\n"
              << std::flush;
  });
  int exit_code = 0;
  if (!status.ok()) {
    std::cerr << "dede_eval: " << status.message() << "\n";
    exit_code = 1;
  }
  if (rows == 0) {
    std::cerr << "dede_eval: no rows\n";
    exit_code = 1;
  }
  if (bad > 0) {
    std::cerr << "dede_eval: " << bad << " ADMM/exact rows are infeasible\n";
    exit_code = 1;
  }
  WriteOutputs(table, out_dir, plots, command_line, suite.value_metric);
  return exit_code;
}

int ConvergenceCommand(const dede::tools::SyntheticSpec& spec,
                       int threads,
                       double rho,
                       const fs::path& out_dir,
                       bool plots) {
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  const auto problem = dede::tools::MakeTransportLp(spec);
  dede::ExactOptions exact_options;
  dede::Allocation exact;
  dede::SolveSummary exact_summary;
  dede::SolveExact(*problem, exact_options, &exact, &exact_summary);
  dede::AdmmOptions options;
  options.num_threads = threads;
  options.rho = rho;
  options.check_termination_every = 1;  // a trace point per iteration
  dede::AdmmSolver solver(*problem, options);
  dede::Allocation allocation;
  dede::SolveSummary summary;
  solver.Solve(&allocation, &summary);
  const fs::path csv = out_dir / "convergence.csv";
  {
    std::ofstream out(csv);
    out << "iteration,seconds,primal_residual,dual_residual,primal_tolerance,dual_tolerance,rho,"
           "objective,relative_gap\n";
    for (const dede::IterationSummary& t : summary.trace) {
      const double gap = std::abs(t.objective - exact_summary.objective) /
                         std::max(1.0, std::abs(exact_summary.objective));
      out << t.iteration << ',' << Number(t.seconds, "%.6f") << ',' << Number(t.primal_residual)
          << ',' << Number(t.dual_residual) << ',' << Number(t.primal_tolerance) << ','
          << Number(t.dual_tolerance) << ',' << Number(t.rho) << ',' << Number(t.objective) << ','
          << Number(gap) << '\n';
    }
  }
  std::printf(
      "transport LP %d x %d (%d entries): exact %.10g (%s, %.3f s); ADMM %.10g after "
      "%d iterations (%s, %.3f s)\nwrote %s\n",
      spec.resources,
      spec.demands,
      problem->num_variables(),
      exact_summary.objective,
      dede::TerminationName(exact_summary.termination),
      exact_summary.total_seconds,
      summary.objective,
      summary.iterations,
      dede::TerminationName(summary.termination),
      summary.total_seconds,
      csv.string().c_str());
  if (plots && HaveGnuplot()) {
    const fs::path script = out_dir / "convergence.gp";
    {
      std::ofstream gp(script);
      gp << "set terminal pngcairo size 900,900\nset output '"
         << (out_dir / "convergence.png").string() << "'\n"
         << "set datafile separator ','\nset multiplot layout 2,1\nset logscale y\nset grid\n"
         << "set title 'ADMM residuals (transport LP " << spec.resources << " x " << spec.demands
         << ")'\nset xlabel 'iteration'\n"
         << "plot '" << csv.string() << "' every ::1 using 1:3 with lines title 'primal', \\\n"
         << "     '' every ::1 using 1:4 with lines title 'dual', \\\n"
         << "     '' every ::1 using 1:5 with lines dt 2 title 'primal tol', \\\n"
         << "     '' every ::1 using 1:6 with lines dt 2 title 'dual tol'\n"
         << "set title 'relative objective gap to the exact optimum'\n"
         << "plot '' every ::1 using 1:9 with lines title 'gap'\n"
         << "unset multiplot\n";
    }
    const std::string command = "gnuplot '" + script.string() + "'";
    if (std::system(command.c_str()) == 0) {
      std::printf("wrote %s\n", (out_dir / "convergence.png").string().c_str());
    } else {
      std::fprintf(stderr, "dede_eval: gnuplot failed on %s\n", script.string().c_str());
    }
  }
  return summary.IsSolutionUsable() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"dede_eval: DeDe against exact, POP-k and the domain heuristics, side by side"};
  app.require_subcommand(1);

  dede::tools::SyntheticSpec spec;
  spec.resources = 100;
  spec.demands = 1000;
  spec.entries_per_demand = 20;
  int conv_threads = 0;
  double rho = 1.0;
  std::string conv_out = "eval-out";
  auto* conv = app.add_subcommand("convergence", "residual and objective trace of one ADMM solve");
  conv->add_option("--resources", spec.resources)->capture_default_str();
  conv->add_option("--demands", spec.demands)->capture_default_str();
  conv->add_option("--entries-per-demand", spec.entries_per_demand)->capture_default_str();
  conv->add_option("--seed", spec.seed)->capture_default_str();
  conv->add_option("--threads", conv_threads, "0: all")->capture_default_str();
  conv->add_option("--rho", rho)->check(CLI::PositiveNumber)->capture_default_str();
  conv->add_option("--out", conv_out)->capture_default_str();
  bool conv_no_plots = false;
  conv->add_flag("--no-plots", conv_no_plots);

  dede::eval::DeploymentSuite suite;
  std::string dep_threads_text = "1,all";
  std::string dep_out = "eval-out";
  bool dep_no_plots = false;
  bool dep_check = false;
  auto* dep = app.add_subcommand(
      "deployments",
      "every method on the rounds of deployment files, through the product's round path");
  dep->add_option("configs", suite.configs, "deployment YAML files")
      ->required()
      ->check(CLI::ExistingFile);
  dep->add_option("--set",
                  suite.overlays,
                  "override a key of every deployment (YAML value), e.g. "
                  "solver.admm.time_limit_seconds=10; repeatable");
  dep->add_option("--methods",
                  suite.methods,
                  "admm, exact, or the plugin's methods (plugin:NAME for one called exact or "
                  "admm), comma-separated (default: exact, admm and every plugin method)")
      ->delimiter(',');
  dep->add_option("--threads",
                  dep_threads_text,
                  "ADMM thread counts, comma-separated; all = every "
                  "hardware thread")
      ->capture_default_str();
  dep->add_option("--rounds", suite.rounds, "rounds per deployment and method (0: until finished)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  dep->add_option("--sweep",
                  suite.sweeps,
                  "KEY=V1,V2,...: run every deployment once per value (several: every "
                  "combination), e.g. plugin.settings.scale=1,2,4; repeatable");
  dep->add_option("--budget-fraction",
                  suite.budget_fraction,
                  "give every method but the reference an ADMM time limit of this fraction of "
                  "the reference's median round time, measured in the same run")
      ->check(CLI::Range(0.0, 1e6));
  dep->add_flag("--last-round-only",
                suite.last_round_only,
                "a row for each run's final round only (a simulation's end-of-run figures)");
  dep->add_option("--value",
                  suite.value_metric,
                  "a metric of the plugin's report as each row's value (default: the objective)");
  dep->add_option("--reference", suite.reference, "the method quality is relative to (empty: none)")
      ->capture_default_str();
  dep->add_option("--out", dep_out, "output directory")->capture_default_str();
  dep->add_flag("--no-plots", dep_no_plots, "skip gnuplot");
  dep->add_flag("--check", dep_check, "also fail if an ADMM or exact row is infeasible");

  try {
    app.parse(argc, argv);
    if (dep->parsed()) suite.threads = ParseThreads(dep_threads_text);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const std::exception&) {
    std::cerr << "dede_eval: --threads " << dep_threads_text
              << ": expected comma-separated counts >= 0 or 'all'\n";
    return 2;
  }
  if (dep->parsed()) {
    std::string command = "dede_eval";
    for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
    return DeploymentsCommand(suite, dep_out, !dep_no_plots, dep_check, command);
  }
  return ConvergenceCommand(spec, conv_threads, rho, conv_out, !conv_no_plots);
}
