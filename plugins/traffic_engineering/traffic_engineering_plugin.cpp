// The plugin's one exported symbol; the domain lives in te_plugin.cpp (tests compile it
// directly).
#include "te_plugin.h"

DEDE_DECLARE_PLUGIN(dede::te::TrafficEngineeringPlugin, "traffic_engineering", "0.1.0")
