// The option reference, rendered from the option registry (`dede options`).
#pragma once

#include <string>

namespace dede::tools {

// A Markdown table cell: `|` escaped, newlines folded.
std::string Cell(const std::string& text);
// A code span of Cell(text); empty for empty text.
std::string Code(const std::string& text);

// A Markdown table with one row per registry key: key, type, default, bounds, level (basic or
// advanced), lifetime (set-up or per solve) and the description; the basic keys only unless
// `all`. docs/configuration.md embeds the whole table verbatim (a test checks that it is
// current).
std::string OptionsReference(bool all = true);
// The keys that still load with a warning, and what replaces them.
std::string DeprecatedKeysReference();

}  // namespace dede::tools
