// One log (dede/log.h, core/logging.h): the engine, the exact solver and the MPI layer write
// their lines to the process log with a level, in the runtime log's format; a host's writer
// gets them, and nothing is built below its threshold.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/logging.h"
#include "dede/host_solvers.h"
#include "framework/admm/test_problems.h"
#include "mpi/world.h"
#include "runtime/log.h"

namespace dede::internal {
namespace {

// A host's writer that keeps every line with its level.
class RecordingWriter final : public LogWriter {
 public:
  explicit RecordingWriter(LogLevel threshold) : threshold_(threshold) {}
  bool Enabled(LogLevel level) const override {
    ++asked_;
    return level != LogLevel::kOff && level >= threshold_;
  }
  void Write(LogLevel level, std::string_view message) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    lines_.emplace_back(level, std::string(message));
  }
  std::vector<std::pair<LogLevel, std::string>> Lines() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return lines_;
  }
  // The lines that start with `prefix`; each must have `level`.
  std::vector<std::string> Starting(std::string_view prefix, LogLevel level) const {
    std::vector<std::string> found;
    for (const auto& [line_level, text] : Lines()) {
      if (text.rfind(prefix, 0) != 0) continue;
      EXPECT_EQ(line_level, level) << text;
      found.push_back(text);
    }
    return found;
  }
  int asked() const { return asked_; }

 private:
  const LogLevel threshold_;
  mutable std::atomic<int> asked_{0};
  mutable std::mutex mutex_;
  std::vector<std::pair<LogLevel, std::string>> lines_;
};

struct Solved {
  Allocation allocation;
  SolveSummary summary;
};

Solved SolveAdmm(const Problem& problem) {
  AdmmOptions options;
  options.num_threads = 1;
  AdmmSolver solver(problem, options);
  Solved solved;
  solver.Solve(&solved.allocation, &solved.summary);
  return solved;
}

TEST(ProcessLog, TheEngineWritesItsResidualTraceAsDebugLinesToTheInstalledWriter) {
  RecordingWriter writer(LogLevel::kDebug);
  const ScopedLogWriter scope(&writer);
  const Problem problem = testing::MaxMinProblem();
  const Solved solved = SolveAdmm(problem);
  ASSERT_TRUE(solved.summary.IsSolutionUsable()) << solved.summary.message;
  // One line per termination check, at debug, with the check's figures.
  const std::vector<std::string> trace = writer.Starting("admm ", LogLevel::kDebug);
  std::vector<std::string> checks;
  for (const std::string& line : trace) {
    if (line.find("r_prim") != std::string::npos) checks.push_back(line);
  }
  ASSERT_EQ(checks.size(), solved.summary.trace.size());
  ASSERT_FALSE(checks.empty());
  const IterationSummary& last = solved.summary.trace.back();
  const std::regex figures(R"(^admm +(\d+) +[0-9.]+ s  r_prim ([0-9.e+-]+) \(tol [0-9.e+-]+\)  )"
                           R"(r_dual [0-9.e+-]+ \(tol [0-9.e+-]+\)  rho \S+  obj \S+$)");
  std::smatch m;
  ASSERT_TRUE(std::regex_match(checks.back(), m, figures)) << checks.back();
  EXPECT_EQ(std::stoi(m[1]), last.iteration);
  EXPECT_NEAR(std::stod(m[2]), last.primal_residual, 1e-3 * last.primal_residual + 1e-300);
  EXPECT_EQ(writer.Starting("admm cold start ", LogLevel::kDebug).size(), 1u);
  EXPECT_EQ(writer.Starting("admm finish: ", LogLevel::kDebug).size(), 1u);
  // Nothing else: the solve had no warning to give.
  for (const auto& [level, text] : writer.Lines()) EXPECT_EQ(level, LogLevel::kDebug) << text;
}

TEST(ProcessLog, BelowTheThresholdTheEngineAsksButWritesNothing) {
  RecordingWriter writer(LogLevel::kInfo);
  const ScopedLogWriter scope(&writer);
  const Solved solved = SolveAdmm(testing::MaxMinProblem());
  ASSERT_TRUE(solved.summary.IsSolutionUsable()) << solved.summary.message;
  EXPECT_TRUE(writer.Lines().empty()) << writer.Lines().front().second;
  // It asked (once per check at least): the lines were skipped, not never reached.
  EXPECT_GE(writer.asked(), static_cast<int>(solved.summary.trace.size()));
}

TEST(ProcessLog, TheExactSolverWritesEachRoundAsADebugLine) {
  RecordingWriter writer(LogLevel::kTrace);
  const ScopedLogWriter scope(&writer);
  const Problem problem = testing::MaxMinProblem();
  Allocation allocation;
  SolveSummary summary;
  ::testing::internal::CaptureStdout();
  SolveExact(problem, ExactOptions(), &allocation, &summary);
  // Clp's own messages are log lines too: nothing printed past the log.
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
  ASSERT_EQ(summary.termination, Termination::kConverged) << summary.message;
  const std::vector<std::string> clp = writer.Starting("exact: Clp", LogLevel::kDebug);
  ASSERT_FALSE(clp.empty());
  EXPECT_NE(clp.back().find("Optimal"), std::string::npos) << clp.back();
  const std::vector<std::string> rounds = writer.Starting("exact round ", LogLevel::kDebug);
  ASSERT_FALSE(rounds.empty());
  EXPECT_TRUE(std::regex_match(
      rounds.front(),
      std::regex(R"(exact round 1: \d+ rows, \d+ cuts, \d+ iterations, objective \S+, \S+ s)")))
      << rounds.front();
}

TEST(ProcessLog, CbcsMessagesAreDebugLinesToo) {
  // Two integer entries of one resource of capacity 3.5, both worth 1: the optimum is 3.
  Problem p(1, 2);
  const int x = p.AddAllocation("x", Domain::Integer(0, 10));
  const std::vector<VarId> v = p.AddDenseEntries(x);
  p.AddLinearCost(v[0], 1);
  p.AddLinearCost(v[1], 1);
  p.AddResourceConstraint(0, LinearExpr().Add(v[0], 1).Add(v[1], 1), Sense::kLessEqual, 3.5);
  p.SetObjectiveSense(ObjectiveSense::kMaximize);
  RecordingWriter writer(LogLevel::kDebug);
  const ScopedLogWriter scope(&writer);
  Allocation allocation;
  SolveSummary summary;
  ::testing::internal::CaptureStdout();
  SolveExact(p, ExactOptions(), &allocation, &summary);
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
  ASSERT_EQ(summary.method, "cbc");
  EXPECT_NEAR(summary.objective, 3.0, 1e-9);
  EXPECT_FALSE(writer.Starting("exact: Cbc", LogLevel::kDebug).empty());
}

TEST(ProcessLog, AScopeRestoresTheWriterBeforeIt) {
  RecordingWriter outer(LogLevel::kTrace);
  RecordingWriter inner(LogLevel::kTrace);
  {
    const ScopedLogWriter outer_scope(&outer);
    {
      const ScopedLogWriter inner_scope(&inner);
      LogWarn("to the inner writer: {}", 1);
    }
    LogWarn("to the outer writer: {}", 2);
    EXPECT_EQ(&ProcessLog(), &outer);
  }
  ASSERT_EQ(inner.Lines().size(), 1u);
  EXPECT_EQ(inner.Lines()[0],
            std::make_pair(LogLevel::kWarn, std::string("to the inner writer: 1")));
  ASSERT_EQ(outer.Lines().size(), 1u);
  EXPECT_EQ(outer.Lines()[0],
            std::make_pair(LogLevel::kWarn, std::string("to the outer writer: 2")));
}

TEST(ProcessLog, TheBuiltInLineIsTheRuntimeLogsFormat) {
  // 2026-11-26T19:40:01.123Z in milliseconds since the epoch.
  const std::chrono::system_clock::time_point when{std::chrono::milliseconds(1795722001123)};
  EXPECT_EQ(FormatLogLine(LogLevel::kWarn, when, "link 3->7 down"),
            "2026-11-26T19:40:01.123Z warn  link 3->7 down\n");
  EXPECT_EQ(FormatLogLine(LogLevel::kInfo, when, "x"), "2026-11-26T19:40:01.123Z info  x\n");
  EXPECT_EQ(FormatLogLine(LogLevel::kError, when, "x"), "2026-11-26T19:40:01.123Z error x\n");
  // The runtime's logger (spdlog) writes the same shape.
  std::ostringstream out;
  Logger::ToStream(&out).Warn("link 3->7 down");
  EXPECT_TRUE(std::regex_match(out.str(),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z warn  )"
                                          R"(link 3->7 down\n)")))
      << out.str();
}

TEST(ProcessLog, TheBuiltInWriterSendsWarningsToStandardErrorLineByLine) {
  const ScopedLogWriter built_in(nullptr);  // whatever an earlier test installed
  ::testing::internal::CaptureStderr();
  ::testing::internal::CaptureStdout();
  WriteLog(LogLevel::kWarn, "first\n\nsecond");
  WriteLog(LogLevel::kInfo, "to standard output");
  WriteLog(LogLevel::kDebug, "below the built-in threshold");
  const std::string out = ::testing::internal::GetCapturedStdout();
  const std::string err = ::testing::internal::GetCapturedStderr();
  const std::string stamp = R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z )";
  EXPECT_TRUE(std::regex_match(err, std::regex(stamp + "warn  first\n" + stamp + "warn  second\n")))
      << err;
  EXPECT_TRUE(std::regex_match(out, std::regex(stamp + "info  to standard output\n"))) << out;
}

TEST(ProcessLog, TheRuntimeLoggerBecomesTheProcessLogAtSetUp) {
  SetUpProcessLog(LogLevel::kDebug);
  EXPECT_NE(dynamic_cast<const Logger*>(&ProcessLog()), nullptr);
  EXPECT_TRUE(LogEnabled(LogLevel::kDebug));
  SetUpProcessLog(LogLevel::kWarn);
  EXPECT_FALSE(LogEnabled(LogLevel::kInfo));
  EXPECT_TRUE(LogEnabled(LogLevel::kWarn));
  SetUpProcessLog(LogLevel::kInfo);
}

TEST(ProcessLogDeathTest, TheMpiLayerEndsOnABadTimeoutWithAnErrorLine) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("DEDE_MPI_TIMEOUT_SECONDS", "soon", 1);
        mpi::ExchangeTimeoutSeconds();
      },
      ::testing::ExitedWithCode(2),
      // (POSIX extended regular expressions: no \d.)
      R"([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z error )"
      R"(environment variable DEDE_MPI_TIMEOUT_SECONDS = 'soon': expected seconds > 0)");
}

}  // namespace
}  // namespace dede::internal
