// yaml-cpp -> ConfigNode. This file and deployment.cpp are the only code that includes
// yaml-cpp; its exceptions stop here and become a Status naming file:line:column.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <sstream>
#include <string_view>
#include <thread>
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

// The first byte YAML does not allow in a stream (C0 controls other than tab, line feed and
// carriage return, and DEL), or npos. yaml-cpp 0.7 hangs on some of them ("\\0,").
std::size_t FirstControlCharacter(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) return i;
  }
  return std::string::npos;
}

// yaml-cpp 0.7 loops forever, allocating, on a ',' token that starts a document or follows a
// document's root node. Documents start after `---` / `...`, at a line less indented than a
// root collection, after a root scalar: the fuzzer found each ("    a: 1\n  , b", "y\n{\n#\n,",
// "!,", "[a] ,", "- a\n\"x\" ,"). yaml-cpp reports every such ',' as an error (it does not hang)
// once the root is a block mapping at column 1, which a deployment is anyway. So before yaml-cpp
// sees the text, every document must have as root either a block mapping whose first key is
// at column 1, or one flow collection `{ ... }` / `[ ... ]` (optionally tagged or anchored)
// with nothing but comments after it; and no line may start with ',' outside a flow
// collection, a quoted scalar or a block scalar (such a line can only continue a plain scalar:
// quote the value). A small lexer tracks quotes, flow brackets, comments and block scalars.
// Returns "" or the error, "<line>: <what>".
std::string DocumentShapeError(const std::string& text) {
  std::size_t pos = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;  // UTF-8 byte order mark
  enum class Root { kNone, kMap, kFlow, kDone };                      // of the current document
  Root root = Root::kNone;
  int flow = 0;           // open [ and { outside quotes
  char quote = 0;         // a quoted scalar continues on the next line
  int block_parent = -1;  // in a block scalar: the indentation of the line that opened it
  // The last line ended inside a plain scalar, which the next line may continue ("[z\n\"],":
  // the '"' is the scalar's text, not a quote).
  bool plain_carry = false;
  int line = 0;
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  const auto at = [&line](const std::string& what) { return std::to_string(line) + ": " + what; };
  while (pos <= text.size()) {
    ++line;
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view rest(text.data() + pos, end - pos);
    pos = end + 1;
    const std::size_t first = rest.find_first_not_of(" \t\r");
    const std::size_t spaces = rest.find_first_not_of(' ');
    const int indent = static_cast<int>(spaces == std::string_view::npos ? rest.size() : spaces);
    const bool marker = rest.size() >= 3 &&
                        (rest.substr(0, 3) == "---" || rest.substr(0, 3) == "...") &&
                        (rest.size() == 3 || blank(rest[3]));
    if (block_parent >= 0) {
      if (!marker && (first == std::string_view::npos || indent > block_parent)) continue;
      block_parent = -1;
    }
    std::size_t start = 0;  // where the lexer starts on this line
    if (marker && quote == 0) {
      start = 3;
      root = Root::kNone;
      flow = 0;
    }
    const bool top = quote == 0 && flow == 0;  // the line starts outside quotes and brackets
    const std::size_t token = rest.find_first_not_of(" \t\r", start);
    const bool content = token != std::string_view::npos && rest[token] != '#' &&
                         !(rest[token] == '%' && token == 0 && !marker && root == Root::kNone);
    if (top && content) {
      if (rest[token] == ',') return at("YAML syntax error: a line cannot start with ','");
      if (root == Root::kDone)
        return at(
            "YAML syntax error: content after the document's { } or [ ] (a deployment "
            "is one mapping)");
    }
    const bool first_line = top && content && root == Root::kNone;
    // token_start: the next character begins a token. plain: a plain scalar has begun on this
    // line (a ',' then belongs to it). A quote, bracket or indicator opens only where a token
    // starts (a plain scalar may hold them: "it's", "x[1]").
    // leading: only properties (a tag, an anchor) so far on the document's first line.
    // A continuation line of a plain scalar: inside brackets, or indented (at column 1 a new
    // key starts: a root scalar is refused anyway).
    const bool continues = plain_carry && content && (flow > 0 || indent > 0);
    plain_carry = false;
    bool token_start = true, plain = continues, key = false, leading = !continues;
    bool comment = false;
    // Where the last quote, bracket or flow ',' ended: yaml-cpp takes a '#' right after one as
    // a comment ("[1]#,", "\"x\"#y"), as it does after a blank.
    std::size_t closer = std::string_view::npos;
    for (std::size_t i = start; i < rest.size(); ++i) {
      const char c = rest[i];
      if (quote == '"') {
        if (c == '\\')
          ++i;
        else if (c == '"')
          quote = 0, closer = i;
        continue;
      }
      if (quote == '\'') {
        if (c == '\'' && i + 1 < rest.size() && rest[i + 1] == '\'')
          ++i;
        else if (c == '\'')
          quote = 0, closer = i;
        continue;
      }
      if (blank(c)) {
        token_start = true;
        continue;
      }
      if (c == '#' && (i == 0 || blank(rest[i - 1]) || closer + 1 == i)) {
        comment = true;  // (a comment ends a plain scalar)
        break;
      }
      if (root == Root::kDone && flow == 0)
        return at(
            "YAML syntax error: content after the document's { } or [ ] (a deployment "
            "is one mapping)");
      if (c == ',') {
        if (flow > 0) {
          token_start = true;
          plain = false;
          closer = i;
          continue;
        }
        if (token_start && !plain)
          return at(
              "YAML syntax error: ',' outside [ ] or { } that "
              "continues no value");
        token_start = false;
        continue;
      }
      if (token_start && !plain && (c == '"' || c == '\'')) {
        quote = c;
        continue;
      }
      if (token_start && !plain && (c == '[' || c == '{')) {
        if (first_line && flow == 0 && root == Root::kNone && leading) root = Root::kFlow;
        ++flow;
        closer = i;
        continue;  // the next character starts a token too
      }
      if (flow > 0 && (c == ']' || c == '}')) {
        --flow;
        closer = i;
        token_start = flow == 0;  // at the top level, whatever follows is a new token
        plain = false;
        if (flow == 0 && root == Root::kFlow) root = Root::kDone;
        continue;
      }
      if (flow == 0 && token_start && !plain && (c == '|' || c == '>')) {
        block_parent = indent;
        break;  // the indicator's modifiers and a comment may follow; the text starts below
      }
      const bool indicator =
          (c == ':' || c == '-' || c == '?') && (i + 1 == rest.size() || blank(rest[i + 1]));
      if (indicator) {
        if ((c == ':' || (c == '?' && leading)) && flow == 0) key = true;  // '?': explicit key
        leading = false;
        token_start = true;
        plain = false;
        continue;
      }
      if (token_start && !plain && (c == '!' || c == '&' || c == '*')) {
        // A tag, an anchor or an alias: up to the next blank (a flow indicator ends it too).
        while (i + 1 < rest.size() && !blank(rest[i + 1]) && rest[i + 1] != ',' &&
               rest[i + 1] != '[' && rest[i + 1] != ']' && rest[i + 1] != '{' && rest[i + 1] != '}')
          ++i;
        token_start = true;  // the node's content (or a stray ',') comes next
        continue;
      }
      if (token_start && !plain) plain = true;  // a plain scalar begins
      token_start = false;
      leading = false;
    }
    plain_carry = plain && !comment && quote == 0 && block_parent < 0;
    if (first_line && root == Root::kNone) {
      // The document's first line: a mapping's first key, at column 1.
      if (!key || static_cast<int>(token) != 0 || rest[token] == '-')
        return at(
            "the document must be a mapping whose first key starts at column 1 (or one "
            "{ ... }); found '" +
            std::string(rest.substr(token, 20)) + "'");
      root = Root::kMap;
    }
  }
  return "";
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

// yaml-cpp 0.7 also runs away (an endless loop that allocates) on inputs the shape check above
// does not recognise: the fuzzer keeps finding new ones. So the text is first parsed in a
// child process that is killed after a time limit (and, outside sanitizer builds, limited to
// 1 GiB plus 256 bytes per byte of text beyond what it inherits); only text that the child
// parsed to the end is parsed again here. Forking costs about a millisecond; deployment files
// are read once per run. Where fork fails, the text is parsed in-process as before.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

std::string ProbeYamlInChild(const std::string& text) {
  const double limit_seconds = 2.0 + static_cast<double>(text.size()) / (1 << 20);
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return "";
  if (pid == 0) {
    if (!kSanitized) {
      long pages = 0, page_size = ::sysconf(_SC_PAGESIZE);
      if (std::FILE* statm = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(statm, "%ld", &pages) != 1) pages = 0;
        std::fclose(statm);
      }
      if (pages > 0 && page_size > 0) {
        // yaml-cpp's nodes take tens of bytes per byte of text: 256 per byte leaves room.
        const rlim_t bytes = static_cast<rlim_t>(pages) * static_cast<rlim_t>(page_size) +
                             (rlim_t{1} << 30) + 256 * static_cast<rlim_t>(text.size());
        const struct rlimit limit = {bytes, bytes};
        ::setrlimit(RLIMIT_AS, &limit);
      }
    }
    try {
      (void)YAML::LoadAll(text);
    } catch (const std::bad_alloc&) {
      ::_exit(3);  // the memory limit: a runaway
    } catch (...) {
      // A syntax error is reported by the parse in the parent.
    }
    ::_exit(0);
  }
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_seconds);
  int status = 0;
  auto wait = std::chrono::microseconds(100);
  while (true) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) return "";  // not our child any more: parse here
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%.1f", limit_seconds);
      return std::string("the YAML parser (yaml-cpp 0.7) did not finish within ") + buf +
             " s: the file is not valid YAML in a way that makes the parser loop (look for a "
             "',' or a bracket outside [ ] and { })";
    }
    std::this_thread::sleep_for(wait);
    wait = std::min(wait * 2, std::chrono::microseconds(20000));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  return "the YAML parser (yaml-cpp 0.7) ran out of memory or crashed on this file (it is not "
         "valid YAML in a way the parser does not survive)";
}

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
    const auto line =
        1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n');
    const std::size_t column = bad - (line_start == std::string::npos ? 0 : line_start + 1) + 1;
    char hex[8];
    std::snprintf(hex, sizeof(hex), "%02x", static_cast<unsigned char>(text[bad]));
    return InvalidArgument(file_name + ":" + std::to_string(line) + ":" + std::to_string(column) +
                           ": not UTF-8 text (byte 0x" + hex +
                           "); YAML files are Unicode, save it as UTF-8");
  }
  if (const std::size_t bad = FirstControlCharacter(text); bad != std::string::npos) {
    const auto line =
        1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n');
    char hex[8];
    std::snprintf(hex, sizeof(hex), "%02x", static_cast<unsigned char>(text[bad]));
    return InvalidArgument(file_name + ":" + std::to_string(line) + ": control character 0x" + hex +
                           " is not allowed in YAML (only tab, line feed and carriage return)");
  }
  if (const std::string why = DocumentShapeError(text); !why.empty())
    return InvalidArgument(file_name + ":" + why);
  if (const std::string why = ProbeYamlInChild(text); !why.empty())
    return InvalidArgument(file_name + ": " + why);
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
