// JSON text -> ConfigNode, so that plugins read JSON (event payloads) with the same typed,
// error-naming reads as YAML settings: "event 17: payload.capacity = -3. Violated ...".
#pragma once

#include <string>

#include "dede/config_node.h"
#include "dede/status.h"

namespace dede::internal {

// Numbers keep their JSON text, booleans become "true" / "false", null a null node. `origin`
// is what errors name as the file ("event 17"), `root_path` the key path of the root
// ("payload"). Input over 1 MiB or nested deeper than 64 levels is rejected.
Result<ConfigNode> JsonToConfigNode(const std::string& json,
                                    const std::string& origin,
                                    const std::string& root_path);

}  // namespace dede::internal
