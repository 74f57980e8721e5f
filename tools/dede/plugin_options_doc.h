// A plugin's settings reference, rendered from the table it declares (DomainPlugin::Settings,
// dede/settings.h): `dede options --plugin NAME`, and the generated settings table of each
// plugin's README (tools/ci/plugin_settings_docs.sh).
#pragma once

#include <string>
#include <vector>

#include "dede/settings.h"
#include "dede/status.h"

namespace dede::tools {

// A Markdown table with one row per key: key (nested keys dotted, the keys of a list's items as
// `list[].key`), type, default (*required* for a required key), bounds or choices, description.
std::string SettingsReference(const SettingsTable& table);

// The reference of plugin `name`, found on the plugin search path with `extra_paths` first.
// NotFound if there is no such plugin (with the rejected files), FailedPrecondition if it
// declares no table.
Result<std::string> PluginSettingsReference(const std::string& name,
                                            const std::vector<std::string>& extra_paths);

}  // namespace dede::tools
