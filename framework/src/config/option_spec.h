// The option registry's entries (private to dede_config): every deployment key with its
// description, bounds, default, and how to read, print and emit it. option_specs.cpp holds the
// list; deployment.cpp loads, checks and renders deployment files with it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "config/deployment.h"

namespace YAML {
class Emitter;
}

namespace dede::internal {

// Everything one option needs: its public description plus how to read and print it.
struct Spec {
  OptionInfo info;
  // Reads the present value of the key, `parent.Find(leaf)`, into *config. Null values reach
  // this only for list and map options (an empty value means empty).
  std::function<Status(const ConfigNode& parent,
                       const std::string& leaf,
                       const std::string& dir,
                       DeploymentConfig* config)>
      read;
  std::function<std::string(const DeploymentConfig&)> format;
  // For RenderDeployment; scalars by default.
  std::function<void(const DeploymentConfig&, YAML::Emitter*)> emit;
};

// Every option, in file order (deployment.*, plugin.*, solver.*, schedule.*, storage.*, stop.*).
const std::vector<Spec>& Specs();

// items joined with separator.
std::string Join(const std::vector<std::string>& items, const char* separator);

}  // namespace dede::internal
