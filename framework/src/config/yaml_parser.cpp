// yaml-cpp -> ConfigNode. This file and deployment.cpp are the only code that includes
// yaml-cpp; its exceptions stop here and become a Status naming file:line:column.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "config/deployment.h"

namespace dede::internal {
namespace {

// yaml-cpp marks are 0-based and -1 when unknown; ConfigNode positions are 1-based, 0 unknown.
int OneBased(int zero_based) { return zero_based >= 0 ? zero_based + 1 : 0; }

std::string Where(const std::string& file, const YAML::Mark& mark) {
  std::string where = file;
  // Appended piecewise: `":" + std::to_string(n)` trips GCC 12's -Wrestrict false positive.
  if (mark.line >= 0) {
    where += ':';
    where += std::to_string(mark.line + 1);
    if (mark.column >= 0) {
      where += ':';
      where += std::to_string(mark.column + 1);
    }
  }
  return where;
}

std::string JoinPath(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

// Bounds of a deployment file. Aliases are expanded into the tree, so a few lines that repeat
// aliases of aliases grow exponentially ("billion laughs"), and an alias inside its own
// anchor never ends; both stop at these limits with an error instead of exhausting memory or
// the stack.
constexpr std::size_t kMaxFileBytes = 16u << 20;
constexpr std::size_t kMaxNodes = 1'000'000;
constexpr int kMaxDepth = 100;

// Offset of the first byte that does not belong to a well-formed UTF-8 sequence (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF), or npos. YAML text is Unicode; a
// Latin-1 name would reach the database and the JSON outputs as invalid text.
std::size_t FirstInvalidUtf8(const std::string& text) {
  const auto* b = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned c = b[i];
    std::size_t length = 0;
    unsigned lo = 0x80, hi = 0xBF;  // the range of the second byte
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return i;
    }
    if (i + length > n) return i;
    if (b[i + 1] < lo || b[i + 1] > hi) return i;
    for (std::size_t k = 2; k < length; ++k) {
      if (b[i + k] < 0x80 || b[i + k] > 0xBF) return i;
    }
    i += length;
  }
  return std::string::npos;
}

// yaml-cpp 0.7 loops forever, allocating, on a document whose first token is ',' (at the
// start of the file or after a `---` / `...` marker). Returns the 1-based line of such a ','
// or 0. A ',' that continues a flow collection on a later line is not affected.
int LeadingCommaLine(const std::string& text) {
  std::size_t pos = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;  // UTF-8 byte order mark
  bool expecting = true;  // the next token starts a document
  int line = 0;
  while (pos <= text.size()) {
    ++line;
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view rest(text.data() + pos, end - pos);
    const bool marker = rest.size() >= 3 && (rest.substr(0, 3) == "---" || rest.substr(0, 3) == "...") &&
                        (rest.size() == 3 || rest[3] == ' ' || rest[3] == '\t' || rest[3] == '\r');
    if (marker) {
      expecting = true;
      rest.remove_prefix(3);
    }
    if (expecting) {
      const std::size_t first = rest.find_first_not_of(" \t\r");
      if (first != std::string_view::npos && rest[first] != '#' &&
          !(rest[first] == '%' && first == 0 && !marker)) {
        if (rest[first] == ',') return line;
        expecting = false;
      }
    }
    pos = end + 1;
  }
  return 0;
}

class Converter {
 public:
  explicit Converter(const std::string& file) : file_(file) {}

  // `mark` is where the node is reported: for the value of a map entry, the position of its
  // key, because that is the line a user looks for ("rho: abc" is found by "rho").
  Status Convert(const YAML::Node& node,
                 const YAML::Mark& mark,
                 const std::string& path,
                 ConfigNode* out,
                 int depth = 0) {
    const int line = OneBased(mark.line);
    const int column = OneBased(mark.column);
    if (depth > kMaxDepth) {
      return InvalidArgument(Where(file_, mark) + ": " + (path.empty() ? "the document" : path) +
                             " nests deeper than " + std::to_string(kMaxDepth) +
                             " levels (an alias inside its own anchor?)");
    }
    if (++nodes_ > kMaxNodes) {
      return InvalidArgument(Where(file_, mark) + ": the document expands to more than " +
                             std::to_string(kMaxNodes) + " nodes at " +
                             (path.empty() ? "the top level" : path) +
                             " (aliases that repeat aliases?)");
    }
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        // ConfigNode has no located null; an empty value is reported via its parent.
        *out = ConfigNode();
        return Status::Ok();
      case YAML::NodeType::Scalar:
        *out = ConfigNode::Scalar(node.Scalar(), file_, line, column, path);
        return Status::Ok();
      case YAML::NodeType::Sequence: {
        *out = ConfigNode::List(file_, line, column, path);
        std::size_t index = 0;
        for (const YAML::Node& item : node) {
          ConfigNode child;
          const std::string child_path = path + "[" + std::to_string(index++) + "]";
          if (Status status = Convert(item, item.Mark(), child_path, &child, depth + 1);
              !status.ok()) {
            return status;
          }
          out->Append(std::move(child));
        }
        return Status::Ok();
      }
      case YAML::NodeType::Map: {
        *out = ConfigNode::Map(file_, line, column, path);
        // yaml-cpp 0.7 keeps duplicate keys and lookups see only the first, so a repeated
        // key would silently lose a value: reject it, naming both lines.
        std::unordered_map<std::string, YAML::Mark> seen;
        for (const auto& entry : node) {
          const YAML::Node& key = entry.first;
          if (!key.IsScalar()) {
            return InvalidArgument(Where(file_, key.Mark()) + ": keys must be plain scalars " +
                                   (path.empty() ? "at the top level" : "in " + path));
          }
          const std::string name = key.Scalar();
          const auto [it, inserted] = seen.emplace(name, key.Mark());
          if (!inserted) {
            return InvalidArgument(
                Where(file_, key.Mark()) + ": duplicate key '" + name + "' " +
                (path.empty() ? "at the top level" : "in " + path) + ": defined at line " +
                std::to_string(OneBased(it->second.line)) + " and again at line " +
                std::to_string(OneBased(key.Mark().line)));
          }
          ConfigNode child;
          if (Status status =
                  Convert(entry.second, key.Mark(), JoinPath(path, name), &child, depth + 1);
              !status.ok()) {
            return status;
          }
          out->Insert(name, std::move(child));
        }
        return Status::Ok();
      }
    }
    return Internal(Where(file_, mark) + ": unknown YAML node type");
  }

 private:
  const std::string& file_;
  std::size_t nodes_ = 0;
};

}  // namespace

Result<std::string> ReadTextFile(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) return NotFound(path + ": no such file");
  if (fs::is_directory(st)) return InvalidArgument(path + ": is a directory, expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return FailedPrecondition(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return FailedPrecondition(path + ": cannot read: " + std::strerror(errno));
  return text.str();
}

Result<ConfigNode> ParseYamlString(const std::string& text, const std::string& file_name) {
  if (text.size() > kMaxFileBytes) {
    return InvalidArgument(file_name + ": " + std::to_string(text.size()) +
                           " bytes; a deployment file may have at most " +
                           std::to_string(kMaxFileBytes) + " bytes");
  }
  if (const std::size_t bad = FirstInvalidUtf8(text); bad != std::string::npos) {
    const std::size_t line_start = text.rfind('\n', bad == 0 ? 0 : bad - 1);
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n');
    const std::size_t column = bad - (line_start == std::string::npos ? 0 : line_start + 1) + 1;
    char hex[8];
    std::snprintf(hex, sizeof(hex), "%02x", static_cast<unsigned char>(text[bad]));
    return InvalidArgument(file_name + ":" + std::to_string(line) + ":" + std::to_string(column) +
                           ": not UTF-8 text (byte 0x" + hex +
                           "); YAML files are Unicode, save it as UTF-8");
  }
  if (const int line = LeadingCommaLine(text); line > 0) {
    return InvalidArgument(file_name + ":" + std::to_string(line) +
                           ": YAML syntax error: a document cannot start with ','");
  }
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    return InvalidArgument(Where(file_name, e.mark) + ": YAML syntax error: " + e.msg);
  } catch (const std::exception& e) {
    return Internal(file_name + ": YAML parser failed: " + e.what());
  }
  if (documents.empty()) return ConfigNode();  // empty file or only comments
  if (documents.size() > 1) {
    return InvalidArgument(Where(file_name, documents[1].Mark()) +
                           ": expected one YAML document, found " +
                           std::to_string(documents.size()));
  }
  ConfigNode root;
  try {
    // The root is reported at 1:1 when it is a map, so "missing required key ... at the top
    // level" points at the start of the file rather than at its first key.
    YAML::Mark mark = documents[0].Mark();
    if (documents[0].IsMap()) mark.line = mark.column = 0;
    Converter converter(file_name);
    if (Status status = converter.Convert(documents[0], mark, "", &root); !status.ok()) {
      return status;
    }
  } catch (const YAML::Exception& e) {
    return InvalidArgument(Where(file_name, e.mark) + ": " + e.msg);
  }
  return root;
}

Result<ConfigNode> ParseYamlFile(const std::string& path) {
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxFileBytes) {  // before reading it (errors: ReadTextFile names them)
    return InvalidArgument(path + ": " + std::to_string(size) +
                           " bytes; a deployment file may have at most " +
                           std::to_string(kMaxFileBytes) + " bytes");
  }
  Result<std::string> text = ReadTextFile(path);
  if (!text.ok()) return text.status();
  return ParseYamlString(text.value(), path);
}

}  // namespace dede::internal
