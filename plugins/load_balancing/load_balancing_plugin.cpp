// The plugin's one exported symbol; the domain lives in lb_core (lb_plugin.cpp and friends),
// which the tests and the evaluation harness link directly. See README.md.
#include "lb_plugin.h"

DEDE_DECLARE_PLUGIN(dede::lb::LoadBalancingPlugin, "load_balancing", "0.2.0")
