// The traffic_engineering plugin's settings: the declared table of `plugin.settings` (checked
// and completed by the host) and what Configure reads from it, resolved against the
// deployment's directory. One of the three parts the plugin composes (te_plugin.h): settings
// (this), the network model (te_network.h) and the round state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dede/plugin.h"
#include "te_data.h"
#include "te_model.h"
#include "te_traffic.h"

namespace dede::te {

// A link event as configured, resolved against the topology in Describe.
struct RawLinkEvent {
  int round = 0;
  std::string link;  // "a->b" (node ids) or a link index
  bool fail = true;
  std::string where;  // "file:line:col: plugin.settings.link_events[i].link = '...'"
};

// What plugin.settings configures (paths resolved). Fixed after Configure, except num_rounds
// of a traffic series (its rows are counted in Describe, when the topology is known).
struct TeSettings {
  std::string topology_file, paths_file;  // paths_file empty: paths computed
  TopologyOptions topology_options;
  int num_paths = 0;
  std::vector<std::string> matrix_files;  // traffic_matrices, in natural order
  std::string series_file;                // traffic_series (empty: none)
  int series_first_row = 0, series_rows = -1;
  TrafficSpec traffic;  // when generated (traffic.enabled)
  RobustnessSpec robustness;
  std::vector<RawLinkEvent> raw_events;
  Objective objective = Objective::kMaxTotalFlow;
  double scale = 1.0;
  double pop_split_fraction = 0.0;
  double pinning_top_fraction = 0.0;
  bool record_paths = false;
  bool record_paths_set = false;  // otherwise: paths recorded when there are <= 20,000
  bool repair_fill = true;
  int polish_sweeps = 0;
  double polish_seconds = 0.0;   // 0: the sweeps alone bound the polish
  std::string path_cache_dir;    // empty: no cache
  bool per_pair_blocks = false;  // demand_blocks: pair (else source)
  std::uint64_t seed = 0;        // the deployment's
  int num_rounds = 0;            // rounds of data (matrices, generated rounds, series rows)
};

// The keys of plugin.settings (TrafficEngineeringPlugin::Settings).
const SettingsTable& TeSettingsTable();

// Reads a checked and completed section (CheckSettings against TeSettingsTable()) and does the
// domain's own checks: exactly one traffic source, the series' row keys only with a series, the
// matrix directory and its files, the pattern only with a directory, the generator's and the
// robustness perturbations' cross-field rules.
Status ReadTeSettings(const ConfigNode& settings, const PluginContext& context, TeSettings* out);

}  // namespace dede::te
