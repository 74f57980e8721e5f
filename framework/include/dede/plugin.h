/// \file
/// The plugin SDK: what a domain plugin (a shared object) implements and exports.
///
/// \code
///   class MyDomain : public dede::DomainPlugin { ... };
///   DEDE_DECLARE_PLUGIN(MyDomain, "my_domain", "0.1.0")
/// \endcode
///
/// A plugin sees framework types only (Problem, Allocation, ConfigNode, Status): no yaml-cpp,
/// Clp, SQLite or Asio. It links dede::plugin_sdk and is loaded by the runtime with
/// boost::dll; the exported C symbol returns a descriptor that the loader checks (ABI version,
/// struct size and alignment, toolchain) before any C++ object crosses the boundary.
#pragma once

#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "dede/config_node.h"
#include "dede/problem.h"
#include "dede/settings.h"
#include "dede/solver.h"
#include "dede/status.h"

namespace dede {

/// Bumped on any incompatible change of the types below or of the model they pass; the compiler
/// checks their layouts against it (dede/abi_layout.h); each version's changes: docs/abi.md.
inline constexpr std::uint32_t kPluginAbiVersion = 11;

#define DEDE_PLUGIN_STRINGIFY2(x) #x
#define DEDE_PLUGIN_STRINGIFY(x) DEDE_PLUGIN_STRINGIFY2(x)
// Compiler and standard library: C++ objects cross the boundary, so both must match.
#if defined(__clang__)
#define DEDE_PLUGIN_COMPILER "clang-" DEDE_PLUGIN_STRINGIFY(__clang_major__)
#elif defined(__GNUC__)
#define DEDE_PLUGIN_COMPILER "gcc-" DEDE_PLUGIN_STRINGIFY(__GNUC__)
#else
#define DEDE_PLUGIN_COMPILER "unknown"
#endif
#if defined(_GLIBCXX_USE_CXX11_ABI) && _GLIBCXX_USE_CXX11_ABI
#define DEDE_PLUGIN_STDLIB "libstdc++-cxx11"
#elif defined(_LIBCPP_VERSION)
#define DEDE_PLUGIN_STDLIB "libc++"
#else
#define DEDE_PLUGIN_STDLIB "libstdc++-old"
#endif
#define DEDE_PLUGIN_TOOLCHAIN DEDE_PLUGIN_COMPILER "/" DEDE_PLUGIN_STDLIB

struct PluginContext {
  std::string config_file;  ///< the deployment file
  std::string config_dir;   ///< its directory: resolve relative data paths against it
  std::uint64_t seed = 0;   ///< deployment seed, for plugins that generate data
};

struct Metric {
  std::string name;
  double value = 0.0;
};

/// A resource or demand as the domain names it, with its parameters in this round
/// (capacity, volume, weight, ...). Persisted so analysts can join allocations with them.
struct EntityRecord {
  Side side = Side::kResource;
  int index = 0;
  std::string name;
  std::vector<std::pair<std::string, double>> parameters;
};

/// A domain object of the round that is neither a resource nor a demand of the problem (a
/// simulated job, a placement, a timer, ...). Persisted in table domain_records with its values
/// and labels as one JSON object, so analysts can query it with json_extract(data, '$.field').
struct DomainRecord {
  std::string kind;  ///< "job", "placement", ...: one kind per table-like family
  std::string key;   ///< unique within (round, kind)
  std::vector<std::pair<std::string, double>> values;       ///< NaN and infinities become null
  std::vector<std::pair<std::string, std::string>> labels;  ///< text fields
};

struct RoundReport {
  std::vector<Metric> metrics;         ///< domain metrics of the round
  std::vector<EntityRecord> entities;  ///< resources and demands with their parameters
  std::vector<DomainRecord> records;   ///< other domain objects of the round
};

/// A method the plugin implements itself: a baseline or heuristic (POP-k, greedy, demand
/// pinning, ...), selected in a deployment with `solver.kind: plugin` and `solver.method`.
struct MethodInfo {
  std::string name;         ///< "pop-16"
  std::string description;  ///< one line for `dede plugins` and error messages
};

/// The host's solvers, lent to a plugin method (a plugin links dede_core only). Each call
/// solves `problem` and returns a Status for setup errors; the solver's own outcome
/// (infeasible, time limit, ...) is in the summary. `admm` starts warm from *allocation when it
/// holds one value per variable on entry (duals at zero, as AdmmSolver::WarmStart), cold
/// otherwise. Safe to call from several threads at once on different problems.
struct SolverServices {
  std::function<Status(const Problem&, const AdmmOptions&, Allocation*, SolveSummary*)> admm;
  std::function<Status(const Problem&, const ExactOptions&, Allocation*, SolveSummary*)> exact;
  AdmmOptions admm_options;    ///< the deployment's solver.admm.* (threads, budgets, ...)
  ExactOptions exact_options;  ///< the deployment's solver.exact.* (time limit, ...)
  std::stop_token stop;        ///< requested on shutdown: return early with kCancelled
};

/// An external event from the deployment's inbox (table `events`, `dede submit`): something
/// that happened now, which the plugin folds into its state from the round it is applied in.
struct Event {
  std::int64_t id = 0;  ///< the inbox row: errors name it ("event 17: payload.capacity ...")
  std::string kind;     ///< one of the plugin's EventKinds()
  std::string target;   ///< what it is about, in the kind's terms ("3->7", a job id)
  ConfigNode payload;   ///< the JSON object as a map: typed reads name "event 17" and the field
  int apply_from_round = 0;
  std::string writer;
  /// True when a resumed run re-applies an event an earlier run applied (see ApplyEvent).
  bool replay = false;
};

/// A file a plugin can write for other tools (`dede export CONFIG NAME FILE`), e.g. the traffic
/// engineering plugin's paths, so that another solver works on exactly the same model.
struct ExportInfo {
  std::string name;         ///< "paths"
  std::string description;  ///< one line: what the file holds and its format
};

/// An event kind a plugin accepts, for `dede plugins` and the docs.
struct EventKind {
  std::string name;         ///< "link_fail"
  std::string target;       ///< what `target` must name: "a->b (node ids or names)"
  std::string payload;      ///< fields of the payload: "{capacity: number >= 0}"
  std::string description;  ///< one line
};

class DomainPlugin {
 public:
  virtual ~DomainPlugin() = default;
  /// Reads the plugin's own `settings` section of the deployment. A plugin that declares its
  /// keys (Settings(), since ABI 11) gets the section checked against the table and completed
  /// with the defaults, and keeps here only its domain logic (cross-field checks, files); one
  /// that does not must reject unknown keys (ConfigNode::CheckKeys) and out-of-range values
  /// itself, with messages that name file and key.
  virtual Status Configure(const ConfigNode& settings, const PluginContext& context) = 0;
  /// Declares resources, demands, variables, constraints and the objective. Called once,
  /// after Configure; the structure is fixed afterwards.
  virtual Status Describe(Problem* problem) = 0;
  /// Loads or refreshes the state of `round` (0-based) and writes it into the problem with the
  /// Problem::Set* parameter methods. Must be a function of the round number, the
  /// configuration and the state handed to RestoreState (not of other earlier calls), so a
  /// restarted deployment resumes exactly.
  /// Sets *finished when there is no data for this round (the deployment then stops).
  virtual Status Refresh(int round, Problem* problem, bool* finished) = 0;
  /// Optional domain repair of the solver's allocation (after the framework's own).
  virtual Status Repair(const Problem& problem, Allocation* allocation) {
    (void)problem;
    (void)allocation;
    return Status::Ok();
  }
  /// Turns the allocation into domain metrics and entity records.
  virtual Status Report(int round,
                        const Problem& problem,
                        const Allocation& allocation,
                        RoundReport* report) = 0;

  // --- Since ABI 2 -----------------------------------------------------------------------
  /// The plugin's own methods (baselines, heuristics). Names are lower-case, unique.
  virtual std::vector<MethodInfo> Methods() const { return {}; }
  /// Solves the refreshed problem of `round` with one of Methods(). Must fill a full
  /// allocation (problem.num_variables() values) and the summary (termination, method,
  /// total_seconds at least); the runner then repairs, measures and reports as for ADMM.
  virtual Status SolveWith(const std::string& method,
                           int round,
                           const Problem& problem,
                           const SolverServices& services,
                           Allocation* allocation,
                           SolveSummary* summary) {
    (void)round;
    (void)problem;
    (void)services;
    (void)allocation;
    (void)summary;
    return Status(StatusCode::kInvalidArgument, "this plugin has no method '" + method + "'");
  }
  /// Checkpointing for stateful domains (simulators). After Report, the runner asks for the
  /// state and commits it in the same transaction as the round; on resume it hands the last
  /// committed round's state back before the next Refresh. Stateless plugins keep the defaults.
  virtual Status SaveState(int round, std::string* state) {
    (void)round;
    state->clear();
    return Status::Ok();
  }
  virtual Status RestoreState(int last_round, const std::string& state) {
    (void)last_round;
    (void)state;
    return Status::Ok();
  }

  // --- Since ABI 3 -----------------------------------------------------------------------
  /// The event kinds the plugin accepts (empty: none; every event is then rejected).
  virtual std::vector<EventKind> EventKinds() const { return {}; }
  /// Applies one event before Refresh(round): from this round on, the plugin's data follow it.
  /// An event that is invalid for the domain (unknown target, bad payload) is rejected: set
  /// *rejection to the reason (naming the field) and leave the state unchanged; the deployment
  /// goes on. A non-ok Status is a failure of the plugin itself and stops the deployment.
  /// Called in inbox order; the runner records each outcome with the round, in its transaction.
  /// Resume: after Describe and before RestoreState, the runner re-applies every event applied
  /// in earlier rounds, in the order they were applied (round, then inbox id), with replay =
  /// true, each with the round it was applied in. A plugin whose SaveState carries an event's
  /// whole effect ignores the replay; others apply it again (an overlay of their data, a slot
  /// the checkpoint then finds filled).
  virtual Status ApplyEvent(int round, const Event& event, std::string* rejection) {
    (void)round;
    (void)event;
    *rejection = "this plugin accepts no events";
    return Status::Ok();
  }

  // --- Since ABI 5 -----------------------------------------------------------------------
  /// True if Repair turns any allocation into one that satisfies every constraint of the
  /// problem (capping, scaling, rerouting): the host then skips its own feasibility repair of
  /// ADMM's allocation (alternating projections, a half step's cost per projection round on a
  /// large instance) and leaves it to the plugin. False (the default): the host repairs first.
  virtual bool RepairMakesFeasible() const { return false; }

  // --- Since ABI 6 -----------------------------------------------------------------------
  /// Solver settings this plugin recommends for its configured problem, as (dotted key, YAML
  /// value) pairs, each key under solver: {"solver.admm.final_iterate", "resource"}. Asked after
  /// Configure and Describe (so a value may follow the instance's scale); the host applies each one
  /// the deployment file and its --set overlays leave unset, says so in its log, and notes it in
  /// the stored deployment text. An explicit key always wins.
  virtual std::vector<std::pair<std::string, std::string>> RecommendedSettings() const {
    return {};
  }
  /// The files Export can write (empty: none).
  virtual std::vector<ExportInfo> Exports() const { return {}; }
  /// Writes export `name` of the configured and described deployment (after Configure and
  /// Describe, before any Refresh) to `file`. Errors name the file.
  virtual Status Export(const std::string& name, const std::string& file) {
    (void)file;
    return Status(StatusCode::kInvalidArgument, "this plugin has no export '" + name + "'");
  }

  // --- Since ABI 9 -----------------------------------------------------------------------
  /// Whether Repair is a function of the problem's state and its input alone (true, the
  /// default): the host then also repairs other candidates of a round (the plugin's repair of
  /// nothing, the previous round's allocation) and returns the best feasible one, so a round is
  /// never worse than its seed (SolveSummary::returned). A plugin whose Repair acts (advances a
  /// simulator, commits a placement) says false: its Repair then runs once a round, on the
  /// solver's answer, as before.
  virtual bool RepairIsPure() const { return true; }

  // --- Since ABI 11 ----------------------------------------------------------------------
  /// The keys of the plugin's `settings` section (dede/settings.h): the host checks the section
  /// against them before Configure and fills their defaults; `dede options --plugin NAME` prints
  /// them. The table must outlive the plugin object (a function-local static). nullptr (the
  /// default): the plugin checks its section itself in Configure.
  virtual const SettingsTable* Settings() const { return nullptr; }
};

/// Standard layout; append fields, never reorder.
struct PluginDescriptor {
  std::uint32_t abi_version;       ///< kPluginAbiVersion as the plugin saw it
  std::uint32_t descriptor_size;   ///< sizeof(PluginDescriptor) as the plugin saw it
  std::uint32_t descriptor_align;  ///< alignof(PluginDescriptor)
  const char* toolchain;           ///< DEDE_PLUGIN_TOOLCHAIN
  const char* name;                ///< "traffic_engineering"
  const char* plugin_version;      ///< the plugin's own semver
  DomainPlugin* (*create)();       ///< factory ...
  void (*destroy)(DomainPlugin*);  ///< ... and deleter from the same library
};
static_assert(std::is_standard_layout_v<PluginDescriptor>);

inline constexpr const char* kPluginEntryPoint = "dede_plugin_descriptor_v1";

}  // namespace dede

#define DEDE_PLUGIN_EXPORT __attribute__((visibility("default")))

#define DEDE_DECLARE_PLUGIN(Class, Name, Version)                                               \
  static_assert(std::is_base_of_v<::dede::DomainPlugin, Class>,                                 \
                "DEDE_DECLARE_PLUGIN: " #Class " must derive from dede::DomainPlugin");         \
  static_assert(std::is_default_constructible_v<Class>,                                         \
                "DEDE_DECLARE_PLUGIN: " #Class " must be default-constructible");               \
  static_assert(sizeof(Name) > 1, "DEDE_DECLARE_PLUGIN: the name must be a non-empty literal"); \
  extern "C" DEDE_PLUGIN_EXPORT const ::dede::PluginDescriptor* dede_plugin_descriptor_v1() {   \
    static const ::dede::PluginDescriptor descriptor{                                           \
        ::dede::kPluginAbiVersion,                                                              \
        static_cast<std::uint32_t>(sizeof(::dede::PluginDescriptor)),                           \
        static_cast<std::uint32_t>(alignof(::dede::PluginDescriptor)),                          \
        DEDE_PLUGIN_TOOLCHAIN,                                                                  \
        Name,                                                                                   \
        Version,                                                                                \
        []() -> ::dede::DomainPlugin* { return new Class(); },                                  \
        [](::dede::DomainPlugin* p) { delete p; }};                                             \
    return &descriptor;                                                                         \
  }

// The layouts of the types above, checked against kPluginAbiVersion.
#include "dede/abi_layout.h"  // IWYU pragma: export
