// YAML deployments: the only code that includes yaml-cpp.
//
// A deployment file names the plugin and its settings, the solver options, the round
// interval, the database and the stopping rule. Every key is in the option registry; unknown
// keys, wrong types and out-of-range values are reported with file, line and key before
// anything runs.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "dede/config_node.h"
#include "dede/solver.h"
#include "dede/status.h"

namespace dede::internal {

enum class OverrunPolicy : std::uint8_t { kSkip, kBackToBack };
enum class SolverKind : std::uint8_t { kAdmm, kExact, kPlugin };
// Where the first ADMM solve of a run starts: at zero, or at the plugin's repair of an
// all-zero allocation (a domain heuristic, e.g. greedy routing).
enum class ColdStart : std::uint8_t { kZero, kRepair };

struct DeploymentConfig {
  std::string file;                         // path of the YAML file
  std::string dir;                          // its directory; relative paths are resolved against it
  std::string text;                         // full text of the file
  std::string name;                         // deployment.name
  std::uint64_t seed = 0;                   // deployment.seed
  std::string plugin;                       // plugin.name
  std::vector<std::string> plugin_paths;    // plugin.paths: directories or .so files (resolved)
  ConfigNode plugin_settings;               // plugin.settings (Map, possibly empty)
  SolverKind solver = SolverKind::kAdmm;    // solver.kind: admm | exact | plugin
  std::string method = "none";              // solver.method: the plugin's method (kind plugin only)
  ColdStart cold_start = ColdStart::kZero;  // solver.cold_start: zero | repair (kind admm)
  AdmmOptions admm;                         // solver.admm.*   (keys = AdmmOptions field names)
  ExactOptions exact;                       // solver.exact.*  (keys = ExactOptions field names)
  double interval_seconds = 60;             // schedule.interval_seconds > 0
  OverrunPolicy overrun = OverrunPolicy::kSkip;  // schedule.overrun: skip | back_to_back
  bool simulated_time = false;  // schedule.simulated_time: rounds run back to back, time is virtual
  std::string database;         // storage.database (resolved; ":memory:" allowed)
  int keep_allocations = 0;     // storage.keep_allocations (0: every round's)
  int retention_keep_rounds = 0;                // storage.retention.keep_rounds (0: no limit)
  double retention_keep_days = 0;               // storage.retention.keep_days (0: no limit)
  int max_events_per_round = 10000;             // inbox.max_events_per_round (0: no cap)
  int max_rounds = 0;                           // stop.max_rounds (0: unlimited)
  double max_wall_seconds = 0;                  // stop.max_wall_seconds (0: unlimited)
  bool http_enabled = false;                    // http.enabled: the read-only status endpoint
  std::string http_address = "127.0.0.1";       // http.address
  int http_port = 8642;                         // http.port (0: any free port, logged)
  int http_threads = 1;                         // http.threads: serving threads
  double http_rate_limit_per_second = 10;       // http.rate_limit_per_second: per client
  int http_rate_limit_burst = 20;               // http.rate_limit_burst: per client
  int http_max_connections = 64;                // http.max_connections: open at once
  std::vector<std::string> http_allowed_hosts;  // http.allowed_hosts: Host names also served
  // The option keys the file or its overlays set (dotted, registry keys): what a plugin's
  // recommended settings must not override.
  std::vector<std::string> keys_set;
  // Deprecated keys the file or its overlays used, one line each ("file:line:column: key is
  // deprecated: ..."): the CLI logs them as warnings before it runs anything.
  std::vector<std::string> warnings;
};

// A key that was renamed or retired: it still loads, with a warning naming the replacement.
struct DeprecatedKey {
  std::string key;          // the old dotted key, "solver.admm.feasibility_tolerance"
  std::string replacement;  // the key that now holds its value; empty: retired, no effect
  std::string note;         // why, or what to use instead
};
const std::vector<DeprecatedKey>& DeprecatedKeys();

// A plugin's recommended setting (DomainPlugin::RecommendedSettings): `key` (a registry key
// under solver.) set to the YAML `value` unless the deployment set it. *applied says whether it
// was. Errors (an unknown key, a key outside solver., a bad value) name `origin` and the key.
Status ApplyRecommendedSetting(const std::string& key,
                               const std::string& value,
                               const std::string& origin,
                               DeploymentConfig* config,
                               bool* applied);

// One registry entry per option: generates validation, defaults and the reference text.
struct OptionInfo {
  std::string key;   // dotted YAML key, "solver.admm.rho"
  std::string type;  // "double", "int", "bool", "string", "choice", "map", "list"
  std::string default_value;
  std::string bounds;  // human-readable, "> 0", "[0, 2)", "admm|exact"
  std::string description;
  // "basic": what a deployment usually sets (`dede options` shows these); "advanced": tuning
  // and operations keys (`dede options --all`).
  std::string level = "advanced";
  // "set-up": read when the deployment (or the solver) is set up; changing it takes a restart
  // (`dede run` resumes), and AdmmSolver::SetOptions refuses a change of a solver.admm one.
  // "per solve": read by every solve; a host may change it between solves (SetOptions).
  std::string lifetime = "set-up";
  // Machine-readable form of `bounds`, for validation and tests.
  bool required = false;                                  // no default: the key must be present
  std::vector<std::string> choices;                       // type "choice": the allowed values
  double min = -std::numeric_limits<double>::infinity();  // numeric types
  double max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;  // value > min instead of >= min
  bool max_exclusive = false;  // value < max instead of <= max (with max = inf: finite)
  // Bounds of solver.admm.* are enforced by AdmmOptions::IsValid (the solver's own check),
  // whose message is reported at the offending key; the registry only documents them. Every
  // other entry's bounds are enforced by the registry.
  bool checked_by_options = false;
};
// In file order: deployment.*, plugin.*, solver.*, schedule.*, storage.*, stop.*.
const std::vector<OptionInfo>& OptionRegistry();

// Parses YAML into a ConfigNode tree (line/column kept). Errors name file:line:column.
Result<ConfigNode> ParseYamlFile(const std::string& path);
Result<ConfigNode> ParseYamlString(const std::string& text, const std::string& file_name);
// Parses `text` with yaml-cpp in a child process under a time (and memory) limit; "" if it
// finished (whatever it found), else why not. ParseYamlString calls it first (yaml-cpp 0.7
// loops forever on some malformed inputs).
std::string ProbeYamlInChild(const std::string& text);

// Loads and validates a deployment file. Every problem found is reported, one per line in
// file order, each starting "file:line:column: " and naming the key and the value.
//
// `overlays` ("solver.admm.rho=1e7", "plugin.settings.paths=[a, b]"; the value is YAML) are
// applied in order to the parsed file before it is checked, as if the file said so; a problem
// with an overlaid value names "--set" and the key. They are recorded with the deployment's
// text (config_yaml) as trailing comments.
Result<DeploymentConfig> LoadDeployment(const std::string& path,
                                        const std::vector<std::string>& overlays = {});

// Applies one overlay "a.b.c=value" to a parsed deployment (maps along the key are created as
// needed). Errors name the overlay.
Status ApplyOverlay(const std::string& overlay, ConfigNode* root);

// The whole of a text file; NotFound names the path if it does not exist.
Result<std::string> ReadTextFile(const std::string& path);

// The value of registry key `key` in `config`, as YAML text ("0.1", ".inf", "skip", "[a, b]").
Result<std::string> FormatOption(const DeploymentConfig& config, const std::string& key);

// The effective configuration as a YAML deployment file: every registry key with its value
// (paths resolved). Loading the result gives back the same configuration.
std::string RenderDeployment(const DeploymentConfig& config);

}  // namespace dede::internal
