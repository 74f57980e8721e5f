#include "exact/mps_reader.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "dede/host_solvers.h"
#include "dede/problem.h"
#include "dede/solver.h"

namespace dede::internal {
namespace {

// A file in the test temp dir that is removed again at the end of the test.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& text) : path_(::testing::TempDir() + name) {
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Every MPS feature the reader maps: L/G/E rows, a ranged row, an extra free N row, an RHS on
// the objective row, integer markers and UP/MI/FR bounds.
constexpr const char* kFeatureMps = R"(NAME          FEATURES
ROWS
 N  COST
 L  LIM1
 G  LIM2
 E  MYEQN
 N  FREEROW
 L  RNG
COLUMNS
    X1        COST         1.0         LIM1         1.0
    X1        LIM2         1.0         FREEROW      1.0
    MARKER    'MARKER'                 'INTORG'
    X2        COST         2.0         LIM1         1.0
    X2        MYEQN        -1.0        RNG          1.0
    MARKER    'MARKER'                 'INTEND'
    X3        COST         -1.0        MYEQN        1.0
    X3        RNG          1.0
RHS
    RHS       COST         -5.0
    RHS       LIM1         4.0         LIM2         1.0
    RHS       MYEQN        7.0         RNG          6.0
RANGES
    RNG       RNG          2.0
BOUNDS
 UP BND       X1           4.0
 MI BND       X2
 UP BND       X2           1.0
 FR BND       X3
ENDATA
)";

const Constraint* FindConstraint(const Problem& problem, const std::string& name) {
  for (ConstraintId c = 0; c < problem.num_constraints(); ++c)
    if (problem.constraint_name(c) == name) return &problem.constraint(c);
  return nullptr;
}

TEST(ReadMps, MapsRowsColumnsBoundsAndObjectiveConstant) {
  const TempFile file("dede_features.mps", kFeatureMps);
  const std::string& path = file.path();
  Problem problem(1, 1);
  std::string error;
  ASSERT_TRUE(ReadMps(path, &problem, &error)) << error;

  EXPECT_EQ(problem.num_resources(), 1);
  EXPECT_EQ(problem.objective_sense(), ObjectiveSense::kMinimize);
  ASSERT_EQ(problem.num_variables(), 3);
  const Variable& x1 = problem.variable(0);
  const Variable& x2 = problem.variable(1);
  const Variable& x3 = problem.variable(2);
  EXPECT_EQ(problem.variable_name(0), "X1");
  EXPECT_EQ(problem.variable_name(1), "X2");
  EXPECT_FALSE(x1.IsEntry());
  EXPECT_EQ(x1.owner, BlockId::Resource(0));
  EXPECT_EQ(x1.domain.lower, 0.0);
  EXPECT_EQ(x1.domain.upper, 4.0);
  EXPECT_EQ(x1.linear_cost, 1.0);
  EXPECT_EQ(x2.domain.type, VarType::kInteger);
  EXPECT_EQ(x2.domain.lower, -kInfinity);
  EXPECT_EQ(x2.domain.upper, 1.0);
  EXPECT_EQ(x3.domain.type, VarType::kContinuous);
  EXPECT_EQ(x3.domain.lower, -kInfinity);
  EXPECT_EQ(x3.domain.upper, kInfinity);
  EXPECT_EQ(x3.linear_cost, -1.0);
  EXPECT_DOUBLE_EQ(problem.objective_constant(), 5.0);  // minus the objective row's RHS

  // LIM1, LIM2, MYEQN and the two halves of the ranged row; the free row is gone.
  ASSERT_EQ(problem.num_constraints(), 5);
  EXPECT_EQ(FindConstraint(problem, "FREEROW"), nullptr);
  const Constraint* lim1 = FindConstraint(problem, "LIM1");
  ASSERT_NE(lim1, nullptr);
  EXPECT_EQ(lim1->sense, Sense::kLessEqual);
  EXPECT_EQ(lim1->rhs, 4.0);
  EXPECT_EQ(lim1->block, BlockId::Resource(0));
  const Constraint* lim2 = FindConstraint(problem, "LIM2");
  ASSERT_NE(lim2, nullptr);
  EXPECT_EQ(lim2->sense, Sense::kGreaterEqual);
  const Constraint* eqn = FindConstraint(problem, "MYEQN");
  ASSERT_NE(eqn, nullptr);
  EXPECT_EQ(eqn->sense, Sense::kEqual);
  EXPECT_EQ(eqn->rhs, 7.0);
  // An L row with range R covers [rhs - |R|, rhs].
  const Constraint* lo = FindConstraint(problem, "RNG.lo");
  const Constraint* up = FindConstraint(problem, "RNG.up");
  ASSERT_NE(lo, nullptr);
  ASSERT_NE(up, nullptr);
  EXPECT_EQ(lo->sense, Sense::kGreaterEqual);
  EXPECT_EQ(lo->rhs, 4.0);
  EXPECT_EQ(up->sense, Sense::kLessEqual);
  EXPECT_EQ(up->rhs, 6.0);
  std::string validation;
  EXPECT_TRUE(problem.Validate(&validation)) << validation;
}

TEST(ReadMps, ReadProblemSolvesToHandComputedOptimum) {
  // x3 = 7 + x2 and 4 <= x2 + x3 <= 6 force x2 in [-1.5, -0.5], so the integer x2 = -1, x3 = 6,
  // and x1 = 1 (from LIM2): objective 1 - 2 - 6 + 5 = -2.
  const TempFile file("dede_features_solve.mps", kFeatureMps);
  const std::string& path = file.path();
  Problem problem(1, 1);
  std::string error;
  ASSERT_TRUE(ReadMps(path, &problem, &error)) << error;
  Allocation allocation;
  SolveSummary summary;
  SolveExact(problem, ExactOptions{}, &allocation, &summary);
  ASSERT_EQ(summary.termination, Termination::kConverged) << summary.message;
  EXPECT_EQ(summary.method, "cbc");
  EXPECT_NEAR(summary.objective, -2.0, 1e-9);
  EXPECT_NEAR(allocation[0], 1.0, 1e-9);
  EXPECT_NEAR(allocation[1], -1.0, 1e-9);
  EXPECT_NEAR(allocation[2], 6.0, 1e-9);
}

TEST(ReadMps, MissingFileIsAnErrorNamingTheFile) {
  const std::string path = ::testing::TempDir() + "dede_no_such_file.mps";
  Problem problem(1, 1);
  std::string error;
  EXPECT_FALSE(ReadMps(path, &problem, &error));
  EXPECT_NE(error.find(path), std::string::npos) << error;
  EXPECT_EQ(problem.num_variables(), 0);  // untouched
}

TEST(ReadMps, ParseErrorNamesTheFileAndTheLine) {
  const TempFile file("dede_broken.mps", R"(NAME          BROKEN
ROWS
 N  COST
 L  LIM1
COLUMNS
    X1        COST         1.0         LIM1         1.0
    X2        COST         1.0         NOSUCHROW    1.0
RHS
    RHS       LIM1         4.0
ENDATA
)");
  const std::string& path = file.path();
  Problem problem(1, 1);
  std::string error;
  EXPECT_FALSE(ReadMps(path, &problem, &error));
  EXPECT_NE(error.find(path), std::string::npos) << error;
  EXPECT_NE(error.find("NOSUCHROW"), std::string::npos) << error;
  EXPECT_NE(error.find("line 7"), std::string::npos) << error;
}

TEST(ReadMps, NonMpsFileIsAnErrorNamingTheLine) {
  const TempFile file("dede_garbage.mps", "this is not an MPS file\n");
  Problem problem(1, 1);
  std::string error;
  EXPECT_FALSE(ReadMps(file.path(), &problem, &error));
  EXPECT_NE(error.find(file.path()), std::string::npos) << error;
  EXPECT_NE(error.find("line 1"), std::string::npos) << error;
}

// CoinMpsIO crashes on a NUL byte inside a line (found by tools/fuzz.sh); the reader refuses a
// file with control characters before CoinMpsIO sees it.
TEST(ReadMps, ControlCharacterIsAnErrorNamingTheLine) {
  const std::string feature = kFeatureMps;
  const std::size_t at = feature.find("LIM2");
  const TempFile file("dede_nul.mps",
                      feature.substr(0, at + 2) + std::string(1, '\0') + feature.substr(at + 2));
  Problem problem(1, 1);
  std::string error;
  EXPECT_FALSE(ReadMps(file.path(), &problem, &error));
  EXPECT_NE(error.find(file.path()), std::string::npos) << error;
  EXPECT_NE(error.find("line 5: control character 0x00"), std::string::npos) << error;
  // Fields beyond CoinMpsIO's buffers (it copies them without a bound).
  const std::string long_name = feature.substr(0, at) + std::string(200, 'y') + feature.substr(at);
  const TempFile file2("dede_long.mps", long_name);
  EXPECT_FALSE(ReadMps(file2.path(), &problem, &error));
  EXPECT_NE(error.find("line 5: a field is longer than 159 characters"), std::string::npos)
      << error;
}

}  // namespace
}  // namespace dede::internal
