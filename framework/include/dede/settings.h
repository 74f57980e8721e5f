/// \file
/// Declarative plugin settings: a plugin lists the keys of its `plugin.settings` section once,
/// with type, default, bounds, choices and a line of documentation, and returns the table from
/// DomainPlugin::Settings():
///
/// \code
///   const dede::SettingsTable* Settings() const override {
///     static const dede::SettingsTable table = {
///         dede::Setting::Int("num_paths", "paths per pair").Default(4).Range(1, 64),
///         dede::Setting::Choice("objective", {"max_flow", "min_util"}, "what to optimise")
///             .Default("max_flow"),
///         dede::Setting::String("topology", "topology file").Required(),
///         dede::Setting::Section("traffic", "a generator instead of files",
///                                {dede::Setting::Int("rounds", "rounds").Default(10).AtLeast(1)}),
///     };
///     return &table;
///   }
/// \endcode
///
/// Before Configure the host checks the section against the table: an unknown key, a value of the
/// wrong type, a number out of bounds, a value that is not one of the choices and a missing
/// required key are each reported with the file, line, dotted key and value (the same messages as
/// ConfigNode's typed reads), every problem of the section at once, one per line. It then fills
/// the default of every absent key that has one (a section's keys only when the section is
/// present) and hands Configure the completed section, so Configure reads values with
/// ConfigNode::Read and keeps only domain logic (cross-field checks, loading files). The host logs
/// the defaults it filled, `dede options --plugin NAME` prints the table as Markdown, and the
/// plugin READMEs' settings tables are generated from it (tools/ci/plugin_settings_docs.sh).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "dede/config_node.h"

namespace dede {

enum class SettingType : std::uint8_t {
  kBool,
  kInt,     ///< a whole number (1e4 and 2000.0 are accepted); bounds are inclusive or exclusive
  kDouble,  ///< a number; .inf is one unless the bounds say finite
  kString,
  kChoice,        ///< one of `choices`
  kStringOrList,  ///< a string, or a list of strings (a directory or its files, ...)
  kList,     ///< a list: of maps with the keys `fields`, or (no fields) of items Configure checks
  kSection,  ///< a map with the keys `fields` (checked, defaults filled when present)
  kMap,      ///< a map the plugin reads itself (its keys are data: per-type tables, ...)
};

/// One key of a plugin's settings. Build it with the Setting:: factories and the chained
/// modifiers below; every field is public so tools can render and test the table.
struct SettingSpec {
  std::string name;  ///< key within its section: "num_paths"
  SettingType type = SettingType::kString;
  std::string doc;  ///< one line for the reference
  /// The default as YAML scalar text ("4", "0.1", "max_total_flow", "true"); filled by the host
  /// when the key is absent. Without one (has_default false) an absent key stays absent.
  std::string default_value;
  bool has_default = false;
  /// A default that depends on other keys or on the instance, for the reference only (the key
  /// stays absent and Configure decides): "auto: paths recorded when <= 20,000".
  std::string default_note;
  bool required = false;
  /// Numeric bounds (kInt, kDouble): value >= min (> min when min_exclusive), <= max (< max);
  /// max = inf with max_exclusive: finite.
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;
  bool max_exclusive = false;
  std::vector<std::string> choices;  ///< kChoice
  std::vector<SettingSpec> fields;   ///< kSection: its keys; kList: the keys of each item (maps)

  /// Modifiers (chainable on a temporary).
  SettingSpec&& Default(bool value) && {
    return std::move(*this).DefaultText(value ? "true" : "false");
  }
  SettingSpec&& Default(int value) && {
    return std::move(*this).DefaultText(std::to_string(value));
  }
  SettingSpec&& Default(std::int64_t value) && {
    return std::move(*this).DefaultText(std::to_string(value));
  }
  SettingSpec&& Default(double value) && {
    return std::move(*this).DefaultText(FormatNumber(value));
  }
  SettingSpec&& Default(const char* value) && { return std::move(*this).DefaultText(value); }
  SettingSpec&& Default(const std::string& value) && { return std::move(*this).DefaultText(value); }
  SettingSpec&& DefaultNote(std::string note) && {
    default_note = std::move(note);
    return std::move(*this);
  }
  SettingSpec&& Required() && {
    required = true;
    return std::move(*this);
  }
  SettingSpec&& AtLeast(double value) && {
    min = value;
    min_exclusive = false;
    return std::move(*this);
  }
  SettingSpec&& Above(double value) && {
    min = value;
    min_exclusive = true;
    return std::move(*this);
  }
  SettingSpec&& AtMost(double value) && {
    max = value;
    max_exclusive = false;
    return std::move(*this);
  }
  SettingSpec&& Below(double value) && {
    max = value;
    max_exclusive = true;
    return std::move(*this);
  }
  /// [low, high]
  SettingSpec&& Range(double low, double high) && {
    return std::move(*this).AtLeast(low).AtMost(high);
  }
  /// No infinity (an upper bound of inf that is exclusive).
  SettingSpec&& Finite() && {
    if (max == std::numeric_limits<double>::infinity()) max_exclusive = true;
    return std::move(*this);
  }

 private:
  SettingSpec&& DefaultText(std::string text) && {
    default_value = std::move(text);
    has_default = true;
    return std::move(*this);
  }
};

/// A plugin's keys, in the order of its reference.
using SettingsTable = std::vector<SettingSpec>;

/// Factories: Setting::Int("num_paths", "paths per pair").Default(4).Range(1, 64).
struct Setting {
  static SettingSpec Make(std::string name, SettingType type, std::string doc) {
    SettingSpec spec;
    spec.name = std::move(name);
    spec.type = type;
    spec.doc = std::move(doc);
    return spec;
  }
  static SettingSpec Bool(std::string name, std::string doc) {
    return Make(std::move(name), SettingType::kBool, std::move(doc));
  }
  static SettingSpec Int(std::string name, std::string doc) {
    return Make(std::move(name), SettingType::kInt, std::move(doc));
  }
  static SettingSpec Double(std::string name, std::string doc) {
    return Make(std::move(name), SettingType::kDouble, std::move(doc));
  }
  static SettingSpec String(std::string name, std::string doc) {
    return Make(std::move(name), SettingType::kString, std::move(doc));
  }
  static SettingSpec Choice(std::string name, std::vector<std::string> choices, std::string doc) {
    SettingSpec spec = Make(std::move(name), SettingType::kChoice, std::move(doc));
    spec.choices = std::move(choices);
    return spec;
  }
  static SettingSpec StringOrList(std::string name, std::string doc) {
    return Make(std::move(name), SettingType::kStringOrList, std::move(doc));
  }
  /// A list of maps with `fields`, or (no fields) of values Configure checks.
  static SettingSpec List(std::string name, std::string doc, std::vector<SettingSpec> fields = {}) {
    SettingSpec spec = Make(std::move(name), SettingType::kList, std::move(doc));
    spec.fields = std::move(fields);
    return spec;
  }
  static SettingSpec Section(std::string name, std::string doc, std::vector<SettingSpec> fields) {
    SettingSpec spec = Make(std::move(name), SettingType::kSection, std::move(doc));
    spec.fields = std::move(fields);
    return spec;
  }
  static SettingSpec Map(std::string name, std::string doc) {
    return Make(std::move(name), SettingType::kMap, std::move(doc));
  }
};

}  // namespace dede
