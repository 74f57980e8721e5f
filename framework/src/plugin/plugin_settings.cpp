// Checking a plugin's settings section against its declared table (dede/settings.h). The
// messages are those of ConfigNode's typed reads (config_node.cpp), so a key reads the same
// whether the host or a plugin of an older ABI checked it.
#include "plugin/plugin_settings.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>

namespace dede::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string Child(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string Bound(double value, SettingType type) {
  if (type == SettingType::kInt && std::isfinite(value) && std::fabs(value) < 9.2e18) {
    return std::to_string(static_cast<std::int64_t>(value));
  }
  return FormatNumber(value);
}

std::string Expected(const SettingSpec& spec) {
  switch (spec.type) {
    case SettingType::kBool:
      return "a boolean (true or false)";
    case SettingType::kInt:
      return "an integer";
    case SettingType::kDouble:
      return "a number";
    case SettingType::kString:
      return "a string";
    case SettingType::kChoice: {
      std::string list;
      for (const std::string& choice : spec.choices) list += (list.empty() ? "" : ", ") + choice;
      return "one of: " + list;
    }
    case SettingType::kStringOrList:
      return "a string or a list of strings";
    case SettingType::kList:
      return spec.fields.empty() ? "a list" : "a list of maps";
    case SettingType::kSection:
    case SettingType::kMap:
      return "a map";
  }
  return "a value";
}

const char* KindName(const ConfigNode& node) {
  switch (node.kind()) {
    case ConfigNode::Kind::kNull:
      return "an empty value";
    case ConfigNode::Kind::kScalar:
      return "a scalar";
    case ConfigNode::Kind::kList:
      return "a list";
    case ConfigNode::Kind::kMap:
      return "a map";
  }
  return "an unknown node";
}

std::string PathOf(const ConfigNode& node) { return node.path().empty() ? "<value>" : node.path(); }

std::string WrongType(const ConfigNode& node, const std::string& expected) {
  if (node.IsScalar()) {
    return node.Where() + ": " + PathOf(node) + " = '" + node.scalar() + "': expected " + expected;
  }
  return node.Where() + ": " + PathOf(node) + ": expected " + expected + ", got " + KindName(node);
}

std::string Violated(const ConfigNode& node, const std::string& constraint) {
  return node.Where() + ": " + PathOf(node) + " = " + node.scalar() +
         ". Violated constraint: " + PathOf(node) + " " + constraint;
}

// The bound `value` violates, as "> 0", or "".
std::string Violation(double value, const SettingSpec& spec) {
  if (std::isnan(value)) return "is a number (not NaN)";
  if (spec.min_exclusive ? !(value > spec.min) : !(value >= spec.min)) {
    return (spec.min_exclusive ? "> " : ">= ") + Bound(spec.min, spec.type);
  }
  if (spec.max == kInf && spec.max_exclusive && std::isinf(value)) return "< inf";
  if (spec.max_exclusive ? !(value < spec.max) : !(value <= spec.max)) {
    return (spec.max_exclusive ? "< " : "<= ") + Bound(spec.max, spec.type);
  }
  return "";
}

class Checker {
 public:
  explicit Checker(std::vector<DefaultedSetting>* defaulted) : defaulted_(defaulted) {}

  // Checks the map `section` (null: empty) against `fields`; returns it completed.
  ConfigNode CheckMap(const std::vector<SettingSpec>& fields, const ConfigNode& section) {
    ConfigNode out =
        section.IsNull()
            ? ConfigNode::Map(section.file(), section.line(), section.column(), section.path())
            : section;
    if (!section.IsNull() && !section.IsMap()) {
      problems_.push_back(WrongType(section, "a map"));
      return out;
    }
    for (const auto& entry : section.entries()) {
      // Named, not a structured binding: clang 14 (the fuzz build) cannot capture one.
      const std::string& key = entry.first;
      const ConfigNode& value = entry.second;
      const auto spec = std::find_if(
          fields.begin(), fields.end(), [&](const SettingSpec& s) { return s.name == key; });
      if (spec == fields.end()) {
        problems_.push_back(Unknown(fields, section, key, value));
        continue;
      }
      if (std::optional<ConfigNode> checked = CheckValue(*spec, section, key, value)) {
        out.Set(key, std::move(*checked));
      }
    }
    for (const SettingSpec& spec : fields) {
      if (section.Find(spec.name) != nullptr) continue;
      if (spec.required) {
        const std::string in = section.path().empty() ? "at the top level" : "in " + section.path();
        problems_.push_back(out.Where() + ": missing required key '" + spec.name + "' " + in);
      } else if (spec.has_default) {
        const std::string path = Child(section.path(), spec.name);
        out.Insert(
            spec.name,
            ConfigNode::Scalar(spec.default_value, out.file(), out.line(), out.column(), path));
        defaulted_->push_back({path, spec.default_value});
      }
    }
    return out;
  }

  const std::vector<std::string>& problems() const { return problems_; }

 private:
  static std::string Unknown(const std::vector<SettingSpec>& fields,
                             const ConfigNode& section,
                             const std::string& key,
                             const ConfigNode& value) {
    std::string list;
    for (const SettingSpec& s : fields) list += (list.empty() ? "" : ", ") + s.name;
    if (list.empty()) list = "(none)";
    const std::string where = value.line() > 0 ? value.Where() : section.Where();
    const std::string in = section.path().empty() ? "at the top level" : "in " + section.path();
    return where + ": unknown key '" + key + "' " + in + "; allowed: " + list;
  }

  // The checked value of `key` (a replacement for sections and lists of maps), or nullopt
  // (unchanged, or a problem was recorded).
  std::optional<ConfigNode> CheckValue(const SettingSpec& spec,
                                       const ConfigNode& parent,
                                       const std::string& key,
                                       const ConfigNode& value) {
    if (value.IsNull()) {
      if (spec.type == SettingType::kList || spec.type == SettingType::kMap) return std::nullopt;
      if (spec.type == SettingType::kSection) {
        ConfigNode empty = ConfigNode::Map(
            parent.file(), parent.line(), parent.column(), Child(parent.path(), key));
        return CheckMap(spec.fields, empty);
      }
      problems_.push_back(parent.Where() + ": " + Child(parent.path(), key) +
                          " has no value: expected " + Expected(spec));
      return std::nullopt;
    }
    switch (spec.type) {
      case SettingType::kBool:
        Record(value.AsBool().status());
        return std::nullopt;
      case SettingType::kString:
        Record(value.AsString().status());
        return std::nullopt;
      case SettingType::kInt:
        CheckInt(spec, value);
        return std::nullopt;
      case SettingType::kDouble:
        CheckDouble(spec, value);
        return std::nullopt;
      case SettingType::kChoice:
        if (!value.IsScalar() ||
            std::find(spec.choices.begin(), spec.choices.end(), value.scalar()) ==
                spec.choices.end()) {
          problems_.push_back(WrongType(value, Expected(spec)));
        }
        return std::nullopt;
      case SettingType::kStringOrList:
        if (value.IsList()) {
          for (const ConfigNode& item : value.items()) Record(item.AsString().status());
        } else if (!value.IsScalar()) {
          problems_.push_back(WrongType(value, Expected(spec)));
        }
        return std::nullopt;
      case SettingType::kList:
        return CheckList(spec, value);
      case SettingType::kSection:
        if (!value.IsMap()) {
          problems_.push_back(WrongType(value, "a map"));
          return std::nullopt;
        }
        return CheckMap(spec.fields, value);
      case SettingType::kMap:
        if (!value.IsMap()) problems_.push_back(WrongType(value, "a map"));
        return std::nullopt;
    }
    return std::nullopt;
  }

  std::optional<ConfigNode> CheckList(const SettingSpec& spec, const ConfigNode& value) {
    if (!value.IsList()) {
      problems_.push_back(WrongType(value, Expected(spec)));
      return std::nullopt;
    }
    if (spec.fields.empty()) return std::nullopt;  // items: the plugin's (numbers, names, ...)
    ConfigNode out = ConfigNode::List(value.file(), value.line(), value.column(), value.path());
    for (std::size_t i = 0; i < value.items().size(); ++i) {
      const ConfigNode& item = value.items()[i];
      if (!item.IsMap()) {
        problems_.push_back(WrongType(item, "a map"));
        out.Append(item);
        continue;
      }
      out.Append(CheckMap(spec.fields, item));
    }
    return out;
  }

  void CheckInt(const SettingSpec& spec, const ConfigNode& value) {
    Result<std::int64_t> parsed = value.AsInt();
    if (!parsed.ok()) return Record(parsed.status());
    const std::string violated = Violation(static_cast<double>(parsed.value()), spec);
    if (!violated.empty()) problems_.push_back(Violated(value, violated));
  }

  void CheckDouble(const SettingSpec& spec, const ConfigNode& value) {
    Result<double> parsed = value.AsDouble();
    if (!parsed.ok()) return Record(parsed.status());
    const std::string violated = Violation(parsed.value(), spec);
    if (!violated.empty()) problems_.push_back(Violated(value, violated));
  }

  void Record(const Status& status) {
    if (!status.ok()) problems_.push_back(status.message());
  }

  std::vector<DefaultedSetting>* defaulted_;
  std::vector<std::string> problems_;
};

}  // namespace

Result<ConfigNode> CheckSettings(const SettingsTable& table,
                                 const ConfigNode& section,
                                 std::vector<DefaultedSetting>* defaulted) {
  std::vector<DefaultedSetting> filled;
  Checker checker(&filled);
  ConfigNode checked = checker.CheckMap(table, section);
  if (!checker.problems().empty()) {
    std::string message;
    for (const std::string& problem : checker.problems()) {
      message += (message.empty() ? "" : "\n") + problem;
    }
    return InvalidArgument(message);
  }
  if (defaulted != nullptr) *defaulted = std::move(filled);
  return checked;
}

Status ConfigureWithSettings(DomainPlugin* plugin,
                             const ConfigNode& section,
                             const PluginContext& context,
                             std::vector<DefaultedSetting>* defaulted) {
  if (defaulted != nullptr) defaulted->clear();
  const SettingsTable* table = plugin->Settings();
  if (table == nullptr) return plugin->Configure(section, context);
  Result<ConfigNode> checked = CheckSettings(*table, section, defaulted);
  if (!checked.ok()) return checked.status();
  return plugin->Configure(checked.value(), context);
}

std::string DescribeDefaulted(const std::vector<DefaultedSetting>& defaulted) {
  static const std::string kPrefix = "plugin.settings.";
  std::string text;
  for (const DefaultedSetting& d : defaulted) {
    const std::string key = d.key.rfind(kPrefix, 0) == 0 ? d.key.substr(kPrefix.size()) : d.key;
    text += (text.empty() ? "" : ", ") + key + ": " + d.value;
  }
  return text;
}

std::string SettingBoundsText(const SettingSpec& spec) {
  if (spec.type == SettingType::kChoice) {
    std::string list;
    for (const std::string& choice : spec.choices) list += (list.empty() ? "" : "|") + choice;
    return list;
  }
  if (spec.type != SettingType::kInt && spec.type != SettingType::kDouble) return "";
  const bool has_min = spec.min > -kInf;
  const bool has_max = spec.max < kInf;
  const bool finite = spec.max == kInf && spec.max_exclusive;
  std::string text;
  if (has_min && has_max) {
    text = std::string(spec.min_exclusive ? "(" : "[") + Bound(spec.min, spec.type) + ", " +
           Bound(spec.max, spec.type) + (spec.max_exclusive ? ")" : "]");
  } else if (has_min) {
    text = (spec.min_exclusive ? "> " : ">= ") + Bound(spec.min, spec.type);
  } else if (has_max) {
    text = (spec.max_exclusive ? "< " : "<= ") + Bound(spec.max, spec.type);
  }
  if (finite) text += text.empty() ? "finite" : ", finite";
  return text;
}

const char* SettingTypeName(SettingType type) {
  switch (type) {
    case SettingType::kBool:
      return "bool";
    case SettingType::kInt:
      return "int";
    case SettingType::kDouble:
      return "double";
    case SettingType::kString:
      return "string";
    case SettingType::kChoice:
      return "choice";
    case SettingType::kStringOrList:
      return "string or list";
    case SettingType::kList:
      return "list";
    case SettingType::kSection:
      return "section";
    case SettingType::kMap:
      return "map";
  }
  return "?";
}

}  // namespace dede::internal
