// The option reference, rendered from the option registry (`dede options`).
#pragma once

#include <string>

namespace dede::tools {

// A Markdown table with one row per registry key: key, type, default, bounds, whether a change
// can be applied without rebuilding the solver, and the description. docs/configuration.md
// embeds this text verbatim (a test checks that it is current).
std::string OptionsReference();

}  // namespace dede::tools
