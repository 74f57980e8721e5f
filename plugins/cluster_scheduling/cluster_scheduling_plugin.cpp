// The plugin's one exported symbol; the domain lives in cluster_core (cluster_plugin.cpp and
// friends), which the tests and the evaluation harness link directly.
#include "cluster_plugin.h"

DEDE_DECLARE_PLUGIN(dede::cluster::ClusterSchedulingPlugin, "cluster_scheduling", "0.2.0")
