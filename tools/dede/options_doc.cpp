#include "options_doc.h"

#include "config/deployment.h"

namespace dede::tools {
// Table cells: a '|' would end the cell, a newline the row.
std::string Cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

// Appended piecewise: `"`" + Cell(text)` trips GCC 12's -Wrestrict false positive.
std::string Code(const std::string& text) {
  std::string out;
  if (text.empty()) return out;
  out += '`';
  out += Cell(text);
  out += '`';
  return out;
}

std::string OptionsReference(bool all) {
  std::string out =
      "| Key | Type | Default | Bounds | Level | Lifetime | Description |\n"
      "|-----|------|---------|--------|-------|----------|-------------|\n";
  for (const internal::OptionInfo& option : internal::OptionRegistry()) {
    if (!all && option.level != "basic") continue;
    out += "| " + Code(option.key) + " | " + option.type + " | " +
           (option.required ? std::string("*required*") : Code(option.default_value)) + " | " +
           Code(option.bounds) + " | " + option.level + " | " + option.lifetime + " | " +
           Cell(option.description) + " |\n";
  }
  return out;
}

std::string DeprecatedKeysReference() {
  std::string out =
      "| Deprecated key | Use instead | Why |\n"
      "|----------------|-------------|-----|\n";
  for (const internal::DeprecatedKey& old : internal::DeprecatedKeys()) {
    out += "| " + Code(old.key) + " | " +
           (old.replacement.empty() ? std::string("(retired)") : Code(old.replacement)) + " | " +
           Cell(old.note) + " |\n";
  }
  return out;
}

}  // namespace dede::tools
