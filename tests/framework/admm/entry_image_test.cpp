// Entries declared as images of a local (Problem::AddEntry with an EntryImage) against the
// same problem written with the rows entry - scale * local = offset: the ADMM engine must give
// the same allocation up to rounding at a fixed iteration count, and the exact solver the same
// optimum. The
// optimum itself is checked against Clp on the row form, an independent model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "dede/host_solvers.h"
#include "dede/solver.h"

namespace dede {
namespace {

double Uniform(std::mt19937& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

// A random path model: `links` resources with capacities, `pairs` demand blocks, each with
// 1-3 paths over 1-4 random links (edge-disjoint within a pair when `disjoint`); an entry x[e, d]
// per link on a pair's paths. An entry with one path through it is the image of that path's flow
// (scaled and shifted when `affine`), unless `rows`, which writes that as a row; entries on several
// paths of a pair (paths that share a link) are always the row x[e, d] = sum of their flows.
struct PathSpec {
  int links = 12, pairs = 30;
  bool affine = false;
  bool min_max = false;  // minimise the largest link utilisation instead of maximising flow
  bool disjoint = true;  // a pair's paths share no link (every entry is an image)
  unsigned seed = 1;
};

Problem BuildPathProblem(const PathSpec& spec, bool rows) {
  std::mt19937 rng(spec.seed);
  Problem problem(spec.links, spec.pairs);
  const int x = problem.AddAllocation("x", Domain::NonNegative());
  std::vector<double> capacity(spec.links);
  for (double& c : capacity) c = Uniform(rng, 1.0, 3.0);
  std::vector<LinearExpr> load(spec.links);
  for (int d = 0; d < spec.pairs; ++d) {
    const int num_paths = 1 + static_cast<int>(rng() % 3);
    LinearExpr total;
    std::vector<std::vector<int>> on_link(spec.links);
    std::vector<VarId> flows;
    for (int p = 0; p < num_paths; ++p) {
      const VarId f = problem.AddLocal(BlockId::Demand(d), Domain::NonNegative());
      flows.push_back(f);
      total.Add(f, 1.0);
      if (!spec.min_max) problem.AddLinearCost(f, Uniform(rng, 0.5, 1.5));
      std::set<int> path;
      const int hops = 1 + static_cast<int>(rng() % 4);
      while (static_cast<int>(path.size()) < hops) {
        const int e = static_cast<int>(rng() % spec.links);
        if (!spec.disjoint || on_link[e].empty()) path.insert(e);
      }
      for (int e : path) on_link[e].push_back(p);
    }
    problem.AddConstraint(BlockId::Demand(d),
                          total,
                          spec.min_max ? Sense::kEqual : Sense::kLessEqual,
                          Uniform(rng, 0.2, 1.5));
    for (int e = 0; e < spec.links; ++e) {
      if (on_link[e].empty()) continue;
      const double scale = spec.affine ? Uniform(rng, 0.5, 2.0) : 1.0;
      const double offset = spec.affine ? Uniform(rng, 0.0, 0.05) : 0.0;  // feasible: f = 0
      if (on_link[e].size() == 1) {
        const VarId f = flows[on_link[e][0]];
        VarId entry = -1;
        if (rows) {
          entry = problem.AddEntry(x, e, d);
          problem.AddConstraint(BlockId::Demand(d),
                                LinearExpr().Add(entry, 1.0).Add(f, -scale),
                                Sense::kEqual,
                                offset);
        } else {
          entry = problem.AddEntry(x, e, d, EntryImage{f, scale, offset});
        }
        load[e].Add(entry, 1.0);
        continue;
      }
      const VarId entry = problem.AddEntry(x, e, d);
      LinearExpr coupling;
      coupling.Add(entry, 1.0);
      for (int p : on_link[e]) coupling.Add(flows[p], -1.0);
      problem.AddConstraint(BlockId::Demand(d), coupling, Sense::kEqual, 0.0);
      load[e].Add(entry, 1.0);
    }
  }
  std::vector<int> used;
  std::vector<LinearExpr> utilisation;
  for (int e = 0; e < spec.links; ++e) {
    if (load[e].terms.empty()) continue;
    if (!spec.min_max) {
      problem.AddConstraint(BlockId::Resource(e), load[e], Sense::kLessEqual, capacity[e]);
      continue;
    }
    LinearExpr u;
    for (const Term& t : load[e].terms) u.Add(t.var, 1.0 / capacity[e]);
    used.push_back(e);
    utilisation.push_back(u);
  }
  if (spec.min_max) {
    problem.SetObjectiveSense(ObjectiveSense::kMinimize);
    problem.SetGlobalTerm(GlobalKind::kMinMax, Side::kResource, used, utilisation);
  } else {
    problem.SetObjectiveSense(ObjectiveSense::kMaximize);
  }
  return problem;
}

Allocation RunAdmm(const Problem& problem, AdmmOptions options, SolveSummary* summary) {
  AdmmSolver solver(problem, options);
  Allocation allocation;
  solver.Solve(&allocation, summary);
  return allocation;
}

double ExactObjective(const Problem& problem) {
  ExactOptions options;
  Allocation allocation;
  SolveSummary summary;
  SolveExact(problem, options, &allocation, &summary);
  EXPECT_EQ(summary.termination, Termination::kConverged) << summary.message;
  EXPECT_LE(problem.MeasureViolation(allocation.values).Max(), 1e-7);
  return summary.objective;
}

class EntryImages : public ::testing::TestWithParam<int> {};

// The same iterates up to rounding: with edge-disjoint paths the row form's pair blocks get
// the aggregate over the one-row search, the image form's the image_row solver (the same
// block optimum, other rounding). (Where a pair's paths share a link the row form's block can
// fall back to Clp on the whole block: the next test covers that case.)
TEST_P(EntryImages, AdmmFollowsTheRowFormAtAFixedIterationCount) {
  for (unsigned seed = 1; seed <= 4; ++seed) {
    PathSpec spec;
    spec.seed = seed * 7 + static_cast<unsigned>(GetParam());
    spec.affine = GetParam() % 2 == 1;
    spec.min_max = GetParam() >= 2;
    const Problem images = BuildPathProblem(spec, false);
    const Problem rows = BuildPathProblem(spec, true);
    ASSERT_GT(images.num_images(), 0u);
    ASSERT_EQ(rows.num_images(), 0u);
    ASSERT_EQ(images.num_variables(), rows.num_variables());
    ASSERT_LT(images.num_constraints(), rows.num_constraints());
    std::string error;
    ASSERT_TRUE(images.Validate(&error)) << error;
    for (const bool equilibrate : {false, true}) {
      AdmmOptions options;
      options.rho = 1.0;
      options.max_iterations = 80;
      options.eps_abs = 1e-15;
      options.eps_rel = 1e-15;
      options.num_threads = 1;
      options.equilibrate = equilibrate;
      SolveSummary a, b;
      const Allocation with_images = RunAdmm(images, options, &a);
      const Allocation with_rows = RunAdmm(rows, options, &b);
      ASSERT_TRUE(a.iterations > 0) << a.message;
      EXPECT_EQ(a.iterations, b.iterations);
      double gap = 0;
      for (std::size_t i = 0; i < with_rows.values.size(); ++i) {
        gap = std::max(gap, std::abs(with_images.values[i] - with_rows.values[i]));
      }
      EXPECT_LE(gap, 1e-9) << "seed " << spec.seed << " equilibrate " << equilibrate
                           << ": objective " << a.objective << " vs " << b.objective;
      EXPECT_NEAR(a.objective, b.objective, 1e-9 * std::max(1.0, std::abs(b.objective)));
      // The engine's measure counts the images as constraints.
      EXPECT_NEAR(a.max_violation, b.max_violation, 1e-9);
    }
  }
}

TEST_P(EntryImages, ExactAndConvergedAdmmReachTheRowFormsOptimum) {
  PathSpec spec;
  spec.seed = 100 + static_cast<unsigned>(GetParam());
  spec.disjoint = false;
  spec.affine = GetParam() % 2 == 1;
  spec.min_max = GetParam() >= 2;
  const Problem images = BuildPathProblem(spec, false);
  const Problem rows = BuildPathProblem(spec, true);
  const double reference = ExactObjective(rows);
  EXPECT_NEAR(ExactObjective(images), reference, 1e-9 * std::max(1.0, std::abs(reference)));
  AdmmOptions options;
  options.eps_abs = 1e-7;
  options.eps_rel = 1e-6;
  options.max_iterations = 20000;
  SolveSummary summary;
  const Allocation admm = RunAdmm(images, options, &summary);
  EXPECT_TRUE(summary.feasible) << summary.message;
  EXPECT_LE(images.MeasureViolation(admm.values).Max(), 1e-6);
  EXPECT_NEAR(summary.objective, reference, 2e-3 * std::max(1.0, std::abs(reference)))
      << summary.message;
}

// 0: unit images, max flow; 1: affine images, max flow; 2, 3: the same under min max.
INSTANTIATE_TEST_SUITE_P(Shapes, EntryImages, ::testing::Values(0, 1, 2, 3));

TEST(EntryImages, AnImageViolationIsMeasuredAndNamed) {
  Problem problem(1, 1);
  const int x = problem.AddAllocation("x", Domain::NonNegative());
  const VarId f = problem.AddLocal(BlockId::Demand(0), Domain::NonNegative());
  const VarId e = problem.AddEntry(x, 0, 0, EntryImage{f, 2.0, 0.5});
  EXPECT_EQ(problem.image(e).local, f);
  EXPECT_EQ(problem.image(e).scale, 2.0);
  EXPECT_EQ(problem.image(e).offset, 0.5);
  EXPECT_FALSE(problem.image(f).active());
  std::vector<double> values(2);
  values[f] = 1.0;
  values[e] = 2.5;
  EXPECT_EQ(problem.MeasureViolation(values).Max(), 0.0);
  values[e] = 3.0;
  const Problem::Violation v = problem.MeasureViolation(values);
  EXPECT_DOUBLE_EQ(v.constraint, 0.5);
  EXPECT_EQ(v.worst_image, e);
  EXPECT_EQ(v.worst_constraint, -1);
}

TEST(EntryImages, ValidationNamesTheEntryAndTheLocal) {
  {
    Problem problem(1, 2);
    const int x = problem.AddAllocation("x", Domain::NonNegative());
    const VarId f = problem.AddLocal(BlockId::Demand(1), Domain::NonNegative(), "f1");
    problem.AddEntry(x, 0, 0, EntryImage{f});
    std::string error;
    EXPECT_FALSE(problem.Validate(&error));
    EXPECT_EQ(error,
              "variable 1 (x[0,0]) is declared the image of variable 0 ('f1', local to demand "
              "1), which is not a local of demand 0");
  }
  {
    Problem problem(1, 1);
    const int x = problem.AddAllocation("x", Domain::NonNegative());
    const VarId f = problem.AddLocal(BlockId::Demand(0), Domain::NonNegative(), "f");
    problem.AddEntry(x, 0, 0, EntryImage{f, 0.0, 0.0});
    std::string error;
    EXPECT_FALSE(problem.Validate(&error));
    EXPECT_NE(error.find("the scale must be finite and non-zero"), std::string::npos) << error;
  }
  {
    // On its demand side an image entry is its local: a demand constraint names the local.
    Problem problem(1, 1);
    const int x = problem.AddAllocation("x", Domain::NonNegative());
    const VarId f = problem.AddLocal(BlockId::Demand(0), Domain::NonNegative(), "f");
    const VarId e = problem.AddEntry(x, 0, 0, EntryImage{f});
    problem.AddConstraint(
        BlockId::Demand(0), LinearExpr().Add(e, 1.0), Sense::kLessEqual, 1.0, "cap");
    std::string error;
    EXPECT_FALSE(problem.Validate(&error));
    EXPECT_EQ(error,
              "constraint 0 'cap' (demand 0) references variable 1 (x[0,0]), whose demand side "
              "is the image of variable 0 ('f', local to demand 0): write it on that local");
    // The resource side may use it.
    Problem ok(1, 1);
    const int y = ok.AddAllocation("x", Domain::NonNegative());
    const VarId g = ok.AddLocal(BlockId::Demand(0), Domain::NonNegative());
    const VarId h = ok.AddEntry(y, 0, 0, EntryImage{g});
    ok.AddConstraint(BlockId::Resource(0), LinearExpr().Add(h, 1.0), Sense::kLessEqual, 1.0);
    EXPECT_TRUE(ok.Validate(&error)) << error;
  }
}

}  // namespace
}  // namespace dede
