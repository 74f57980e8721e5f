// The plugin's one exported symbol; the domain lives in te_core (te_plugin.cpp and friends),
// which the tests and the evaluation harness link directly.
#include "te_plugin.h"

DEDE_DECLARE_PLUGIN(dede::te::TrafficEngineeringPlugin, "traffic_engineering", "0.1.0")
