#include "plugin_options_doc.h"

#include "options_doc.h"
#include "plugin/plugin_loader.h"
#include "plugin/plugin_settings.h"

namespace dede::tools {
namespace {

std::string DefaultCell(const SettingSpec& spec) {
  if (spec.required) return "*required*";
  if (spec.has_default) return Code(spec.default_value);
  return Cell(spec.default_note);
}

void Rows(const std::vector<SettingSpec>& specs, const std::string& prefix, std::string* out) {
  for (const SettingSpec& spec : specs) {
    const std::string key = prefix + spec.name;
    *out += "| " + Code(key) + " | " + internal::SettingTypeName(spec.type) + " | " +
            DefaultCell(spec) + " | " + Code(internal::SettingBoundsText(spec)) + " | " +
            Cell(spec.doc) + " |\n";
    if (spec.type == SettingType::kSection) Rows(spec.fields, key + ".", out);
    if (spec.type == SettingType::kList) Rows(spec.fields, key + "[].", out);
  }
}

}  // namespace

std::string SettingsReference(const SettingsTable& table) {
  std::string out =
      "| Key | Type | Default | Bounds | Description |\n"
      "|-----|------|---------|--------|-------------|\n";
  Rows(table, "", &out);
  return out;
}

Result<std::string> PluginSettingsReference(const std::string& name,
                                            const std::vector<std::string>& extra_paths) {
  internal::PluginRegistry registry;
  for (const std::string& path : internal::PluginSearchPath(extra_paths)) (void)registry.Add(path);
  Result<internal::PluginInstance> plugin = registry.Create(name);
  if (!plugin.ok()) {
    std::string rejected;
    for (const auto& r : registry.rejected())
      rejected += "\n  rejected " + r.path + ": " + r.status.message();
    return Status(plugin.status().code(),
                  "plugin '" + name + "': " + plugin.status().message() + rejected);
  }
  std::string reference;
  Status status = internal::CallPlugin("Settings", plugin.value(), [&]() -> Status {
    const SettingsTable* table = plugin.value()->Settings();
    if (table == nullptr) {
      return FailedPrecondition("plugin '" + name +
                                "' declares no settings table (DomainPlugin::Settings); its "
                                "README documents its settings");
    }
    reference = SettingsReference(*table);
    return Status::Ok();
  });
  if (!status.ok()) return status;
  return reference;
}

}  // namespace dede::tools
