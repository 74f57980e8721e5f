// Deployment files: YAML -> ConfigNode -> DeploymentConfig, checked against the option
// registry (config/option_spec.h, listed in option_specs.cpp), and rendered back.
#include "config/deployment.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <functional>
#include <set>
#include <utility>

#include "config/option_spec.h"

namespace dede::internal {
namespace {

std::vector<std::string> Split(const std::string& key) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = key.find('.', start);
    parts.push_back(key.substr(start, dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

// Sections ("", "solver", "solver.admm", ...) and the keys allowed in each, in registry order.
const std::vector<std::pair<std::string, std::vector<std::string>>>& Sections() {
  static const auto sections = [] {
    std::vector<std::pair<std::string, std::vector<std::string>>> out;
    auto add = [&out](const std::string& section, const std::string& child) {
      auto it =
          std::find_if(out.begin(), out.end(), [&](const auto& s) { return s.first == section; });
      if (it == out.end()) {
        out.emplace_back(section, std::vector<std::string>{});
        it = std::prev(out.end());
      }
      if (std::find(it->second.begin(), it->second.end(), child) == it->second.end()) {
        it->second.push_back(child);
      }
    };
    std::vector<std::string> keys;
    for (const Spec& spec : Specs()) keys.push_back(spec.info.key);
    for (const DeprecatedKey& old : DeprecatedKeys()) keys.push_back(old.key);
    for (const std::string& key : keys) {
      const std::vector<std::string> parts = Split(key);
      std::string section;
      for (const std::string& part : parts) {
        add(section, part);
        section = section.empty() ? part : section + "." + part;
      }
    }
    return out;
  }();
  return sections;
}

const std::vector<std::string>* AllowedKeys(const std::string& section) {
  for (const auto& [name, keys] : Sections()) {
    if (name == section) return &keys;
  }
  return nullptr;
}

struct Problem {
  int line = 0;
  std::string message;
};

// The keys of `section` an error message offers: the allowed ones but the deprecated (they
// load, with a warning, but are not suggested).
std::vector<std::string> Offered(const std::string& section,
                                 const std::vector<std::string>& allowed) {
  std::vector<std::string> offered;
  for (const std::string& name : allowed) {
    const std::string dotted = section.empty() ? name : section + "." + name;
    if (std::none_of(DeprecatedKeys().begin(),
                     DeprecatedKeys().end(),
                     [&](const DeprecatedKey& old) { return old.key == dotted; }))
      offered.push_back(name);
  }
  return offered;
}

// Unknown keys and sections that are not maps, everywhere except inside map-typed options.
void CheckStructure(const ConfigNode& node, std::vector<Problem>* problems) {
  const std::vector<std::string>* allowed = AllowedKeys(node.path());
  if (allowed == nullptr || node.IsNull()) return;
  if (!node.IsMap()) {
    problems->push_back(
        {node.line(),
         node.Where() + ": " + (node.path().empty() ? "the deployment" : node.path()) +
             (node.IsScalar() ? " = '" + node.scalar() + "'" : std::string()) +
             ": expected a map with keys " + Join(Offered(node.path(), *allowed), ", ")});
    return;
  }
  for (const auto& [key, value] : node.entries()) {
    if (std::find(allowed->begin(), allowed->end(), key) == allowed->end()) {
      // One map with only this key gives CheckKeys' message for exactly this entry.
      ConfigNode single = ConfigNode::Map(node.file(), node.line(), node.column(), node.path());
      single.Insert(key, value);
      problems->push_back({value.line() > 0 ? value.line() : node.line(),
                           single.CheckKeys(Offered(node.path(), *allowed)).message()});
      continue;
    }
    if (!value.IsNull()) CheckStructure(value, problems);
  }
}

// Walks the sections of `key` from `root`. Returns the parent map of the leaf, or nullptr if a
// section is absent, empty or not a map; *deepest is the last section that exists.
const ConfigNode* FindParent(const ConfigNode& root,
                             const std::string& key,
                             const ConfigNode** deepest,
                             const ConfigNode** located) {
  const std::vector<std::string> parts = Split(key);
  const ConfigNode* node = &root;
  *deepest = node;
  *located = node;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    const ConfigNode* next = node->IsMap() ? node->Find(parts[i]) : nullptr;
    if (next == nullptr) return nullptr;
    node = next;
    *deepest = node;
    if (node->line() > 0) *located = node;
    if (!node->IsMap()) return nullptr;
  }
  return node;
}

// "solver.admm" for the deepest existing section of key "solver.admm.rho" (paths of null
// nodes are empty, so they are rebuilt from the key).
std::string SectionPath(const std::string& key, const ConfigNode& root, const ConfigNode* deepest) {
  if (deepest == &root) return "";
  const std::vector<std::string> parts = Split(key);
  const ConfigNode* node = &root;
  std::string path;
  for (std::size_t i = 0; i + 1 < parts.size() && node != deepest; ++i) {
    node = node->Find(parts[i]);
    path = path.empty() ? parts[i] : path + "." + parts[i];
  }
  return path;
}

// The node of dotted `key` in `root`, or nullptr.
const ConfigNode* FindKey(const ConfigNode& root, const std::string& key) {
  const ConfigNode* deepest = nullptr;
  const ConfigNode* located = nullptr;
  const ConfigNode* parent = FindParent(root, key, &deepest, &located);
  return parent != nullptr ? parent->Find(Split(key).back()) : nullptr;
}

// Where `key` of `spec` is given: its own place, or a deprecated key it replaces (each use
// noted in config->warnings). Two places that disagree are a problem; *parent is null when
// the key is given nowhere.
void FindGiven(const ConfigNode& root,
               const Spec& spec,
               DeploymentConfig* config,
               std::vector<Problem>* problems,
               const ConfigNode** parent,
               std::string* leaf) {
  const ConfigNode* deepest = nullptr;
  const ConfigNode* located = nullptr;
  *parent = FindParent(root, spec.info.key, &deepest, &located);
  *leaf = Split(spec.info.key).back();
  const ConfigNode* given = *parent != nullptr ? (*parent)->Find(*leaf) : nullptr;
  if (given == nullptr) *parent = nullptr;
  for (const DeprecatedKey& old : DeprecatedKeys()) {
    if (old.replacement != spec.info.key) continue;
    const ConfigNode* node = FindKey(root, old.key);
    if (node == nullptr) continue;
    config->warnings.push_back(node->Where() + ": " + old.key + " is deprecated (" + old.note +
                               "): use " + spec.info.key);
    if (given == nullptr) {
      given = node;
      *parent = FindParent(root, old.key, &deepest, &located);
      *leaf = Split(old.key).back();
    } else if (!(node->IsScalar() && given->IsScalar() && node->scalar() == given->scalar())) {
      problems->push_back({node->line(),
                           node->Where() + ": " + old.key + " = '" +
                               (node->IsScalar() ? node->scalar() : "...") + "' disagrees with " +
                               given->path() + " = '" +
                               (given->IsScalar() ? given->scalar() : "...") + "' (" +
                               given->Where() + "): give " + spec.info.key + " once"});
    }
  }
}

// Retired keys: accepted, with a warning that they do nothing.
void NoteRetiredKeys(const ConfigNode& root, DeploymentConfig* config) {
  for (const DeprecatedKey& old : DeprecatedKeys()) {
    if (!old.replacement.empty()) continue;
    if (const ConfigNode* node = FindKey(root, old.key); node != nullptr) {
      config->warnings.push_back(node->Where() + ": " + old.key + " is deprecated: " + old.note);
    }
  }
}

// Keys that set more than one solver's field: the exact solver's copies follow the ADMM's.
void ShareSolverKeys(DeploymentConfig* config) {
  config->exact.fill_after_max_min = config->admm.fill_after_max_min;
  config->exact.fill_slack = config->admm.fill_slack;
}

// The solver section's checks across keys: AdmmOptions::IsValid (reported at its key) and
// solver.method going with solver.kind: plugin only.
void CheckSolverKeys(const ConfigNode& root,
                     const DeploymentConfig& config,
                     std::vector<Problem>* out) {
  std::vector<Problem>& problems = *out;
  std::string why;
  if (!config.admm.IsValid(&why)) {
    // "AdmmOptions::relaxation = 2.5. Violated constraint: ..." -> report at
    // solver.admm.relaxation.
    const std::string prefix = "AdmmOptions::";
    std::string field;
    if (why.rfind(prefix, 0) == 0) {
      field = why.substr(prefix.size(), why.find(' ') - prefix.size());
    }
    const std::string key = "solver.admm." + field;
    const ConfigNode* deepest = nullptr;
    const ConfigNode* located = nullptr;
    const ConfigNode* parent = FindParent(root, key, &deepest, &located);
    const ConfigNode* node = parent != nullptr ? parent->Find(field) : nullptr;
    const ConfigNode& at = node != nullptr && node->line() > 0 ? *node : *located;
    problems.push_back(
        {at.line(), at.Where() + ": " + key + (node != nullptr ? "" : " (default)") + ": " + why});
  }

  // solver.method goes with solver.kind: plugin, and only with it.
  {
    const ConfigNode* solver = root.Find("solver");
    const ConfigNode* kind = solver != nullptr && solver->IsMap() ? solver->Find("kind") : nullptr;
    const ConfigNode* method =
        solver != nullptr && solver->IsMap() ? solver->Find("method") : nullptr;
    if (config.solver == SolverKind::kPlugin && config.method == "none") {
      const ConfigNode& at = kind != nullptr ? *kind : root;
      problems.push_back({at.line(),
                          at.Where() + ": solver.kind = 'plugin' needs solver.method "
                                       "(the plugin's method to run; `dede plugins` lists them)"});
    } else if (config.solver != SolverKind::kPlugin && config.method != "none") {
      const ConfigNode& at = method != nullptr ? *method : root;
      problems.push_back({at.line(),
                          at.Where() + ": solver.method = '" + config.method +
                              "' is only used with solver.kind: "
                              "plugin (solver.kind is '" +
                              (config.solver == SolverKind::kAdmm ? "admm" : "exact") + "')"});
    }
  }
}

}  // namespace

const std::vector<OptionInfo>& OptionRegistry() {
  static const std::vector<OptionInfo> registry = [] {
    std::vector<OptionInfo> out;
    for (const Spec& spec : Specs()) out.push_back(spec.info);
    return out;
  }();
  return registry;
}

namespace {

// The node `from` (parsed from an overlay's value) as the value of `path`, every node of it
// located at "--set" and named by its own dotted path.
ConfigNode Rebase(const ConfigNode& from, const std::string& path) {
  static const std::string kWhere = "--set";
  switch (from.kind()) {
    case ConfigNode::Kind::kScalar:
      return ConfigNode::Scalar(from.scalar(), kWhere, 0, 0, path);
    case ConfigNode::Kind::kList: {
      ConfigNode list = ConfigNode::List(kWhere, 0, 0, path);
      for (std::size_t i = 0; i < from.items().size(); ++i)
        list.Append(Rebase(from.items()[i], path + "[" + std::to_string(i) + "]"));
      return list;
    }
    case ConfigNode::Kind::kMap: {
      ConfigNode map = ConfigNode::Map(kWhere, 0, 0, path);
      for (const auto& [key, value] : from.entries())
        map.Insert(key, Rebase(value, path + "." + key));
      return map;
    }
    default:
      return ConfigNode();
  }
}

bool ValidKeySegment(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  return true;
}

}  // namespace

Status ApplyOverlay(const std::string& overlay, ConfigNode* root) {
  const std::size_t eq = overlay.find('=');
  const std::string where = "--set " + overlay;
  if (eq == std::string::npos || eq == 0)
    return InvalidArgument(where + ": expected KEY=VALUE, e.g. solver.admm.rho=1e7");
  const std::string key = overlay.substr(0, eq), value = overlay.substr(eq + 1);
  std::vector<std::string> segments;
  for (std::size_t start = 0;;) {
    const std::size_t dot = key.find('.', start);
    segments.push_back(
        key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (!ValidKeySegment(segments.back()))
      return InvalidArgument(where + ": key '" + key +
                             "': dotted names of letters, digits, '_' and '-' expected");
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  // The value is YAML (a number, a string, [a, b], {k: v}), parsed as a mapping's value.
  Result<ConfigNode> parsed = ParseYamlString("v: " + value + "\n", "--set " + key);
  if (!parsed.ok())
    return InvalidArgument(where + ": the value is not YAML: " + parsed.status().message());
  const ConfigNode* parsed_value = parsed.value().Find("v");
  if (parsed_value == nullptr) return InvalidArgument(where + ": the value is not YAML");
  if (root->IsNull()) *root = ConfigNode::Map("--set", 0, 0, "");
  ConfigNode* node = root;
  std::string path;
  for (std::size_t i = 0; i + 1 < segments.size(); ++i) {
    path += (path.empty() ? "" : ".") + segments[i];
    if (!node->IsMap())
      return InvalidArgument(where + ": '" + path.substr(0, path.rfind('.')) + "' is not a map");
    ConfigNode* child = node->FindMutable(segments[i]);
    if (child == nullptr || child->IsNull()) {
      node->Set(segments[i], ConfigNode::Map("--set", 0, 0, path));
      child = node->FindMutable(segments[i]);
    }
    node = child;
  }
  if (!node->IsMap())
    return InvalidArgument(where + ": '" + path + "' is not a map (it is " +
                           (node->IsList() ? "a list" : "a value") + " in the file)");
  path += (path.empty() ? "" : ".") + segments.back();
  node->Set(segments.back(), Rebase(*parsed_value, path));
  return Status::Ok();
}

Result<DeploymentConfig> LoadDeployment(const std::string& path,
                                        const std::vector<std::string>& overlays) {
  Result<std::string> text = ReadTextFile(path);
  if (!text.ok()) return text.status();
  Result<ConfigNode> parsed = ParseYamlString(text.value(), path);
  if (!parsed.ok()) return parsed.status();
  for (const std::string& overlay : overlays) {
    Status applied = ApplyOverlay(overlay, &parsed.value());
    if (!applied.ok()) return applied;
  }
  if (!overlays.empty()) {
    text.value() += "\n# Overlaid on the command line (--set):\n";
    for (const std::string& overlay : overlays) text.value() += "#   " + overlay + "\n";
  }
  const ConfigNode& root = parsed.value();

  DeploymentConfig config;
  config.file = path;
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  if (ec) absolute = path;
  config.dir = absolute.lexically_normal().parent_path().string();
  config.text = std::move(text.value());

  if (root.IsNull()) {
    return InvalidArgument(path +
                           ": the file is empty; a deployment needs at least deployment.name, "
                           "plugin.name and storage.database");
  }
  if (!root.IsMap()) {
    return InvalidArgument(root.Where() + ": expected a map with keys " +
                           Join(*AllowedKeys(""), ", ") + " at the top level");
  }

  std::vector<Problem> problems;
  CheckStructure(root, &problems);

  // plugin.settings is always a located map, so plugins' messages name the file even when the
  // section is empty or absent.
  {
    const ConfigNode* plugin = root.Find("plugin");
    const ConfigNode& at = plugin != nullptr && plugin->line() > 0 ? *plugin : root;
    config.plugin_settings = ConfigNode::Map(path, at.line(), at.column(), "plugin.settings");
  }

  NoteRetiredKeys(root, &config);
  for (const Spec& spec : Specs()) {
    const ConfigNode* deepest = nullptr;
    const ConfigNode* located = nullptr;
    (void)FindParent(root, spec.info.key, &deepest, &located);
    const ConfigNode* parent = nullptr;
    std::string leaf;
    FindGiven(root, spec, &config, &problems, &parent, &leaf);
    const ConfigNode* node = parent != nullptr ? parent->Find(leaf) : nullptr;
    if (node == nullptr) {
      // A section that exists but is not a map was reported by CheckStructure.
      const bool broken_section = !deepest->IsMap() && !deepest->IsNull();
      if (spec.info.required && !broken_section) {
        const std::string section = SectionPath(spec.info.key, root, deepest);
        const std::string relative =
            section.empty() ? spec.info.key : spec.info.key.substr(section.size() + 1);
        problems.push_back({located->line(),
                            located->Where() + ": missing required key '" + relative + "' " +
                                (section.empty() ? "at the top level" : "in " + section)});
      }
      continue;
    }
    config.keys_set.push_back(spec.info.key);
    if (Status status = spec.read(*parent, leaf, config.dir, &config); !status.ok()) {
      problems.push_back({node->line() > 0 ? node->line() : parent->line(), status.message()});
    }
  }

  ShareSolverKeys(&config);
  CheckSolverKeys(root, config, &problems);

  if (!problems.empty()) {
    std::stable_sort(problems.begin(), problems.end(), [](const Problem& a, const Problem& b) {
      return a.line < b.line;
    });
    std::string message;
    for (const Problem& problem : problems) {
      message += (message.empty() ? "" : "\n") + problem.message;
    }
    return InvalidArgument(message);
  }
  return config;
}

Status ApplyRecommendedSetting(const std::string& key,
                               const std::string& value,
                               const std::string& origin,
                               DeploymentConfig* config,
                               bool* applied) {
  *applied = false;
  const Spec* spec = nullptr;
  std::string renamed = key;
  for (const DeprecatedKey& old : DeprecatedKeys()) {
    if (old.key == key && !old.replacement.empty()) renamed = old.replacement;
  }
  for (const Spec& s : Specs()) {
    if (s.info.key == renamed) spec = &s;
  }
  if (spec == nullptr || key.rfind("solver.", 0) != 0 || spec->info.type == "map" ||
      spec->info.type == "list") {
    return InvalidArgument(origin + ": recommends '" + key +
                           "', which is not a scalar option under solver. (see `dede options`)");
  }
  const std::string leaf = Split(key).back();
  Result<ConfigNode> parsed = ParseYamlString(leaf + ": " + value + "\n", origin);
  if (!parsed.ok()) return parsed.status();
  DeploymentConfig trial = *config;
  if (Status status = spec->read(parsed.value(), leaf, trial.dir, &trial); !status.ok()) {
    return InvalidArgument(origin + ": recommended " + key + " = " + value + ": " +
                           status.message());
  }
  ShareSolverKeys(&trial);
  std::string why;
  if (!trial.admm.IsValid(&why)) {
    return InvalidArgument(origin + ": recommended " + key + " = " + value + ": " + why);
  }
  // Checked either way (a bad recommendation is the plugin's error); the deployment's own
  // choice, or a recommendation applied before, wins.
  if (std::find(config->keys_set.begin(), config->keys_set.end(), renamed) !=
      config->keys_set.end()) {
    return Status::Ok();
  }
  *config = std::move(trial);
  config->keys_set.push_back(renamed);
  config->text += "\n# Recommended by " + origin + " (applied): " + key + ": " + value + "\n";
  *applied = true;
  return Status::Ok();
}

Result<std::string> FormatOption(const DeploymentConfig& config, const std::string& key) {
  for (const Spec& spec : Specs()) {
    if (spec.info.key == key) return spec.format(config);
  }
  return NotFound("unknown option '" + key + "'");
}

std::string RenderDeployment(const DeploymentConfig& config) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  std::vector<std::string> open;  // sections currently open, outermost first
  for (const Spec& spec : Specs()) {
    std::vector<std::string> parts = Split(spec.info.key);
    const std::string leaf = parts.back();
    parts.pop_back();
    std::size_t common = 0;
    while (common < open.size() && common < parts.size() && open[common] == parts[common]) {
      ++common;
    }
    while (open.size() > common) {
      out << YAML::EndMap;
      open.pop_back();
    }
    while (open.size() < parts.size()) {
      out << YAML::Key << parts[open.size()] << YAML::Value << YAML::BeginMap;
      open.push_back(parts[open.size()]);
    }
    out << YAML::Key << leaf << YAML::Value;
    spec.emit(config, &out);
  }
  while (!open.empty()) {
    out << YAML::EndMap;
    open.pop_back();
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace dede::internal
