#include "exact/mps_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "dede/host_solvers.h"
#include "dede/problem.h"
#include "dede/solver.h"

namespace dede::internal {
namespace {

// A file in the test temp dir that is removed again at the end of the test. The process id in
// its name keeps tests that ctest runs in parallel (one process each) off each other's files.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& text)
      : path_(::testing::TempDir() + std::to_string(::getpid()) + "-" + name) {
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Reads `text` as the file `name`; the read must succeed.
Problem ReadOk(const std::string& name,
               const std::string& text,
               MpsFormat format = MpsFormat::kAuto) {
  const TempFile file(name, text);
  Problem problem(1, 1);
  std::string error;
  EXPECT_TRUE(ReadMps(file.path(), &problem, &error, format)) << error;
  return problem;
}

// Reads `text` as the file `name`; the read must fail and leave *out as it was. Returns the
// error with the temp dir cut off the path, so tests compare whole messages.
std::string ErrorOf(const std::string& name,
                    const std::string& text,
                    MpsFormat format = MpsFormat::kFree) {
  const TempFile file(name, text);
  Problem problem(1, 1);
  problem.AddLocal(BlockId::Resource(0), Domain::NonNegative(), "SENTINEL");
  std::string error;
  EXPECT_FALSE(ReadMps(file.path(), &problem, &error, format));
  EXPECT_EQ(problem.num_variables(), 1);  // untouched
  EXPECT_EQ(problem.variable_name(0), "SENTINEL");
  EXPECT_EQ(problem.num_constraints(), 0);
  if (error.rfind(file.path(), 0) != 0) return "error without the path: " + error;
  return name + error.substr(file.path().size());
}

// A fixed-format data line: the fields at columns 2, 5, 15, 25, 40 and 50.
std::string Fixed(const std::vector<std::string>& fields) {
  static constexpr std::size_t kStart[] = {1, 4, 14, 24, 39, 49};
  std::string line;
  for (std::size_t k = 0; k < fields.size(); ++k) {
    line.resize(kStart[k], ' ');
    line += fields[k];
  }
  return line + "\n";
}

std::optional<Variable> FindVariable(const Problem& problem, const std::string& name) {
  for (VarId v = 0; v < problem.num_variables(); ++v)
    if (problem.variable_name(v) == name) return problem.variable(v);
  return std::nullopt;
}

const Constraint* FindConstraint(const Problem& problem, const std::string& name) {
  for (ConstraintId c = 0; c < problem.num_constraints(); ++c)
    if (problem.constraint_name(c) == name) return &problem.constraint(c);
  return nullptr;
}

// The [lower, upper] a row became: one equality "<row>", one inequality "<row>", or the pair
// "<row>.lo" / "<row>.up".
std::pair<double, double> RowSides(const Problem& problem, const std::string& row) {
  if (const Constraint* c = FindConstraint(problem, row)) {
    if (c->sense == Sense::kEqual) return {c->rhs, c->rhs};
    if (c->sense == Sense::kLessEqual) return {-kInfinity, c->rhs};
    return {c->rhs, kInfinity};
  }
  const Constraint* lo = FindConstraint(problem, row + ".lo");
  const Constraint* up = FindConstraint(problem, row + ".up");
  if (!lo || !up) return {kInfinity, -kInfinity};  // no such row: an impossible pair
  EXPECT_EQ(lo->sense, Sense::kGreaterEqual);
  EXPECT_EQ(up->sense, Sense::kLessEqual);
  return {lo->rhs, up->rhs};
}

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
    RHS       FREEROW      9.0
RANGES
    RNG       RNG          2.0
BOUNDS
 UP BND       X1           4.0
 MI BND       X2
 UP BND       X2           1.0
 FR BND       X3
ENDATA
)";

TEST(ReadMps, MapsRowsColumnsBoundsAndObjectiveConstant) {
  const Problem problem = ReadOk("dede_features.mps", kFeatureMps);
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

  // LIM1, LIM2, MYEQN and the two halves of the ranged row; the free row (with its COLUMNS
  // and RHS entries) is gone.
  ASSERT_EQ(problem.num_constraints(), 5);
  EXPECT_EQ(FindConstraint(problem, "FREEROW"), nullptr);
  const Constraint* lim1 = FindConstraint(problem, "LIM1");
  ASSERT_NE(lim1, nullptr);
  EXPECT_EQ(lim1->sense, Sense::kLessEqual);
  EXPECT_EQ(lim1->rhs, 4.0);
  EXPECT_EQ(lim1->block, BlockId::Resource(0));
  ASSERT_EQ(lim1->terms.size(), 2u);
  EXPECT_EQ(lim1->terms[0].var, 0);
  EXPECT_EQ(lim1->terms[1].var, 1);
  const Constraint* lim2 = FindConstraint(problem, "LIM2");
  ASSERT_NE(lim2, nullptr);
  EXPECT_EQ(lim2->sense, Sense::kGreaterEqual);
  ASSERT_EQ(lim2->terms.size(), 1u);
  const Constraint* eqn = FindConstraint(problem, "MYEQN");
  ASSERT_NE(eqn, nullptr);
  EXPECT_EQ(eqn->sense, Sense::kEqual);
  EXPECT_EQ(eqn->rhs, 7.0);
  ASSERT_EQ(eqn->terms.size(), 2u);
  EXPECT_EQ(eqn->terms[0].coef, -1.0);
  EXPECT_EQ(RowSides(problem, "RNG"), std::make_pair(4.0, 6.0));  // L: [rhs - |R|, rhs]
  std::string validation;
  EXPECT_TRUE(problem.Validate(&validation)) << validation;
}

TEST(ReadMps, ReadProblemSolvesToHandComputedOptimum) {
  // x3 = 7 + x2 and 4 <= x2 + x3 <= 6 force x2 in [-1.5, -0.5], so the integer x2 = -1, x3 = 6,
  // and x1 = 1 (from LIM2): objective 1 - 2 - 6 + 5 = -2.
  const Problem problem = ReadOk("dede_features_solve.mps", kFeatureMps);
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

TEST(ReadMps, FixedFormatNamesMayContainSpaces) {
  const std::string text =
      "NAME          SPACES\nROWS\n" + Fixed({"N", "COST"}) + Fixed({"L", "CAP A"}) +
      Fixed({"G", "CAP B"}) + "COLUMNS\n" + Fixed({"", "MY COL", "COST", "1.0", "CAP A", "1.0"}) +
      Fixed({"", "MY COL", "CAP B", "1.0"}) + Fixed({"", "OTHER", "COST", "2.0", "CAP B", "1.0"}) +
      "RHS\n" + Fixed({"", "RHS 1", "CAP A", "4.0", "CAP B", "1.0"}) + "RANGES\n" +
      Fixed({"", "RNG", "CAP A", "2.5"}) + "BOUNDS\n" + Fixed({"UP", "BND 1", "MY COL", "3.0"}) +
      "ENDATA\n";
  for (const MpsFormat format : {MpsFormat::kAuto, MpsFormat::kFixed}) {
    const Problem problem = ReadOk("dede_spaces.mps", text, format);
    ASSERT_EQ(problem.num_variables(), 2);
    EXPECT_EQ(problem.variable_name(0), "MY COL");
    EXPECT_EQ(problem.variable(0).domain.upper, 3.0);
    EXPECT_EQ(problem.variable(1).linear_cost, 2.0);
    EXPECT_EQ(RowSides(problem, "CAP A"), std::make_pair(1.5, 4.0));
    EXPECT_EQ(RowSides(problem, "CAP B"), std::make_pair(1.0, kInfinity));
  }
  // As free format, "L CAP A" has three fields.
  EXPECT_EQ(ErrorOf("dede_spaces.mps", text, MpsFormat::kFree),
            "dede_spaces.mps:4: ROWS: expected 2 fields (row type, row name), found 3");
}

TEST(ReadMps, FreeFormatHasNoColumnsAndOptionalVectorNames) {
  const std::string text =
      "NAME free example\nROWS\n N obj\n E balance_row_with_a_long_name\n L cap\nCOLUMNS\n"
      "\tvery_long_column_name_x\tobj\t+2\tbalance_row_with_a_long_name\t.5\n"
      "  y obj -1e0   cap 1e1\n"
      "RHS\n balance_row_with_a_long_name 3 cap 20.\n"
      "RANGES\n balance_row_with_a_long_name -1\n"
      "BOUNDS\n LO very_long_column_name_x -4\n UP y 7\nENDATA\n";
  for (const MpsFormat format : {MpsFormat::kAuto, MpsFormat::kFree}) {
    const Problem problem = ReadOk("dede_free.mps", text, format);
    const std::optional<Variable> x = FindVariable(problem, "very_long_column_name_x");
    const std::optional<Variable> y = FindVariable(problem, "y");
    ASSERT_TRUE(x.has_value());
    ASSERT_TRUE(y.has_value());
    EXPECT_EQ(x->linear_cost, 2.0);
    EXPECT_EQ(y->linear_cost, -1.0);
    EXPECT_EQ(x->domain.lower, -4.0);
    EXPECT_EQ(x->domain.upper, kInfinity);
    EXPECT_EQ(y->domain.upper, 7.0);
    EXPECT_EQ(RowSides(problem, "balance_row_with_a_long_name"), std::make_pair(2.0, 3.0));
    EXPECT_EQ(RowSides(problem, "cap"), std::make_pair(-kInfinity, 20.0));
    const Constraint* cap = FindConstraint(problem, "cap");
    ASSERT_NE(cap, nullptr);
    ASSERT_EQ(cap->terms.size(), 1u);
    EXPECT_EQ(cap->terms[0].coef, 10.0);
  }
  EXPECT_EQ(ErrorOf("dede_free.mps", text, MpsFormat::kFixed),
            "dede_free.mps:3: ROWS: text 'obj' reaches column 4, between field 1 (columns 2-3) "
            "and field 2 (columns 5-12)");
}

// Each Netlib file is fixed format; all but FORPLAN (names with spaces) read the same as free
// format, which checks the two field splitters against each other on 43 real files.
TEST(ReadMps, NetlibFilesReadTheSameInFixedAndFreeFormat) {
  const auto same = [](const Problem& a, const Problem& b) {
    if (a.num_variables() != b.num_variables() || a.num_constraints() != b.num_constraints() ||
        a.objective_constant() != b.objective_constant())
      return false;
    for (VarId v = 0; v < a.num_variables(); ++v) {
      const Variable &p = a.variable(v), &q = b.variable(v);
      if (a.variable_name(v) != b.variable_name(v) || p.domain.lower != q.domain.lower ||
          p.domain.upper != q.domain.upper || p.domain.type != q.domain.type ||
          p.linear_cost != q.linear_cost)
        return false;
    }
    for (ConstraintId c = 0; c < a.num_constraints(); ++c) {
      const Constraint &p = a.constraint(c), &q = b.constraint(c);
      if (a.constraint_name(c) != b.constraint_name(c) || p.sense != q.sense || p.rhs != q.rhs ||
          p.terms.size() != q.terms.size())
        return false;
      for (std::size_t k = 0; k < p.terms.size(); ++k)
        if (p.terms[k].var != q.terms[k].var || p.terms[k].coef != q.terms[k].coef) return false;
    }
    return true;
  };
  int files = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(DEDE_TEST_DATA_DIR) + "/netlib")) {
    if (entry.path().extension() != ".mps") continue;
    ++files;
    const std::string path = entry.path().string();
    Problem fixed(1, 1), free_format(1, 1), automatic(1, 1);
    std::string error;
    ASSERT_TRUE(ReadMps(path, &fixed, &error, MpsFormat::kFixed)) << error;
    ASSERT_TRUE(ReadMps(path, &automatic, &error)) << error;
    EXPECT_TRUE(same(fixed, automatic)) << path;
    if (entry.path().filename() == "forplan.mps") {
      EXPECT_FALSE(ReadMps(path, &free_format, &error, MpsFormat::kFree));
      EXPECT_NE(error.find("forplan.mps:5: ROWS: expected 2 fields"), std::string::npos) << error;
      continue;
    }
    ASSERT_TRUE(ReadMps(path, &free_format, &error, MpsFormat::kFree)) << error;
    EXPECT_TRUE(same(fixed, free_format)) << path;
    EXPECT_GT(fixed.num_constraints(), 0) << path;
  }
  EXPECT_EQ(files, 44);
}

TEST(ReadMps, RangesFollowTheSignRulesOfEachRowType) {
  const Problem problem = ReadOk("dede_ranges.mps",
                                 "NAME R\nROWS\n N C\n E EP\n E EM\n E EZ\n L LP\n L LM\n G GP\n"
                                 " G GM\nCOLUMNS\n X C 1 EP 1\n X EM 1 EZ 1\n X LP 1 LM 1\n"
                                 " X GP 1 GM 1\nRHS\n B EP 10 EM 10\n B EZ 10 LP 10\n"
                                 " B LM 10 GP 10\n B GM 10\nRANGES\n R EP 4 EM -4\n R EZ 0 LP 4\n"
                                 " R LM -4 GP 4\n R GM -4\nENDATA\n");
  EXPECT_EQ(RowSides(problem, "EP"), std::make_pair(10.0, 14.0));  // E, R > 0: [rhs, rhs + R]
  EXPECT_EQ(RowSides(problem, "EM"), std::make_pair(6.0, 10.0));   // E, R < 0: [rhs + R, rhs]
  EXPECT_EQ(RowSides(problem, "EZ"), std::make_pair(10.0, 10.0));
  EXPECT_EQ(RowSides(problem, "LP"), std::make_pair(6.0, 10.0));  // L: [rhs - |R|, rhs]
  EXPECT_EQ(RowSides(problem, "LM"), std::make_pair(6.0, 10.0));
  EXPECT_EQ(RowSides(problem, "GP"), std::make_pair(10.0, 14.0));  // G: [rhs, rhs + |R|]
  EXPECT_EQ(RowSides(problem, "GM"), std::make_pair(10.0, 14.0));
  EXPECT_EQ(problem.num_constraints(), 13);  // EZ is one equality
}

TEST(ReadMps, EveryBoundTypeSetsItsSides) {
  std::string text = "NAME B\nROWS\n N C\nCOLUMNS\n";
  for (const char* column : {"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M"})
    text += std::string(" ") + column + " C 1\n";
  text +=
      "BOUNDS\n UP BND A 4\n UP BND B -2\n LO BND C -5\n UP BND C -2\n UP BND D -2\n"
      " LO BND D -5\n LO BND E 1\n FX BND F 2.5\n FR BND G\n MI BND H\n LO BND I 2\n PL BND I\n"
      " BV BND J 1\n LI BND K -3\n UI BND K 8\n LO BND L -1e30\n UP BND L 1e31\n UP BND M inf\n"
      "ENDATA\n";
  const Problem problem = ReadOk("dede_bounds.mps", text);
  const auto domain = [&](const char* name) {
    const std::optional<Variable> v = FindVariable(problem, name);
    return v ? v->domain : Domain{kInfinity, -kInfinity, VarType::kBinary};
  };
  const auto sides = [&](const char* name) {
    return std::make_pair(domain(name).lower, domain(name).upper);
  };
  EXPECT_EQ(sides("A"), std::make_pair(0.0, 4.0));
  EXPECT_EQ(sides("B"), std::make_pair(-kInfinity, -2.0));  // negative UP, no LO: lower -inf
  EXPECT_EQ(sides("C"), std::make_pair(-5.0, -2.0));        // an explicit LO wins, before...
  EXPECT_EQ(sides("D"), std::make_pair(-5.0, -2.0));        // ... or after
  EXPECT_EQ(sides("E"), std::make_pair(1.0, kInfinity));
  EXPECT_EQ(sides("F"), std::make_pair(2.5, 2.5));
  EXPECT_EQ(sides("G"), std::make_pair(-kInfinity, kInfinity));
  EXPECT_EQ(sides("H"), std::make_pair(-kInfinity, kInfinity));
  EXPECT_EQ(sides("I"), std::make_pair(2.0, kInfinity));
  EXPECT_EQ(sides("J"), std::make_pair(0.0, 1.0));
  EXPECT_EQ(domain("J").type, VarType::kInteger);
  EXPECT_EQ(sides("K"), std::make_pair(-3.0, 8.0));
  EXPECT_EQ(domain("K").type, VarType::kInteger);
  EXPECT_EQ(domain("A").type, VarType::kContinuous);
  EXPECT_EQ(sides("L"), std::make_pair(-kInfinity, kInfinity));  // |value| >= 1e30: infinite
  EXPECT_EQ(sides("M"), std::make_pair(0.0, kInfinity));
}

TEST(ReadMps, IntegerMarkersMakeColumnsIntegerAndUnboundedOnesBinary) {
  const Problem problem = ReadOk("dede_markers.mps",
                                 "NAME M\nROWS\n N C\n L R\nCOLUMNS\n M1 'MARKER' 'INTORG'\n"
                                 " P C 1 R 1\n Q C 1\n S C 1\n M2 'MARKER' 'INTEND'\n"
                                 " T C 1\n M3 'MARKER' 'INTORG'\n U R 1\n M4 'MARKER' 'INTEND'\n"
                                 "RHS\n RHS R 3\nBOUNDS\n UP B Q 5\n LO B S 2\n FR B U\nENDATA\n");
  ASSERT_EQ(problem.num_variables(), 5);
  const auto expect = [&](VarId v, double lower, double upper, VarType type) {
    SCOPED_TRACE(problem.variable_name(v));
    EXPECT_EQ(problem.variable(v).domain.lower, lower);
    EXPECT_EQ(problem.variable(v).domain.upper, upper);
    EXPECT_EQ(problem.variable(v).domain.type, type);
  };
  expect(0, 0.0, 1.0, VarType::kInteger);  // P: no bounds, so [0, 1] (CoinMpsIO)
  expect(1, 0.0, 5.0, VarType::kInteger);  // Q: UP only
  expect(2, 2.0, kInfinity, VarType::kInteger);
  expect(3, 0.0, kInfinity, VarType::kContinuous);  // T: after INTEND
  expect(4, -kInfinity, kInfinity, VarType::kInteger);
}

TEST(ReadMps, ObjsenseSetsTheSenseInBothForms) {
  const std::string rest = "ROWS\n N C\nCOLUMNS\n X C 1\nRHS\n RHS C -5\nENDATA\n";
  for (const std::string header :
       {"OBJSENSE MAX\n", "OBJSENSE\n    MAXIMIZE\n", "OBJSENSE\n  MIN\n", "OBJSENSE MINIMIZE\n"}) {
    SCOPED_TRACE(header);
    const Problem problem = ReadOk("dede_sense.mps", "NAME S\n" + header + rest);
    EXPECT_EQ(problem.objective_sense(),
              header.find("MAX") != std::string::npos ? ObjectiveSense::kMaximize
                                                      : ObjectiveSense::kMinimize);
    EXPECT_EQ(problem.objective_constant(), 5.0);
    EXPECT_EQ(problem.variable(0).linear_cost, 1.0);
  }
}

TEST(ReadMps, CommentsBlankLinesCrlfZerosAndTextAfterEndataAreFine) {
  const Problem problem = ReadOk("dede_crlf.mps",
                                 "* a comment\r\nNAME C\r\n\r\nROWS\r\n N C\r\n G R\r\n L EMPTY\r\n"
                                 "*another\r\nCOLUMNS\r\n X C 1 R 0\r\n Y R 2\r\n   \r\nENDATA\r\n"
                                 "anything, even \x01 control characters\n");
  ASSERT_EQ(problem.num_variables(), 2);
  const Constraint* r = FindConstraint(problem, "R");
  ASSERT_NE(r, nullptr);
  ASSERT_EQ(r->terms.size(), 1u);  // X's 0 is dropped
  EXPECT_EQ(r->terms[0].var, 1);
  EXPECT_EQ(r->rhs, 0.0);  // no RHS entry
  const Constraint* empty = FindConstraint(problem, "EMPTY");
  ASSERT_NE(empty, nullptr);
  EXPECT_TRUE(empty->terms.empty());
}

// ---- errors: each names the file, the line, the section and the offending field ----------

// The edits below replace one line of this file (1-based), which reads without error.
constexpr const char* kBase =
    "NAME T\nROWS\n N COST\n L LIM\n G LOW\nCOLUMNS\n X COST 1 LIM 1\n Y COST 2 LOW 1\nRHS\n"
    " RHS LIM 4\nBOUNDS\n UP BND X 3\nENDATA\n";

std::string Edit(int line, const std::string& text) {
  std::istringstream in(kBase);
  std::string out, current;
  for (int n = 1; std::getline(in, current); ++n) out += (n == line ? text : current) + "\n";
  return out;
}

TEST(ReadMps, BaseOfTheErrorTestsReads) {
  const Problem problem = ReadOk("x.mps", kBase, MpsFormat::kFree);
  EXPECT_EQ(problem.num_variables(), 2);
  EXPECT_EQ(problem.num_constraints(), 2);
}

TEST(ReadMps, MissingOrNonRegularFileIsAnError) {
  const std::string path = ::testing::TempDir() + "dede_no_such_file.mps";
  Problem problem(1, 1);
  std::string error;
  EXPECT_FALSE(ReadMps(path, &problem, &error));
  EXPECT_EQ(error, path + ": cannot open (no such file)");
  EXPECT_FALSE(ReadMps(::testing::TempDir(), &problem, &error));
  EXPECT_EQ(error, ::testing::TempDir() + ": cannot read: not a regular file");
  EXPECT_EQ(problem.num_variables(), 0);
}

TEST(ReadMps, FileOverTheSizeLimitIsRefusedBeforeReading) {
  const TempFile file("dede_huge.mps", "");
  std::filesystem::resize_file(file.path(), kMpsMaxFileBytes + 1);  // sparse: no disk used
  Problem problem(1, 1);
  std::string error;
  EXPECT_FALSE(ReadMps(file.path(), &problem, &error));
  EXPECT_EQ(
      error,
      file.path() + ": 1073741825 bytes, over the MPS reader's limit of 1073741824 bytes (1 GiB)");
}

TEST(ReadMps, ControlCharacterOrOverlongLineIsAnErrorNamingTheLine) {
  EXPECT_EQ(ErrorOf("x.mps", Edit(7, " X COST 1 LIM" + std::string(1, '\0') + " 1")),
            "x.mps:7: control character 0x00 in column 14 (an MPS file is text)");
  EXPECT_EQ(ErrorOf("x.mps", Edit(5, " G LO\rW")),
            "x.mps:5: control character 0x0d in column 6 (an MPS file is text)");
  EXPECT_EQ(ErrorOf("x.mps", Edit(8, " Y COST 2 LOW 1" + std::string(kMpsMaxLineLength, ' '))),
            "x.mps:8: the line is longer than 4096 characters");
  // A line feed-free file of 100 kB stops at the limit too, in any format.
  EXPECT_EQ(ErrorOf("x.mps", std::string(100000, 'y'), MpsFormat::kAuto),
            "x.mps:1: the line is longer than 4096 characters");
}

TEST(ReadMps, UnknownUnsupportedMisplacedOrMissingSectionIsAnError) {
  EXPECT_EQ(ErrorOf("x.mps", "this is not an MPS file\n"),
            "x.mps:1: 'this' is not an MPS section name (a line that starts in column 1 is a "
            "section header; data lines start with a space)");
  EXPECT_EQ(ErrorOf("x.mps", Edit(11, "QUADOBJ")),
            "x.mps:11: section QUADOBJ is not supported (an LP / MILP has NAME, OBJSENSE, ROWS, "
            "COLUMNS, RHS, RANGES, BOUNDS, ENDATA)");
  EXPECT_EQ(ErrorOf("x.mps", Edit(11, "ROWS")),
            "x.mps:11: ROWS after RHS: the sections are NAME, "
            "ROWS, COLUMNS, RHS, RANGES, BOUNDS, ENDATA, in "
            "this order and each once");
  EXPECT_EQ(ErrorOf("x.mps", Edit(11, "RHS")), "x.mps:11: a second RHS section");
  EXPECT_EQ(ErrorOf("x.mps", Edit(9, "RHS  SET")),
            "x.mps:9: RHS: unexpected text 'SET' after the section name");
  EXPECT_EQ(ErrorOf("x.mps", "NAME T\nCOLUMNS\n"), "x.mps:2: COLUMNS before ROWS");
  EXPECT_EQ(ErrorOf("x.mps", "ROWS\n N C\nENDATA\n"),
            "x.mps:3: ENDATA without a COLUMNS section before it");
  EXPECT_EQ(ErrorOf("x.mps", Edit(1, " X")),
            "x.mps:1: a data line before the first section (NAME or ROWS)");
  EXPECT_EQ(ErrorOf("x.mps", Edit(1, "NAME\n T")),
            "x.mps:2: NAME: unexpected data line (the problem's name goes on the NAME line)");
}

TEST(ReadMps, MissingEndataIsAnError) {
  EXPECT_EQ(ErrorOf("x.mps", Edit(13, "")), "x.mps:13: the file ends without ENDATA (truncated?)");
  EXPECT_EQ(ErrorOf("x.mps", Edit(13, "* ENDATA")),
            "x.mps:13: the file ends without ENDATA (truncated?)");
}

TEST(ReadMps, ObjsenseErrorsNameTheValue) {
  EXPECT_EQ(ErrorOf("x.mps", Edit(1, "NAME T\nOBJSENSE SIDEWAYS")),
            "x.mps:2: OBJSENSE: sense 'SIDEWAYS' is not MAX, MAXIMIZE, MIN or MINIMIZE");
  EXPECT_EQ(ErrorOf("x.mps", Edit(1, "NAME T\nOBJSENSE")),
            "x.mps:3: OBJSENSE: no MAX or MIN line before 'ROWS'");
  EXPECT_EQ(ErrorOf("x.mps", Edit(1, "OBJSENSE\n MAX\n MIN")),
            "x.mps:3: OBJSENSE: a second value; the sense is given once");
  EXPECT_EQ(ErrorOf("x.mps", Edit(1, "OBJSENSE MAX\nOBJSENSE MIN")),
            "x.mps:2: a second OBJSENSE section (the first is at line 1)");
}

TEST(ReadMps, WrongFieldCountInFreeFormatIsAnError) {
  EXPECT_EQ(ErrorOf("x.mps", Edit(5, " G LOW EXTRA")),
            "x.mps:5: ROWS: expected 2 fields (row type, row name), found 3");
  EXPECT_EQ(ErrorOf("x.mps", Edit(7, " X COST 1 LIM")),
            "x.mps:7: COLUMNS: expected 3 fields (column, row, value) or 5 (column, row, value, "
            "row, value), found 4");
  EXPECT_EQ(ErrorOf("x.mps", Edit(10, " RHS LIM 4 LOW 1 2")),
            "x.mps:10: RHS: expected 2 to 5 fields ([vector,] row, value[, row, value]), found 6");
  EXPECT_EQ(ErrorOf("x.mps", Edit(12, " UP X")),
            "x.mps:12: BOUNDS: expected 3 or 4 fields (type, [vector,] column, value) for UP, "
            "found 2");
}

TEST(ReadMps, FixedFormatTabOrTextOutsideTheFieldsOrMissingFieldIsAnError) {
  const std::string head =
      "NAME\nROWS\n" + Fixed({"N", "COST"}) + Fixed({"L", "LIM"}) + "COLUMNS\n";
  const std::string tail = "ENDATA\n";
  EXPECT_EQ(ErrorOf("f.mps", head + "    LONGCOLUMN COST          1\n" + tail, MpsFormat::kFixed),
            "f.mps:6: COLUMNS: text 'LONGCOLUMN' reaches column 13, between field 2 (columns "
            "5-12) and field 3 (columns 15-22)");
  EXPECT_EQ(ErrorOf("f.mps", head + "    X\tCOST 1\n" + tail, MpsFormat::kFixed),
            "f.mps:6: COLUMNS: a tab in column 6: fixed format finds fields by column (use "
            "spaces, or free format)");
  EXPECT_EQ(ErrorOf("f.mps", head + Fixed({"", "X", "COST"}) + tail, MpsFormat::kFixed),
            "f.mps:6: COLUMNS: no value (field 4, columns 25-36)");
  EXPECT_EQ(ErrorOf("f.mps", head + Fixed({"", "X", "COST", "1", "LIM"}) + tail, MpsFormat::kFixed),
            "f.mps:6: COLUMNS: no value (field 6, columns 50-61) for the second entry");
  EXPECT_EQ(ErrorOf("f.mps", head + Fixed({"UP", "X", "COST", "1"}) + tail, MpsFormat::kFixed),
            "f.mps:6: COLUMNS: unexpected text 'UP' in field 1, columns 2-3");
  EXPECT_EQ(
      ErrorOf("f.mps",
              head + Fixed({"", "X", "COST", "1"}) + "BOUNDS\n" + Fixed({"UP", "BND", "X"}) + tail,
              MpsFormat::kFixed),
      "f.mps:8: BOUNDS: UP bound of column 'X' has no value");
}

// kAuto reports the reading that got further and where the other stopped.
TEST(ReadMps, AutoFormatErrorSaysWhereEachFormatFailed) {
  EXPECT_EQ(ErrorOf("x.mps", Edit(7, " X COST 1 NOSUCH 1"), MpsFormat::kAuto),
            "x.mps:7: COLUMNS: column 'X' has an entry in row 'NOSUCH', which ROWS does not "
            "declare (read as free-format MPS; as fixed-format MPS it fails at line 3)");
}

TEST(ReadMps, BadRowTypeOrDuplicateRowIsAnError) {
  EXPECT_EQ(ErrorOf("x.mps", Edit(5, " X LOW")),
            "x.mps:5: ROWS: row type 'X' of row 'LOW' is not N, E, L or G");
  EXPECT_EQ(ErrorOf("x.mps", Edit(5, " G LIM")),
            "x.mps:5: ROWS: row 'LIM' is declared twice (first at line 4)");
}

TEST(ReadMps, UnknownRowOrColumnIsAnError) {
  EXPECT_EQ(ErrorOf("x.mps", Edit(7, " X COST 1 NOSUCH 1")),
            "x.mps:7: COLUMNS: column 'X' has an entry in row 'NOSUCH', which ROWS does not "
            "declare");
  EXPECT_EQ(ErrorOf("x.mps", Edit(10, " RHS NOSUCH 4")),
            "x.mps:10: RHS: row 'NOSUCH' is not declared in ROWS");
  EXPECT_EQ(ErrorOf("x.mps", Edit(11, "RANGES\n RNG NOSUCH 1\nBOUNDS")),
            "x.mps:12: RANGES: row 'NOSUCH' is not declared in ROWS");
  EXPECT_EQ(ErrorOf("x.mps", Edit(12, " UP BND Z 3")),
            "x.mps:12: BOUNDS: UP bound on column 'Z', which COLUMNS does not declare");
}

TEST(ReadMps, NumberThatIsNotANumberIsAnErrorNamingItsField) {
  EXPECT_EQ(ErrorOf("x.mps", Edit(7, " X COST 1 LIM abc")),
            "x.mps:7: COLUMNS: value 'abc' of column 'X' in row 'LIM' is not a number");
  EXPECT_EQ(ErrorOf("x.mps", Edit(7, " X COST 1,5")),
            "x.mps:7: COLUMNS: value '1,5' of column 'X' in row 'COST' is not a number");
  EXPECT_EQ(ErrorOf("x.mps", Edit(10, " RHS LIM 4x")),
            "x.mps:10: RHS: value '4x' of row 'LIM' is not a number");
  EXPECT_EQ(ErrorOf("x.mps", Edit(11, "RANGES\n RNG LIM 1..5\nBOUNDS")),
            "x.mps:12: RANGES: range '1..5' of row 'LIM' is not a number");
  EXPECT_EQ(ErrorOf("x.mps", Edit(12, " UP BND X +-3")),
            "x.mps:12: BOUNDS: value '+-3' of the UP bound of column 'X' is not a number");
  EXPECT_EQ(ErrorOf("x.mps", Edit(12, " UP BND X nan")),
            "x.mps:12: BOUNDS: value 'nan' of the UP bound of column 'X' is not a number");
}

TEST(ReadMps, NonFiniteNumberWhereNoInfinityIsMeaningfulIsAnError) {
  EXPECT_EQ(ErrorOf("x.mps", Edit(7, " X COST inf LIM 1")),
            "x.mps:7: COLUMNS: value 'inf' of column 'X' in row 'COST' is not finite");
  EXPECT_EQ(ErrorOf("x.mps", Edit(7, " X COST 1 LIM nan")),
            "x.mps:7: COLUMNS: value 'nan' of column 'X' in row 'LIM' is not a number");
  EXPECT_EQ(ErrorOf("x.mps", Edit(7, " X COST 1e999 LIM 1")),
            "x.mps:7: COLUMNS: value '1e999' of column 'X' in row 'COST' is out of the range of a "
            "double");
  EXPECT_EQ(ErrorOf("x.mps", Edit(10, " RHS LIM -infinity")),
            "x.mps:10: RHS: value '-infinity' of row 'LIM' is not finite");
  EXPECT_EQ(ErrorOf("x.mps", Edit(11, "RANGES\n RNG LIM inf\nBOUNDS")),
            "x.mps:12: RANGES: range 'inf' of row 'LIM' is not finite");
  EXPECT_EQ(ErrorOf("x.mps", Edit(12, " FX BND X 1e30")),
            "x.mps:12: BOUNDS: FX bound of column 'X' is inf: a fixed value must be finite");
  EXPECT_EQ(ErrorOf("x.mps", Edit(12, " UP BND X -inf")),
            "x.mps:12: BOUNDS: UP bound of column 'X' is -inf: an upper bound of -inf leaves no "
            "value");
  EXPECT_EQ(ErrorOf("x.mps", Edit(12, " LO BND X 1e300000")),
            "x.mps:12: BOUNDS: value '1e300000' of the LO bound of column 'X' is out of the range "
            "of a double");
  // Finite parts whose sum is not: rhs + range of a G row.
  EXPECT_EQ(ErrorOf("x.mps", Edit(10, " RHS LOW 1e308\nRANGES\n RNG LOW 1e308")),
            "x.mps:12: RANGES: range 1e+308 of row 'LOW' with right-hand side 1e+308 overflows a "
            "double");
}

TEST(ReadMps, TwoEntriesForOneRowOrASplitColumnIsAnError) {
  EXPECT_EQ(ErrorOf("x.mps", Edit(7, " X COST 1 LIM 1\n X LIM 2")),
            "x.mps:8: COLUMNS: column 'X' has a second entry in row 'LIM' (the first is at line "
            "7)");
  EXPECT_EQ(ErrorOf("x.mps", Edit(7, " X COST 1 COST 1")),
            "x.mps:7: COLUMNS: column 'X' has a second entry in row 'COST' (the first is at line "
            "7)");
  EXPECT_EQ(ErrorOf("x.mps", Edit(8, " Y COST 2 LOW 1\n X LOW 1")),
            "x.mps:9: COLUMNS: column 'X' continues after column 'Y'; its entries start at line 7 "
            "and must be contiguous");
  EXPECT_EQ(ErrorOf("x.mps", Edit(10, " RHS LIM 4 LIM 5")),
            "x.mps:10: RHS: row 'LIM' has a second right-hand side (the first is at line 10)");
  EXPECT_EQ(ErrorOf("x.mps", Edit(11, "RANGES\n RNG LIM 1\n RNG LIM 2\nBOUNDS")),
            "x.mps:13: RANGES: row 'LIM' has a second range (the first is at line 12)");
  EXPECT_EQ(ErrorOf("x.mps", Edit(10, " RHS LIM 4\n RHS2 LOW 1")),
            "x.mps:11: RHS: a second vector 'RHS2' (the first, 'RHS', is at line 10); only one is "
            "read");
}

TEST(ReadMps, MarkerErrorsNameTheMarkerLine) {
  EXPECT_EQ(ErrorOf("x.mps", Edit(7, " M 'MARKER' 'INTEND'\n X COST 1 LIM 1")),
            "x.mps:7: COLUMNS: 'INTEND' without an open 'INTORG' block");
  EXPECT_EQ(ErrorOf("x.mps", Edit(7, " M 'MARKER' 'INTORG'\n M 'MARKER' 'INTORG'")),
            "x.mps:8: COLUMNS: 'INTORG' inside the integer block opened at line 7");
  EXPECT_EQ(ErrorOf("x.mps", Edit(7, " M 'MARKER' 'INTORG'\n X COST 1 LIM 1")),
            "x.mps:10: COLUMNS: the integer block opened at line 7 ('INTORG') is not closed "
            "('INTEND') before the next section");
  EXPECT_EQ(ErrorOf("x.mps", Edit(7, " M 'MARKER' 'SOSORG'")),
            "x.mps:7: COLUMNS: marker 'M' has type 'SOSORG'; 'INTORG' and 'INTEND' are "
            "supported");
}

TEST(ReadMps, RangeOnAnNRowIsAnError) {
  EXPECT_EQ(ErrorOf("x.mps", Edit(11, "RANGES\n RNG COST 1\nBOUNDS")),
            "x.mps:12: RANGES: row 'COST' is an N (free) row; ranges apply to E, L and G rows");
}

TEST(ReadMps, BadBoundIsAnErrorNamingTheColumn) {
  EXPECT_EQ(ErrorOf("x.mps", Edit(12, " XX BND X 3")),
            "x.mps:12: BOUNDS: bound type 'XX' of column 'X' is not UP, LO, FX, FR, MI, PL, BV, "
            "LI or UI");
  EXPECT_EQ(ErrorOf("x.mps", Edit(12, " SC BND X 3")),
            "x.mps:12: BOUNDS: semi-continuous bound (SC) on column 'X' is not supported");
  EXPECT_EQ(ErrorOf("x.mps", Edit(12, " UP BND X 3\n UP BND X 4")),
            "x.mps:13: BOUNDS: column 'X' already has an upper bound (from line 12)");
  EXPECT_EQ(ErrorOf("x.mps", Edit(12, " FR BND X\n LO BND X 4")),
            "x.mps:13: BOUNDS: column 'X' already has a lower bound (from line 12)");
  EXPECT_EQ(ErrorOf("x.mps", Edit(12, " UP BND X 3\n LO BND X 5")),
            "x.mps:13: BOUNDS: column 'X' has lower bound 5 above its upper bound 3");
  EXPECT_EQ(ErrorOf("x.mps", Edit(12, " UP BND X 3\n LO BND2 Y 5")),
            "x.mps:13: BOUNDS: a second vector 'BND2' (the first, 'BND', is at line 12); only "
            "one is read");
}

}  // namespace
}  // namespace dede::internal
