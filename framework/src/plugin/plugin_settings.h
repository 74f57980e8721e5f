// The host's side of declarative plugin settings (dede/settings.h): checks a deployment's
// `plugin.settings` section against the plugin's table and completes it with the defaults,
// before the plugin's Configure sees it.
//
//   std::vector<DefaultedSetting> defaulted;
//   Result<ConfigNode> checked = CheckSettings(*plugin->Settings(), config.plugin_settings,
//                                              &defaulted);
//   if (!checked.ok()) return checked.status();   // every problem, one per line
//   plugin->Configure(checked.value(), context);
#pragma once

#include <string>
#include <vector>

#include "dede/config_node.h"
#include "dede/plugin.h"
#include "dede/settings.h"
#include "dede/status.h"

namespace dede::internal {

// A key the host filled from the table: "plugin.settings.num_paths" and its YAML value "4".
struct DefaultedSetting {
  std::string key;
  std::string value;
};

// Checks `section` (a map, or null for an absent section) against `table`. On success returns
// the section with every absent key that has a default filled in (inside nested sections that
// are present and inside each item of a list of maps), each filled key appended to *defaulted
// in table order. Otherwise an InvalidArgument listing every problem, one per line in the
// section's order: unknown key, wrong type, out of bounds, not one of the choices, missing
// required key, each naming file:line:column, the dotted key and the value.
Result<ConfigNode> CheckSettings(const SettingsTable& table,
                                 const ConfigNode& section,
                                 std::vector<DefaultedSetting>* defaulted);

// The host's step before Describe: the plugin's table (if it declares one) -> CheckSettings ->
// Configure with the completed section. *defaulted (optional) gets the filled keys (none for a
// plugin without a table, which gets `section` unchanged). Guarding against what the plugin
// throws (CallPlugin) is the caller's.
Status ConfigureWithSettings(DomainPlugin* plugin,
                             const ConfigNode& section,
                             const PluginContext& context,
                             std::vector<DefaultedSetting>* defaulted = nullptr);

// "num_paths: 4, scale: 1" (keys relative to plugin.settings) for the log.
std::string DescribeDefaulted(const std::vector<DefaultedSetting>& defaulted);

// Text of a table's bounds for a key ("[1, 64]", "> 0", "finite"), "" if it has none.
std::string SettingBoundsText(const SettingSpec& spec);
// "int", "double", "bool", "string", "choice", "string or list", "list", "section", "map".
const char* SettingTypeName(SettingType type);

}  // namespace dede::internal
