// The gpu_placement plugin's one exported symbol; the domain lives in gpu_domain.cpp.
#include "gpu_domain.h"

DEDE_DECLARE_PLUGIN(dede::gpu::GpuPlacementDomain, "gpu_placement", "0.2.0")
