// Builders of the option registry's entries (private to dede_config): the value types, their
// bounds and how each is read, printed and checked. option_specs.cpp (deployment, runtime
// keys) and option_specs_solver.cpp (solver.*) list the entries with them.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "config/option_spec.h"

namespace dede::internal::spec_detail {

constexpr double kInf = std::numeric_limits<double>::infinity();

enum class Type { kDouble, kInt, kUint64, kBool, kString, kChoice, kPathList, kMap };
const char* TypeName(Type type);

// YAML spelling of a double: shortest round-trip text, ".inf" / "-.inf" / ".nan".
std::string FormatDouble(double value);

struct Bounds {
  double min = -kInf, max = kInf;
  bool min_exclusive = false, max_exclusive = false;
};
inline Bounds AtLeast(double min) { return {min, kInf, false, false}; }
inline Bounds Above(double min) { return {min, kInf, true, false}; }
// (min, inf): positive and finite.
inline Bounds AboveFinite(double min) { return {min, kInf, true, true}; }
inline Bounds AtLeastFinite(double min) { return {min, kInf, false, true}; }
inline Bounds Open(double min, double max) { return {min, max, true, true}; }
inline Bounds Closed(double min, double max) { return {min, max, false, false}; }

std::string BoundsText(const Bounds& b);
Status CheckBounds(const ConfigNode& node, double value, const Bounds& bounds);

// An entry's common part. `per_solve`: a solver key every solve reads (lifetime "per solve");
// otherwise it is read at set-up.
Spec MakeSpec(std::string key, Type type, std::string description, bool per_solve);
void SetBounds(Spec* spec, const Bounds& bounds, bool checked_by_options);
// The entry, shown by `dede options` without --all.
inline Spec Basic(Spec spec) {
  spec.info.level = "basic";
  return spec;
}

// `Get` is a generic lambda `[](auto& c) -> auto& { return c.field; }`, so one accessor serves
// both reading (const) and writing.
template <typename Get>
Spec Double(std::string key,
            Get get,
            Bounds bounds,
            std::string description,
            bool per_solve,
            bool checked_by_options = false) {
  Spec spec = MakeSpec(std::move(key), Type::kDouble, std::move(description), per_solve);
  SetBounds(&spec, bounds, checked_by_options);
  spec.read = [get, bounds, checked_by_options](const ConfigNode& parent,
                                                const std::string& leaf,
                                                const std::string& /*dir*/,
                                                DeploymentConfig* config) -> Status {
    const ConfigNode& node = *parent.Find(leaf);
    if (node.IsNull()) return parent.Read(leaf, &get(*config));  // reports the empty value
    Result<double> value = node.AsDouble();
    if (!value.ok()) return value.status();
    if (!checked_by_options) {
      if (Status status = CheckBounds(node, value.value(), bounds); !status.ok()) return status;
    }
    get(*config) = value.value();
    return Status::Ok();
  };
  spec.format = [get](const DeploymentConfig& c) { return FormatDouble(get(c)); };
  return spec;
}

template <typename Get>
Spec Int(std::string key,
         Get get,
         Bounds bounds,
         std::string description,
         bool per_solve,
         bool checked_by_options = false) {
  Spec spec = MakeSpec(std::move(key), Type::kInt, std::move(description), per_solve);
  SetBounds(&spec, bounds, checked_by_options);
  spec.read = [get, bounds, checked_by_options](const ConfigNode& parent,
                                                const std::string& leaf,
                                                const std::string& /*dir*/,
                                                DeploymentConfig* config) -> Status {
    int value = get(*config);
    if (Status status = parent.Read(leaf, &value); !status.ok()) return status;
    if (!checked_by_options) {
      if (Status status = CheckBounds(*parent.Find(leaf), value, bounds); !status.ok()) {
        return status;
      }
    }
    get(*config) = value;
    return Status::Ok();
  };
  spec.format = [get](const DeploymentConfig& c) { return std::to_string(get(c)); };
  return spec;
}

template <typename Get>
Spec Uint64(std::string key, Get get, std::string description, bool per_solve) {
  Spec spec = MakeSpec(std::move(key), Type::kUint64, std::move(description), per_solve);
  SetBounds(&spec, AtLeast(0), false);
  spec.info.bounds = "[0, 2^64)";
  spec.read = [get](const ConfigNode& parent,
                    const std::string& leaf,
                    const std::string& /*dir*/,
                    DeploymentConfig* config) -> Status {
    const ConfigNode& node = *parent.Find(leaf);
    if (node.IsNull()) {
      return InvalidArgument(parent.Where() + ": " + parent.path() + "." + leaf +
                             " has no value: expected an integer");
    }
    if (!node.IsScalar()) return node.AsInt().status();
    const std::string& text = node.scalar();
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
      return InvalidArgument(node.Where() + ": " + node.path() + " = '" + text +
                             "': expected an integer in [0, 2^64)");
    }
    get(*config) = value;
    return Status::Ok();
  };
  spec.format = [get](const DeploymentConfig& c) { return std::to_string(get(c)); };
  return spec;
}

template <typename Get>
Spec Bool(std::string key, Get get, std::string description, bool per_solve) {
  Spec spec = MakeSpec(std::move(key), Type::kBool, std::move(description), per_solve);
  spec.info.bounds = "true|false";
  spec.read = [get](const ConfigNode& parent,
                    const std::string& leaf,
                    const std::string& /*dir*/,
                    DeploymentConfig* config) -> Status {
    return parent.Read(leaf, &get(*config));
  };
  spec.format = [get](const DeploymentConfig& c) -> std::string {
    return get(c) ? "true" : "false";
  };
  return spec;
}

// A non-empty string. `resolve`: a path, made absolute against the file's directory.
template <typename Get>
Spec String(std::string key,
            Get get,
            bool required,
            bool resolve,
            std::string description,
            bool per_solve) {
  Spec spec = MakeSpec(std::move(key), Type::kString, std::move(description), per_solve);
  spec.info.required = required;
  spec.info.bounds = "non-empty";
  spec.read = [get, resolve](const ConfigNode& parent,
                             const std::string& leaf,
                             const std::string& dir,
                             DeploymentConfig* config) -> Status {
    std::string value;
    if (Status status = parent.Read(leaf, &value); !status.ok()) return status;
    const ConfigNode& node = *parent.Find(leaf);
    if (value.empty()) {
      return InvalidArgument(node.Where() + ": " + node.path() +
                             " = '': expected a non-empty string");
    }
    // SQLite's in-memory database is a name, not a path.
    if (resolve && value != ":memory:") {
      const std::filesystem::path path(value);
      value = (path.is_absolute() ? path : std::filesystem::path(dir) / path)
                  .lexically_normal()
                  .string();
    }
    get(*config) = std::move(value);
    return Status::Ok();
  };
  spec.format = [get](const DeploymentConfig& c) { return get(c); };
  return spec;
}

template <typename Enum, typename Get>
Spec Choice(std::string key,
            Get get,
            std::vector<std::pair<std::string, Enum>> names,
            std::string description,
            bool per_solve) {
  Spec spec = MakeSpec(std::move(key), Type::kChoice, std::move(description), per_solve);
  for (const auto& [name, value] : names) spec.info.choices.push_back(name);
  spec.info.bounds = Join(spec.info.choices, "|");
  spec.read = [get, names, choices = spec.info.choices](const ConfigNode& parent,
                                                        const std::string& leaf,
                                                        const std::string& /*dir*/,
                                                        DeploymentConfig* config) -> Status {
    std::string value;
    if (Status status = parent.ReadChoice(leaf, choices, &value); !status.ok()) return status;
    for (const auto& [name, e] : names) {
      if (name == value) get(*config) = e;
    }
    return Status::Ok();
  };
  spec.format = [get, names](const DeploymentConfig& c) -> std::string {
    for (const auto& [name, e] : names) {
      if (get(c) == e) return name;
    }
    return "?";
  };
  return spec;
}

// An IPv4 or IPv6 literal (a String entry's extra check).
Spec IpLiteral(Spec spec);
Spec PathList(std::string key, std::string description);
Spec HostList(std::string key, std::string description);
Spec SettingsMap(std::string key, std::string description);

// The entries of each part of the file, appended in file order.
void AddDeploymentSpecs(std::vector<Spec>* s);
void AddSolverSpecs(std::vector<Spec>* s);   // solver.*: option_specs_solver.cpp
void AddRuntimeSpecs(std::vector<Spec>* s);  // schedule, storage, inbox, stop, http

}  // namespace dede::internal::spec_detail
