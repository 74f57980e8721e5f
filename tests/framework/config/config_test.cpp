#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "config/deployment.h"
#include "dede/config_node.h"
#include "options_doc.h"

namespace dede::internal {
namespace {

namespace fs = std::filesystem;
using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const std::string kFixtures = DEDE_CONFIG_FIXTURES;

std::string Fixture(const std::string& name) { return kFixtures + "/" + name; }

// A fresh directory per test, so tests can run in parallel.
fs::path TestDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path dir =
      fs::path(::testing::TempDir()) / "dede_config_test" / info->test_suite_name() / info->name();
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// "k12.yaml". Appended piecewise: `"k" + std::to_string(i)` trips GCC 12's -Wrestrict.
std::string FileName(char prefix, int index) {
  std::string name(1, prefix);
  name += std::to_string(index);
  name += ".yaml";
  return name;
}

std::string WriteFile(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
  return path.string();
}

ConfigNode Parse(const std::string& text, const std::string& file = "f.yaml") {
  Result<ConfigNode> node = ParseYamlString(text, file);
  EXPECT_TRUE(node.ok()) << node.status().ToString();
  return node.ok() ? node.value() : ConfigNode();
}

const OptionInfo* FindOption(const std::string& key) {
  for (const OptionInfo& option : OptionRegistry()) {
    if (option.key == key) return &option;
  }
  return nullptr;
}

std::string Format(const DeploymentConfig& config, const std::string& key) {
  Result<std::string> text = FormatOption(config, key);
  EXPECT_TRUE(text.ok()) << key;
  return text.ok() ? text.value() : "";
}

// Block YAML for dotted keys given in registry order (sections are contiguous there).
std::string NestedYaml(const std::vector<std::pair<std::string, std::string>>& values) {
  std::string out;
  std::vector<std::string> open;
  for (const auto& [key, value] : values) {
    std::vector<std::string> parts;
    std::stringstream stream(key);
    for (std::string part; std::getline(stream, part, '.');) parts.push_back(part);
    const std::string leaf = parts.back();
    parts.pop_back();
    std::size_t common = 0;
    while (common < open.size() && common < parts.size() && open[common] == parts[common]) {
      ++common;
    }
    open.resize(common);
    while (open.size() < parts.size()) {
      out += std::string(2 * open.size(), ' ') + parts[open.size()] + ":\n";
      open.push_back(parts[open.size()]);
    }
    out += std::string(2 * open.size(), ' ') + leaf + ": " + value + "\n";
  }
  return out;
}

// Registry defaults, plus values for the required keys; `override` replaces one value.
std::vector<std::pair<std::string, std::string>> DefaultValues(
    const std::string& override_key = "", const std::string& override_value = "") {
  std::vector<std::pair<std::string, std::string>> values;
  for (const OptionInfo& option : OptionRegistry()) {
    std::string value = option.default_value;
    if (option.key == "deployment.name") value = "generated";
    if (option.key == "plugin.name") value = "fixture_plugin";
    if (option.key == "storage.database") value = "\":memory:\"";
    if (option.key == override_key) value = override_value;
    values.emplace_back(option.key, value);
  }
  return values;
}

// ---------------------------------------------------------------------------------------------
// ConfigNode

TEST(ConfigNode, WhereNamesFileLineAndColumn) {
  EXPECT_EQ(ConfigNode::Scalar("1", "conf.yaml", 12, 5, "a.b").Where(), "conf.yaml:12:5");
  EXPECT_EQ(ConfigNode::Map("conf.yaml", 0, 0, "").Where(), "conf.yaml");
  EXPECT_EQ(ConfigNode().Where(), "<config>");
}

TEST(ConfigNode, FindLooksUpMapKeysOnly) {
  ConfigNode map = ConfigNode::Map("f.yaml", 1, 1, "s");
  map.Insert("k", ConfigNode::Scalar("v", "f.yaml", 2, 3, "s.k"));
  ASSERT_NE(map.Find("k"), nullptr);
  EXPECT_EQ(map.Find("k")->scalar(), "v");
  EXPECT_TRUE(map.Has("k"));
  EXPECT_EQ(map.Find("other"), nullptr);
  ConfigNode list = ConfigNode::List("f.yaml", 1, 1, "l");
  list.Append(ConfigNode::Scalar("k", "f.yaml", 1, 3, "l[0]"));
  EXPECT_EQ(list.Find("k"), nullptr);
  EXPECT_EQ(list.items().size(), 1u);
}

TEST(ConfigNode, ReadKeepsTheDefaultWhenTheKeyIsAbsent) {
  const ConfigNode node = Parse("a: {x: 1}\n");
  const ConfigNode& a = *node.Find("a");
  double d = 2.5;
  int i = 7;
  bool b = true;
  std::string s = "keep";
  EXPECT_TRUE(a.Read("missing", &d).ok());
  EXPECT_TRUE(a.Read("missing", &i).ok());
  EXPECT_TRUE(a.Read("missing", &b).ok());
  EXPECT_TRUE(a.Read("missing", &s).ok());
  EXPECT_EQ(d, 2.5);
  EXPECT_EQ(i, 7);
  EXPECT_TRUE(b);
  EXPECT_EQ(s, "keep");
  // An empty section ("a:") has no keys.
  const ConfigNode empty = Parse("a:\n");
  EXPECT_TRUE(empty.Find("a")->IsNull());
  EXPECT_TRUE(empty.Find("a")->Read("x", &d).ok());
  EXPECT_EQ(d, 2.5);
}

TEST(ConfigNode, ReadConvertsScalars) {
  const ConfigNode node = Parse(
      "a:\n"
      "  d: 1e-5\n"
      "  inf: .inf\n"
      "  neg: -.inf\n"
      "  plus: +2.5\n"
      "  i: -42\n"
      "  sci: 1e4\n"
      "  b: yes\n"
      "  s: hello world\n");
  const ConfigNode& a = *node.Find("a");
  double d = 0;
  ASSERT_TRUE(a.Read("d", &d).ok());
  EXPECT_EQ(d, 1e-5);
  ASSERT_TRUE(a.Read("inf", &d).ok());
  EXPECT_TRUE(std::isinf(d) && d > 0);
  ASSERT_TRUE(a.Read("neg", &d).ok());
  EXPECT_TRUE(std::isinf(d) && d < 0);
  ASSERT_TRUE(a.Read("plus", &d).ok());
  EXPECT_EQ(d, 2.5);
  int i = 0;
  ASSERT_TRUE(a.Read("i", &i).ok());
  EXPECT_EQ(i, -42);
  ASSERT_TRUE(a.Read("sci", &i).ok());  // integral values in scientific notation are integers
  EXPECT_EQ(i, 10000);
  bool b = false;
  ASSERT_TRUE(a.Read("b", &b).ok());
  EXPECT_TRUE(b);
  std::string s;
  ASSERT_TRUE(a.Read("s", &s).ok());
  EXPECT_EQ(s, "hello world");
}

TEST(ConfigNode, BooleansAcceptTheYamlSpellings) {
  for (const char* yes : {"true", "True", "yes", "on", "ON"}) {
    EXPECT_TRUE(ConfigNode::Scalar(yes, "f", 1, 1, "k").AsBool().value()) << yes;
  }
  for (const char* no : {"false", "FALSE", "no", "off"}) {
    EXPECT_FALSE(ConfigNode::Scalar(no, "f", 1, 1, "k").AsBool().value()) << no;
  }
  const Result<bool> bad = ConfigNode::Scalar("maybe", "f.yaml", 3, 4, "a.k").AsBool();
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "f.yaml:3:4: a.k = 'maybe': expected a boolean (true or false)");
}

TEST(ConfigNode, WrongTypeNamesFileLineKeyAndValue) {
  const ConfigNode node = Parse("a:\n  x: abc\n  n: 1.5\n  m: {y: 1}\n");
  const ConfigNode& a = *node.Find("a");
  double d = 0;
  Status status = a.Read("x", &d);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "f.yaml:2:3: a.x = 'abc': expected a number");
  int i = 0;
  EXPECT_EQ(a.Read("n", &i).message(), "f.yaml:3:3: a.n = '1.5': expected an integer");
  EXPECT_EQ(a.Read("m", &d).message(), "f.yaml:4:3: a.m: expected a number, got a map");
  for (const char* bad : {"1.5x", "0x10", "", "nan(1)", "1e", "--1", "1,5"}) {
    EXPECT_FALSE(ConfigNode::Scalar(bad, "f", 1, 1, "k").AsDouble().ok()) << bad;
  }
  EXPECT_FALSE(ConfigNode::Scalar("1e999", "f", 1, 1, "k").AsDouble().ok());
  EXPECT_FALSE(ConfigNode::Scalar("99999999999999999999", "f", 1, 1, "k").AsInt().ok());
}

TEST(ConfigNode, OutOfRangeNamesTheViolatedConstraint) {
  const ConfigNode node = Parse("a:\n  n: 0\n  big: 3000000000\n  d: -0.5\n  nan: .nan\n");
  const ConfigNode& a = *node.Find("a");
  int n = 5;
  Status status = a.Read("n", &n, 1);
  EXPECT_EQ(status.message(), "f.yaml:2:3: a.n = 0. Violated constraint: a.n >= 1");
  EXPECT_EQ(n, 5);  // unchanged on failure
  EXPECT_EQ(a.Read("big", &n).message(),
            "f.yaml:3:3: a.big = 3000000000. Violated constraint: a.big <= 2147483647");
  double d = 1;
  EXPECT_EQ(a.Read("d", &d, 0.0, 1.0).message(),
            "f.yaml:4:3: a.d = -0.5. Violated constraint: a.d >= 0");
  EXPECT_EQ(a.Read("d", &d, -2.0, -1.0).message(),
            "f.yaml:4:3: a.d = -0.5. Violated constraint: a.d <= -1");
  EXPECT_THAT(a.Read("nan", &d).message(), HasSubstr("a.nan is a number (not NaN)"));
  EXPECT_EQ(d, 1);
}

TEST(ConfigNode, EmptyValueIsReportedAtItsMap) {
  const ConfigNode node = Parse("a:\n  x:\n  y: 1\n");
  double d = 0;
  EXPECT_EQ(node.Find("a")->Read("x", &d).message(),
            "f.yaml:1:1: a.x has no value: expected a number");
}

TEST(ConfigNode, ReadChoiceListsTheChoices) {
  const ConfigNode node = Parse("s:\n  overrun: catch_up\n  ok: skip\n");
  const ConfigNode& s = *node.Find("s");
  std::string value = "skip";
  EXPECT_EQ(s.ReadChoice("overrun", {"skip", "back_to_back"}, &value).message(),
            "f.yaml:2:3: s.overrun = 'catch_up': expected one of: skip, back_to_back");
  EXPECT_EQ(value, "skip");
  EXPECT_TRUE(s.ReadChoice("ok", {"skip", "back_to_back"}, &value).ok());
  EXPECT_TRUE(s.ReadChoice("absent", {"skip"}, &value).ok());
}

TEST(ConfigNode, RequireNamesTheMapAndItsLocation) {
  const ConfigNode node = Parse("top: 1\nplugin:\n  paths: []\n");
  const ConfigNode& plugin = *node.Find("plugin");
  EXPECT_TRUE(plugin.Require("paths").ok());
  const Status status = plugin.Require("name");
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "f.yaml:2:1: missing required key 'name' in plugin");
  EXPECT_EQ(node.Require("storage").message(),
            "f.yaml:1:1: missing required key 'storage' at the top level");
}

TEST(ConfigNode, CheckKeysNamesTheUnknownKeyAndTheAllowedOnes) {
  const ConfigNode node = Parse("plugin:\n  name: p\n  nmae: q\n");
  const ConfigNode& plugin = *node.Find("plugin");
  EXPECT_TRUE(plugin.CheckKeys({"name", "nmae"}).ok());
  EXPECT_EQ(plugin.CheckKeys({"name", "paths", "settings"}).message(),
            "f.yaml:3:3: unknown key 'nmae' in plugin; allowed: name, paths, settings");
  EXPECT_EQ(node.CheckKeys({"deployment"}).message(),
            "f.yaml:1:1: unknown key 'plugin' at the top level; allowed: deployment");
}

TEST(ConfigNode, ReadOnANonMapIsAnError) {
  const ConfigNode node = Parse("a: 5\n");
  double d = 0;
  EXPECT_EQ(node.Find("a")->Read("x", &d).message(), "f.yaml:1:1: a = '5': expected a map");
}

// ---------------------------------------------------------------------------------------------
// YAML parser

TEST(YamlParser, KeepsPositionsAndPaths) {
  const ConfigNode root = Parse(
      "# comment\n"
      "plugin:\n"
      "  name: te\n"
      "  paths:\n"
      "    - a\n"
      "    - b\n"
      "  settings: {k: [1, {x: 2}]}\n",
      "dir/te.yaml");
  ASSERT_TRUE(root.IsMap());
  EXPECT_EQ(root.Where(), "dir/te.yaml:1:1");
  const ConfigNode& plugin = *root.Find("plugin");
  EXPECT_EQ(plugin.path(), "plugin");
  EXPECT_EQ(plugin.Where(), "dir/te.yaml:2:1");  // a map value is located at its key
  const ConfigNode& name = *plugin.Find("name");
  EXPECT_EQ(name.path(), "plugin.name");
  EXPECT_EQ(name.scalar(), "te");
  EXPECT_EQ(name.line(), 3);
  EXPECT_EQ(name.column(), 3);
  const ConfigNode& paths = *plugin.Find("paths");
  ASSERT_TRUE(paths.IsList());
  ASSERT_EQ(paths.items().size(), 2u);
  EXPECT_EQ(paths.items()[1].path(), "plugin.paths[1]");
  EXPECT_EQ(paths.items()[1].Where(), "dir/te.yaml:6:7");
  const ConfigNode& x = *plugin.Find("settings")->Find("k")->items()[1].Find("x");
  EXPECT_EQ(x.path(), "plugin.settings.k[1].x");
  EXPECT_EQ(x.scalar(), "2");
  EXPECT_EQ(x.line(), 7);
}

TEST(YamlParser, EmptyDocumentIsNull) {
  EXPECT_TRUE(Parse("").IsNull());
  EXPECT_TRUE(Parse("# only a comment\n").IsNull());
}

TEST(YamlParser, SyntaxErrorNamesFileAndLine) {
  const Result<ConfigNode> node = ParseYamlFile(Fixture("syntax_error.yaml"));
  ASSERT_FALSE(node.ok());
  EXPECT_EQ(node.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(node.status().message(),
              StartsWith(Fixture("syntax_error.yaml") + ":4:12: YAML syntax error: "));
}

TEST(YamlParser, MissingFileIsNotFound) {
  const std::string path = Fixture("does_not_exist.yaml");
  const Result<ConfigNode> node = ParseYamlFile(path);
  ASSERT_FALSE(node.ok());
  EXPECT_EQ(node.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(node.status().message(), path + ": no such file");
  EXPECT_EQ(ParseYamlFile(kFixtures).status().code(), StatusCode::kInvalidArgument);  // a dir
}

TEST(YamlParser, DuplicateKeyNamesBothLines) {
  const Result<ConfigNode> node = ParseYamlFile(Fixture("duplicate_key.yaml"));
  ASSERT_FALSE(node.ok());
  EXPECT_EQ(node.status().message(),
            Fixture("duplicate_key.yaml") +
                ":8:5: duplicate key 'rho' in solver.admm: defined at line 6 and again at line 8");
  const Result<ConfigNode> top = ParseYamlString("a: 1\nb: 2\na: 3\n", "t.yaml");
  EXPECT_EQ(top.status().message(),
            "t.yaml:3:1: duplicate key 'a' at the top level: defined at line 1 and again at "
            "line 3");
}

TEST(YamlParser, RejectsSeveralDocuments) {
  const Result<ConfigNode> node = ParseYamlString("a: 1\n---\nb: 2\n", "t.yaml");
  ASSERT_FALSE(node.ok());
  EXPECT_THAT(node.status().message(), HasSubstr("expected one YAML document, found 2"));
}

TEST(YamlParser, RejectsNonScalarKeys) {
  const Result<ConfigNode> node = ParseYamlString("? [a, b]\n: 1\n", "t.yaml");
  ASSERT_FALSE(node.ok());
  EXPECT_THAT(node.status().message(), HasSubstr("t.yaml:1:3: keys must be plain scalars"));
}

// yaml-cpp 0.7 loops forever (allocating) on a document that starts with ','; the parser
// refuses it before yaml-cpp sees it, wherever the document starts: at the start, after a
// marker, or where a line is less indented than the document's first token (found by the
// fuzzer: "    scale: 4.0\n  , each").
TEST(YamlParser, DocumentStartingWithACommaIsASyntaxError) {
  for (const std::string text :
       {",",
        "  ,a: 1",
        "# c\n, x",
        "---\n,",
        "--- ,",
        "a: 1\n---\n,",
        "\xEF\xBB\xBF,",
        "%YAML 1.2\n---\n,",
        "a: 1\n...\n,",
        "    a: 1\n  , b\n",
        "    a: 1\n  ,\n",
        "  a: 1\n, b\n",
        "  a: 1\n# c\n, b\n",
        "  a: 1\n ,b\n",
        "  - a\n, b\n",
        "  a: 1\n  b: [\n, ]\n,\n",
        "#s/ew\n    scale: 4.0\n  , eacu",
        "y 0\nl Mr  # c\n    ,ea6",
        "!,",
        "! ,",
        "&a ,",
        "Y {\n#\n,",
        "[[,,]],,.,]",
        "{a: 1},",
        "[a]x",
        "[1]#,\n,\n",
        "[,,,[[W]]#,,,[[[,,[p\n ,,[[]],,],,,,",
        "[z\n\"],",
        "y\n{\n#\n,",
        "- a\n\"x\" ,",
        "- a\n, b",
        "  a: 1\n",
        "!!str ,",
        "!x\n,",
        "\"a\" ,",
        "[a] ,",
        "{a: 1} ,",
        "a: \"x\" ,",
        // Valid YAML (a plain scalar's continuation line), refused all the same: quote it.
        "a: long\n  , text"}) {
    const Result<ConfigNode> node = ParseYamlString(text, "t.yaml");
    ASSERT_FALSE(node.ok()) << text;
    EXPECT_THAT(node.status().message(),
                AnyOf(HasSubstr("YAML syntax error"), HasSubstr("must be a mapping")))
        << text;
    EXPECT_THAT(node.status().message(), StartsWith("t.yaml:")) << text;
  }
  EXPECT_EQ(ParseYamlString("a: 1\n, b\n", "t.yaml").status().message(),
            "t.yaml:2: YAML syntax error: a line cannot start with ','");
  EXPECT_EQ(ParseYamlString("\"a\"\n", "t.yaml").status().message(),
            "t.yaml:1: the document must be a mapping whose first key starts at column 1 (or "
            "one { ... }); found '\"a\"'");
  EXPECT_EQ(ParseYamlString("{a: 1} ,\n", "t.yaml").status().message(),
            "t.yaml:1: YAML syntax error: content after the document's { } or [ ] (a deployment "
            "is one mapping)");
  EXPECT_EQ(ParseYamlString("a: \"x\" ,\n", "t.yaml").status().message(),
            "t.yaml:1: YAML syntax error: ',' outside [ ] or { } that continues no value");
  EXPECT_EQ(ParseYamlString("{a: 1}\nb: 2\n", "t.yaml").status().message(),
            "t.yaml:2: YAML syntax error: content after the document's { } or [ ] (a deployment "
            "is one mapping)");
  // (yaml-cpp would hang on each above but the last: a root not at column 1, refused all the
  // same.) A ',' that continues a flow collection or a quoted or block scalar is YAML, and is left
  // to yaml-cpp.
  EXPECT_EQ(Parse("a: [1\n  , 2]\n").Find("a")->items().size(), 2u);
  EXPECT_TRUE(ParseYamlString("a: [1,\n, 2]\n", "t.yaml").ok());  // ([1, null, 2] to yaml-cpp)
  EXPECT_EQ(Parse("a: {b: 1\n, c: 2}\n").Find("a")->Find("c")->scalar(), "2");
  EXPECT_EQ(Parse("a: \"x\n, y\"\n").Find("a")->scalar(), "x , y");
  EXPECT_EQ(Parse("a: 'it''s\n, y'\n").Find("a")->scalar(), "it's , y");
  EXPECT_EQ(Parse("{a: 1,\n b: 2}\n# end\n").Find("b")->scalar(), "2");  // a flow root
  EXPECT_EQ(Parse("a: [1]#, x\nb: x#y\n").Find("b")->scalar(), "x#y");   // '#' after ']': a comment
  EXPECT_EQ(Parse("a: x\n  \"y\nb: 2\n").Find("a")->scalar(), "x \"y");  // a plain continued
  EXPECT_EQ(Parse("a: x\n\"b\": 2\n").Find("b")->scalar(), "2");         // a quoted key
  EXPECT_EQ(Parse("a: |\n  x\n  , y\nb: 1\n").Find("a")->scalar(), "x\n, y\n");
  EXPECT_EQ(Parse("a: it's [1\nb: 2\n").Find("b")->scalar(), "2");
  EXPECT_EQ(Parse("a: b , c\n").Find("a")->scalar(), "b , c");  // a plain scalar holds ' ,'
  EXPECT_EQ(Parse("a: x,y\n").Find("a")->scalar(), "x,y");
  EXPECT_EQ(Parse("a: it 's {x\n").Find("a")->scalar(), "it 's {x");  // no quote, no flow
  EXPECT_EQ(Parse("a: [!t x, &y z]\n").Find("a")->items().size(), 2u);
}

// Inputs on which yaml-cpp 0.7 loops forever are parsed first in a child process that is
// killed at the time limit: the parse ends with an error instead of hanging (this one the shape
// check also refuses; the probe is the net for the ones it does not know).
TEST(YamlParser, ARunawayParseInTheChildIsAnError) {
  const auto start = std::chrono::steady_clock::now();
  const std::string why = ProbeYamlInChild("[z\n\"],");
  // Killed at 2 s, or stopped by the memory limit first (Release builds).
  EXPECT_THAT(why, AnyOf(HasSubstr("did not finish within 2.0 s"), HasSubstr("ran out of memory")));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(ProbeYamlInChild("a: [1, 2]\nb: {c: d}\n"), "");
  EXPECT_EQ(ProbeYamlInChild("a: [1, 2\n"), "");  // a syntax error is the parent's to report
}

// YAML streams allow no C0 control characters but tab, line feed and carriage return; yaml-cpp
// 0.7 hangs on "\0," (found by the fuzzer).
TEST(YamlParser, ControlCharactersAreRejectedWithTheirLine) {
  for (const std::string& text :
       {std::string("\0,", 2), std::string("a: 1\nb: \x01\n"), std::string("a: \x7f\n")}) {
    const Result<ConfigNode> node = ParseYamlString(text, "t.yaml");
    ASSERT_FALSE(node.ok());
    EXPECT_THAT(node.status().message(), HasSubstr("control character 0x"));
  }
  const Result<ConfigNode> node = ParseYamlString("a: 1\nb: \x01\n", "t.yaml");
  EXPECT_THAT(node.status().message(), HasSubstr("t.yaml:2: control character 0x01"));
  EXPECT_EQ(Parse("a: 1\r\nb: \"x\ty\"\r\n").Find("b")->scalar(), "x\ty");  // CR and tab pass
}

// Aliases are expanded into the tree: an alias of its own anchor and aliases that repeat
// aliases stop at the depth and size limits with an error naming the file and the path.
TEST(YamlParser, RecursiveAndExplodingAliasesAreRejected) {
  for (const std::string text : {"&a [*a]", "a: &x\n  b: *x\n", "plugin: {settings: &s {k: *s}}"}) {
    const Result<ConfigNode> node = ParseYamlString(text, "t.yaml");
    ASSERT_FALSE(node.ok()) << text;
    EXPECT_THAT(node.status().message(), HasSubstr("nests deeper than 100 levels")) << text;
    EXPECT_THAT(node.status().message(), StartsWith("t.yaml:")) << text;
  }
  std::string laughs = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 9; ++i) {  // 10^10 scalars once expanded
    // Appended piecewise: GCC 12's -Wrestrict misfires on chains of std::string +.
    const std::string name = std::to_string(i), previous = std::to_string(i - 1);
    laughs += 'a';
    laughs += name;
    laughs += ": &a";
    laughs += name;
    laughs += " [";
    for (int j = 0; j < 10; ++j) {
      if (j > 0) laughs += ", ";
      laughs += "*a";
      laughs += previous;
    }
    laughs += "]\n";
  }
  const Result<ConfigNode> bomb = ParseYamlString(laughs, "t.yaml");
  ASSERT_FALSE(bomb.ok());
  EXPECT_THAT(bomb.status().message(), HasSubstr("expands to more than 1000000 nodes"));
  // Ordinary anchors and aliases still work.
  const ConfigNode shared = Parse("base: &b {rho: 2}\nother: *b\n");
  EXPECT_EQ(shared.Find("other")->Find("rho")->scalar(), "2");
}

TEST(YamlParser, TextThatIsNotUtf8IsRejectedAtItsPosition) {
  const Result<ConfigNode> latin1 = ParseYamlString("deployment:\n  name: caf\xe9\n", "t.yaml");
  ASSERT_FALSE(latin1.ok());
  EXPECT_EQ(latin1.status().message(),
            "t.yaml:2:12: not UTF-8 text (byte 0xe9); YAML files are Unicode, save it as UTF-8");
  for (const std::string bad :
       {"a: \xc0\x80", "a: \xed\xa0\x80", "a: \xf4\x90\x80\x80", "a: \xe2\x82"}) {
    EXPECT_FALSE(ParseYamlString(bad, "t.yaml").ok())
        << bad;  // overlong, surrogate, > U+10FFFF, cut
  }
  EXPECT_EQ(Parse("name: caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\n").Find("name")->scalar(),
            "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
}

TEST(YamlParser, OversizedFileIsRejected) {
  const Result<ConfigNode> node = ParseYamlString(std::string((16u << 20) + 1, ' '), "t.yaml");
  ASSERT_FALSE(node.ok());
  EXPECT_THAT(node.status().message(), HasSubstr("a deployment file may have at most"));
}

// ---------------------------------------------------------------------------------------------
// Deployments

TEST(LoadDeployment, FullFileRoundTripsIntoTheConfig) {
  const std::string path = Fixture("full.yaml");
  const Result<DeploymentConfig> loaded = LoadDeployment(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const DeploymentConfig& c = loaded.value();
  const fs::path dir = fs::path(kFixtures).lexically_normal();
  EXPECT_EQ(c.file, path);
  EXPECT_EQ(c.dir, dir.string());
  EXPECT_THAT(c.text, HasSubstr("name: traffic_engineering"));
  EXPECT_EQ(c.name, "te-b4");
  EXPECT_EQ(c.seed, 7u);
  EXPECT_EQ(c.plugin, "traffic_engineering");
  EXPECT_EQ(c.plugin_paths,
            (std::vector<std::string>{(dir / "../build/release/plugins").lexically_normal(),
                                      "/opt/dede/plugins/libte.so"}));
  ASSERT_TRUE(c.plugin_settings.IsMap());
  ASSERT_EQ(c.plugin_settings.entries().size(), 3u);
  double scale = 0;
  ASSERT_TRUE(c.plugin_settings.Read("demand_scale", &scale).ok());
  EXPECT_EQ(scale, 1.5);
  EXPECT_EQ(c.plugin_settings.Find("topology")->Where(), path + ":7:5");
  EXPECT_EQ(c.plugin_settings.Find("tunnels")->path(), "plugin.settings.tunnels");
  EXPECT_EQ(c.solver, SolverKind::kExact);
  const AdmmOptions& a = c.admm;
  EXPECT_EQ(a.max_iterations, 2000);
  EXPECT_EQ(a.rho, 0.5);
  EXPECT_EQ(a.relaxation, 1.0);
  EXPECT_EQ(a.eps_abs, 1e-6);
  EXPECT_EQ(a.eps_rel, 1e-3);
  EXPECT_EQ(a.check_termination_every, 5);
  EXPECT_EQ(a.rho_update, RhoUpdate::kFixed);
  EXPECT_EQ(a.rho_update_every, 20);
  EXPECT_EQ(a.time_limit_seconds, 10.0);
  EXPECT_EQ(a.num_threads, 2);
  EXPECT_FALSE(a.repair);
  EXPECT_EQ(a.repair_max_rounds, 100);
  EXPECT_EQ(a.final_iterate, FinalIterate::kResourceSide);
  EXPECT_EQ(a.feasibility_tolerance, 1e-5);
  EXPECT_EQ(a.integer_iterations, 50);
  EXPECT_EQ(a.block_node_limit, 500);
  EXPECT_TRUE(a.fill_after_max_min);
  EXPECT_EQ(a.fill_slack, 0.01);
  const ExactOptions& e = c.exact;
  EXPECT_EQ(e.time_limit_seconds, 120.0);
  EXPECT_EQ(e.cut_tolerance, 1e-6);
  EXPECT_EQ(e.max_cut_rounds, 40);
  EXPECT_EQ(e.mip_gap, 1e-4);
  EXPECT_TRUE(e.use_clp_qp);
  EXPECT_TRUE(e.fill_after_max_min) << "solver.fill_after_max_min sets both solvers'";
  EXPECT_EQ(e.fill_slack, 0.01);
  EXPECT_TRUE(c.warnings.empty());
  EXPECT_EQ(c.interval_seconds, 30.0);
  EXPECT_EQ(c.overrun, OverrunPolicy::kBackToBack);
  EXPECT_TRUE(c.simulated_time);
  EXPECT_EQ(c.database, (dir / "data/te.db").string());
  EXPECT_EQ(c.max_rounds, 24);
  EXPECT_EQ(c.max_wall_seconds, 3600.0);
}

TEST(LoadDeployment, AbsentKeysTakeTheirDefaults) {
  const Result<DeploymentConfig> loaded = LoadDeployment(Fixture("minimal.yaml"));
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const DeploymentConfig& c = loaded.value();
  const DeploymentConfig defaults;
  const AdmmOptions admm;
  const ExactOptions exact;
  EXPECT_EQ(c.name, "minimal");
  EXPECT_EQ(c.plugin, "load_balancing");
  EXPECT_EQ(c.database, ":memory:");
  EXPECT_EQ(c.seed, defaults.seed);
  EXPECT_TRUE(c.plugin_paths.empty());
  EXPECT_TRUE(c.plugin_settings.IsMap());
  EXPECT_TRUE(c.plugin_settings.entries().empty());
  EXPECT_EQ(c.plugin_settings.path(), "plugin.settings");
  EXPECT_EQ(c.plugin_settings.Where(), Fixture("minimal.yaml") + ":4:1");  // at `plugin:`
  EXPECT_EQ(c.solver, SolverKind::kAdmm);
  EXPECT_EQ(c.admm.max_iterations, admm.max_iterations);
  EXPECT_EQ(c.admm.rho, admm.rho);
  EXPECT_EQ(c.admm.eps_abs, admm.eps_abs);
  EXPECT_EQ(c.admm.rho_update, admm.rho_update);
  EXPECT_EQ(c.admm.time_limit_seconds, admm.time_limit_seconds);
  EXPECT_EQ(c.admm.num_threads, admm.num_threads);
  EXPECT_EQ(c.exact.time_limit_seconds, exact.time_limit_seconds);
  EXPECT_EQ(c.interval_seconds, 60.0);
  EXPECT_EQ(c.overrun, OverrunPolicy::kSkip);
  EXPECT_FALSE(c.simulated_time);
  EXPECT_EQ(c.max_rounds, 0);
  EXPECT_EQ(c.max_wall_seconds, 0.0);
  for (const OptionInfo& option : OptionRegistry()) {
    if (!option.required) {
      EXPECT_EQ(Format(c, option.key), option.default_value) << option.key;
    }
  }
}

TEST(LoadDeployment, UnknownTopLevelKeyNamesFileLineAndAllowedKeys) {
  const Result<DeploymentConfig> loaded = LoadDeployment(Fixture("unknown_top.yaml"));
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(loaded.status().message(),
            Fixture("unknown_top.yaml") +
                ":3:1: unknown key 'plugins' at the top level; allowed: deployment, plugin, "
                "solver, schedule, storage, inbox, stop, http");
}

TEST(LoadDeployment, UnknownNestedKeyNamesFileLineAndAllowedKeys) {
  const Result<DeploymentConfig> loaded = LoadDeployment(Fixture("unknown_nested.yaml"));
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(loaded.status().message(),
              StartsWith(Fixture("unknown_nested.yaml") +
                         ":7:5: unknown key 'max_iteration' in solver.admm; allowed: "
                         "max_iterations, rho, relaxation, eps_abs,"));
  EXPECT_THAT(loaded.status().message(), HasSubstr("block_node_limit, gap_tolerance"));
  EXPECT_THAT(loaded.status().message(), Not(HasSubstr("verbose")));
}

TEST(LoadDeployment, PluginSettingsAreNotValidated) {
  const fs::path dir = TestDir();
  const std::string path = WriteFile(dir / "d.yaml",
                                     "deployment: {name: t}\n"
                                     "plugin: {name: p, settings: {anything: {goes: [1, 2]}}}\n"
                                     "storage: {database: t.db}\n");
  const Result<DeploymentConfig> loaded = LoadDeployment(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_TRUE(loaded->plugin_settings.Find("anything")->IsMap());
}

TEST(LoadDeployment, WrongTypeNamesFileLineKeyAndValue) {
  const Result<DeploymentConfig> loaded = LoadDeployment(Fixture("wrong_type.yaml"));
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(
      loaded.status().message(),
      Fixture("wrong_type.yaml") + ":6:5: solver.admm.num_threads = 'four': expected an integer");
}

TEST(LoadDeployment, SectionThatIsNotAMapIsAWrongType) {
  const fs::path dir = TestDir();
  const std::string path = WriteFile(dir / "d.yaml",
                                     "deployment: {name: t}\n"
                                     "plugin: {name: p}\n"
                                     "storage: {database: t.db}\n"
                                     "solver: admm\n");
  const Result<DeploymentConfig> loaded = LoadDeployment(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(
      loaded.status().message(),
      StartsWith(path +
                 ":4:1: solver = 'admm': expected a map with keys kind, method, "
                 "cold_start, feasibility_tolerance, fill_after_max_min, fill_slack, admm, exact"));
}

TEST(LoadDeployment, OutOfRangeAdmmValueIsReportedByIsValidAtItsKey) {
  const Result<DeploymentConfig> loaded = LoadDeployment(Fixture("admm_invalid.yaml"));
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(),
            Fixture("admm_invalid.yaml") +
                ":6:5: solver.admm.relaxation: AdmmOptions::relaxation = 2.5. Violated "
                "constraint: 0 < relaxation < 2");
}

TEST(LoadDeployment, CrossFieldAdmmViolationPointsAtTheFieldIsValidNames) {
  const fs::path dir = TestDir();
  const std::string path = WriteFile(dir / "d.yaml",
                                     "deployment: {name: t}\n"
                                     "plugin: {name: p}\n"
                                     "storage: {database: t.db}\n"
                                     "solver:\n"
                                     "  admm:\n"
                                     "    eps_rel: 0\n"
                                     "    eps_abs: 0\n");
  const Result<DeploymentConfig> loaded = LoadDeployment(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(loaded.status().message(),
              StartsWith(path + ":7:5: solver.admm.eps_abs: AdmmOptions::eps_abs = 0. Violated "
                                "constraint: eps_abs > 0 or eps_rel > 0"));
}

TEST(LoadDeployment, OutOfRangeValueNamesTheViolatedConstraint) {
  const Result<DeploymentConfig> loaded = LoadDeployment(Fixture("out_of_range.yaml"));
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(),
            Fixture("out_of_range.yaml") +
                ":5:3: schedule.interval_seconds = 0. Violated constraint: "
                "schedule.interval_seconds >= 0.001");
}

TEST(LoadDeployment, BadChoiceListsTheChoices) {
  const Result<DeploymentConfig> loaded = LoadDeployment(Fixture("bad_choice.yaml"));
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(),
            Fixture("bad_choice.yaml") +
                ":5:3: schedule.overrun = 'catch_up': expected one of: skip, back_to_back");
}

TEST(LoadDeployment, MissingRequiredKeyNamesTheMapAndItsLocation) {
  const Result<DeploymentConfig> loaded = LoadDeployment(Fixture("missing_required.yaml"));
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(),
            Fixture("missing_required.yaml") + ":2:1: missing required key 'name' in plugin");
  // A whole missing section names the full key at the top level.
  const fs::path dir = TestDir();
  const std::string path = WriteFile(dir / "d.yaml", "deployment: {name: t}\nplugin: {name: p}\n");
  EXPECT_EQ(LoadDeployment(path).status().message(),
            path + ":1:1: missing required key 'storage.database' at the top level");
  const std::string empty_section =
      WriteFile(dir / "e.yaml", "deployment: {name: t}\nplugin: {name: p}\nstorage:\n");
  EXPECT_EQ(LoadDeployment(empty_section).status().message(),
            empty_section + ":1:1: missing required key 'database' in storage");
}

TEST(LoadDeployment, EmptyRequiredStringIsRejected) {
  const fs::path dir = TestDir();
  const std::string path = WriteFile(
      dir / "d.yaml", "deployment: {name: ''}\nplugin: {name: p}\nstorage: {database: x}\n");
  EXPECT_EQ(LoadDeployment(path).status().message(),
            path + ":1:14: deployment.name = '': expected a non-empty string");
}

TEST(LoadDeployment, SyntaxErrorNamesFileAndLine) {
  const Result<DeploymentConfig> loaded = LoadDeployment(Fixture("syntax_error.yaml"));
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(loaded.status().message(),
              StartsWith(Fixture("syntax_error.yaml") + ":4:12: YAML syntax error: "));
}

TEST(LoadDeployment, MissingFileIsNotFoundAndNamed) {
  const Result<DeploymentConfig> loaded = LoadDeployment(Fixture("nope.yaml"));
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(loaded.status().message(), Fixture("nope.yaml") + ": no such file");
}

TEST(LoadDeployment, DuplicateKeyNamesBothLines) {
  const Result<DeploymentConfig> loaded = LoadDeployment(Fixture("duplicate_key.yaml"));
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(loaded.status().message(),
              HasSubstr("duplicate_key.yaml:8:5: duplicate key 'rho' in solver.admm: defined at "
                        "line 6 and again at line 8"));
}

// A plugin's recommended settings: applied where the file and its overlays say nothing, never
// over an explicit key; a key outside solver., a map, an unknown key or a bad value is an error
// naming the plugin; an applied one is noted in the stored text.
TEST(ApplyRecommendedSetting, FillsOnlyWhatTheDeploymentLeavesUnset) {
  const std::string path = Fixture("minimal.yaml");
  Result<DeploymentConfig> loaded = LoadDeployment(path, {"solver.admm.relaxation=1.2"});
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  DeploymentConfig c = loaded.value();
  const std::string origin = "plugin 'p'";
  bool applied = false;
  ASSERT_TRUE(
      ApplyRecommendedSetting("solver.admm.final_iterate", "resource", origin, &c, &applied).ok());
  EXPECT_TRUE(applied);
  EXPECT_EQ(c.admm.final_iterate, FinalIterate::kResourceSide);
  EXPECT_THAT(c.text,
              HasSubstr("# Recommended by plugin 'p' (applied): "
                        "solver.admm.final_iterate: resource"));
  ASSERT_TRUE(ApplyRecommendedSetting("solver.cold_start", "repair", origin, &c, &applied).ok());
  EXPECT_TRUE(applied);
  EXPECT_EQ(c.cold_start, ColdStart::kRepair);
  // Set by an overlay (or the file): the deployment's choice stays.
  ASSERT_TRUE(ApplyRecommendedSetting("solver.admm.relaxation", "1.8", origin, &c, &applied).ok());
  EXPECT_FALSE(applied);
  EXPECT_EQ(c.admm.relaxation, 1.2);
  // Applied once: a second recommendation of the same key does not apply again.
  ASSERT_TRUE(ApplyRecommendedSetting("solver.cold_start", "zero", origin, &c, &applied).ok());
  EXPECT_FALSE(applied);
  EXPECT_EQ(c.cold_start, ColdStart::kRepair);
  const DeploymentConfig before = c;
  for (const auto& [key, value, why] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"storage.database", "x.db", "not a scalar option under solver."},
           {"solver.admm.no_such", "1", "not a scalar option under solver."},
           {"solver.admm.relaxationx", "1", "not a scalar option under solver."},
           {"solver.admm.rho", "-3", "solver.admm.rho = -3"},
           {"solver.admm.final_iterate", "sideways", "final_iterate"}}) {
    const Status st = ApplyRecommendedSetting(key, value, origin, &c, &applied);
    ASSERT_FALSE(st.ok()) << key;
    EXPECT_THAT(st.message(), HasSubstr("plugin 'p'")) << key;
    EXPECT_THAT(st.message(), HasSubstr(why)) << key;
    EXPECT_FALSE(applied);
  }
  EXPECT_EQ(c.admm.rho, before.admm.rho);
  EXPECT_EQ(c.text, before.text);
}

// --set KEY=VALUE: applied in order to the parsed file, as if it said so; maps created along
// the key; YAML values; problems name --set and the key; recorded with the file's text.
TEST(LoadDeployment, OverlaysOverrideKeysInOrder) {
  const std::string path = Fixture("minimal.yaml");
  const Result<DeploymentConfig> loaded = LoadDeployment(path,
                                                         {"solver.admm.rho=1e7",
                                                          "solver.admm.rho=250",
                                                          "plugin.settings.servers=8",
                                                          "plugin.settings.note={a: [1, 2]}",
                                                          "deployment.name=\"over laid\""});
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const DeploymentConfig& c = loaded.value();
  EXPECT_EQ(c.admm.rho, 250);  // the later overlay wins
  EXPECT_EQ(c.name, "over laid");
  ASSERT_NE(c.plugin_settings.Find("servers"), nullptr);
  EXPECT_EQ(c.plugin_settings.Find("servers")->scalar(), "8");
  EXPECT_EQ(c.plugin_settings.Find("servers")->path(), "plugin.settings.servers");
  EXPECT_EQ(c.plugin_settings.Find("note")->Find("a")->items()[1].path(),
            "plugin.settings.note.a[1]");
  EXPECT_THAT(c.text,
              HasSubstr("# Overlaid on the command line (--set):\n#   solver.admm.rho=1e7\n"));

  EXPECT_EQ(LoadDeployment(path, {"solver.admm.rho=abc"}).status().message(),
            "--set: solver.admm.rho = 'abc': expected a number");
  EXPECT_EQ(
      LoadDeployment(path, {"deployment.name.x=1"}).status().message(),
      "--set deployment.name.x=1: 'deployment.name' is not a map (it is a value in the file)");
  EXPECT_THAT(LoadDeployment(path, {"solver.admm.rho"}).status().message(),
              HasSubstr("--set solver.admm.rho: expected KEY=VALUE"));
  EXPECT_THAT(LoadDeployment(path, {"solver..rho=1"}).status().message(),
              HasSubstr("--set solver..rho=1: key 'solver..rho'"));
  EXPECT_THAT(LoadDeployment(path, {"solver.admm.rho=[1,"}).status().message(),
              HasSubstr("--set solver.admm.rho=[1,: the value is not YAML"));
  EXPECT_THAT(LoadDeployment(path, {"solver.admm.nope=1"}).status().message(),
              HasSubstr("unknown key 'nope'"));
}

TEST(LoadDeployment, EmptyFileAndNonMapRootAreRejected) {
  const fs::path dir = TestDir();
  const std::string empty = WriteFile(dir / "empty.yaml", "# nothing\n");
  EXPECT_EQ(LoadDeployment(empty).status().message(),
            empty +
                ": the file is empty; a deployment needs at least deployment.name, "
                "plugin.name and storage.database");
  const std::string list = WriteFile(dir / "list.yaml", "- a\n- b\n");
  EXPECT_EQ(LoadDeployment(list).status().message(),
            list +
                ":1: the document must be a mapping whose first key starts at column 1 (or "
                "one { ... }); found '- a'");
}

TEST(LoadDeployment, ReportsEveryProblemInFileOrder) {
  const std::string path = Fixture("several_errors.yaml");
  const Result<DeploymentConfig> loaded = LoadDeployment(path);
  ASSERT_FALSE(loaded.ok());
  std::vector<std::string> lines;
  std::stringstream stream(loaded.status().message());
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 5u) << loaded.status().message();
  EXPECT_EQ(lines[0], path + ":1:1: missing required key 'storage.database' at the top level");
  EXPECT_EQ(lines[1],
            path + ":2:19: unknown key 'colour' in plugin; allowed: name, paths, settings");
  EXPECT_EQ(lines[2], path + ":4:3: solver.kind = 'cplex': expected one of: admm, exact, plugin");
  EXPECT_EQ(lines[3],
            path +
                ":5:10: solver.admm.max_iterations: AdmmOptions::max_iterations = 0. "
                "Violated constraint: max_iterations >= 1");
  EXPECT_EQ(lines[4],
            path + ":6:8: stop.max_rounds = -1. Violated constraint: stop.max_rounds >= 0");
}

TEST(LoadDeployment, EmptyValueOfAKeyIsAnError) {
  const fs::path dir = TestDir();
  const std::string path = WriteFile(dir / "d.yaml",
                                     "deployment: {name: t}\n"
                                     "plugin: {name: p, paths:, settings:}\n"
                                     "storage: {database: t.db}\n"
                                     "solver:\n"
                                     "  admm:\n"
                                     "    rho:\n");
  const Result<DeploymentConfig> loaded = LoadDeployment(path);
  ASSERT_FALSE(loaded.ok());
  // Empty lists and maps are just empty; an empty number is not.
  EXPECT_EQ(loaded.status().message(),
            path + ":5:3: solver.admm.rho has no value: expected a number");
}

TEST(LoadDeployment, RelativePathsResolveAgainstTheFilesDirectory) {
  const fs::path dir = fs::path(kFixtures) / "nested";
  const fs::path expected_dir = fs::absolute(dir).lexically_normal();
  // Load through a path relative to a different working directory.
  const fs::path cwd = fs::current_path();
  fs::current_path(fs::path(kFixtures).parent_path());
  const Result<DeploymentConfig> loaded = LoadDeployment("config/nested/relative.yaml");
  fs::current_path(cwd);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->file, "config/nested/relative.yaml");
  EXPECT_EQ(loaded->dir, expected_dir.string());
  EXPECT_EQ(loaded->plugin_paths,
            (std::vector<std::string>{(expected_dir / "../plugins").lexically_normal().string(),
                                      (expected_dir / "lib/libp.so").string(),
                                      "/abs/plugins"}));
  EXPECT_EQ(loaded->database, (expected_dir / "data/relative.db").string());
}

TEST(LoadDeployment, NonStringPathItemIsRejected) {
  const fs::path dir = TestDir();
  const std::string path = WriteFile(dir / "d.yaml",
                                     "deployment: {name: t}\n"
                                     "plugin:\n"
                                     "  name: p\n"
                                     "  paths:\n"
                                     "    - ok\n"
                                     "    - {a: 1}\n"
                                     "storage: {database: t.db}\n");
  EXPECT_EQ(LoadDeployment(path).status().message(),
            path + ":6:7: plugin.paths[1]: expected a string, got a map");
  const std::string scalar = WriteFile(
      dir / "e.yaml",
      "deployment: {name: t}\nplugin: {name: p, paths: lib}\nstorage: {database: t.db}\n");
  EXPECT_THAT(LoadDeployment(scalar).status().message(),
              HasSubstr(":2:19: plugin.paths = 'lib': expected a list of paths"));
}

TEST(LoadDeployment, SeedTakesTheFullUnsignedRange) {
  const fs::path dir = TestDir();
  const std::string path = WriteFile(dir / "d.yaml",
                                     "deployment: {name: t, seed: 18446744073709551615}\n"
                                     "plugin: {name: p}\nstorage: {database: t.db}\n");
  const Result<DeploymentConfig> loaded = LoadDeployment(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->seed, 18446744073709551615u);
  const std::string negative = WriteFile(dir / "e.yaml",
                                         "deployment: {name: t, seed: -1}\n"
                                         "plugin: {name: p}\nstorage: {database: t.db}\n");
  EXPECT_EQ(LoadDeployment(negative).status().message(),
            negative + ":1:23: deployment.seed = '-1': expected an integer in [0, 2^64)");
}

TEST(LoadDeployment, RenderedConfigurationLoadsBackUnchanged) {
  const Result<DeploymentConfig> original = LoadDeployment(Fixture("full.yaml"));
  ASSERT_TRUE(original.ok()) << original.status().ToString();
  const fs::path dir = TestDir();
  const std::string rendered = RenderDeployment(original.value());
  const std::string path = WriteFile(dir / "rendered.yaml", rendered);
  const Result<DeploymentConfig> again = LoadDeployment(path);
  ASSERT_TRUE(again.ok()) << again.status().ToString() << "\n" << rendered;
  for (const OptionInfo& option : OptionRegistry()) {
    EXPECT_EQ(Format(again.value(), option.key), Format(original.value(), option.key))
        << option.key;
  }
}

// ---------------------------------------------------------------------------------------------
// Option registry

// Number of fields of an aggregate: the largest N for which T{x1, ..., xN} compiles.
struct AnyField {
  template <typename T>
  operator T() const;  // NOLINT: unevaluated only
};
template <typename T, std::size_t... I>
constexpr bool BraceConstructibleFrom(std::index_sequence<I...>) {
  return requires { T{(static_cast<void>(I), AnyField{})...}; };
}
template <typename T, std::size_t N = 0>
constexpr std::size_t CountFields() {
  if constexpr (!BraceConstructibleFrom<T>(std::make_index_sequence<N + 1>{})) {
    return N;
  } else {
    return CountFields<T, N + 1>();
  }
}

std::size_t CountKeys(const std::string& prefix) {
  std::size_t n = 0;
  for (const OptionInfo& option : OptionRegistry()) n += option.key.rfind(prefix, 0) == 0;
  return n;
}

TEST(OptionRegistry, HasOneEntryPerOptionsField) {
  // solver.feasibility_tolerance, fill_after_max_min and fill_slack hold AdmmOptions fields
  // (the latter two ExactOptions' too); `verbose` follows --log-level, not a key.
  // Nine more were retired by measurement (DeprecatedKeys): fields without a key.
  EXPECT_EQ(CountKeys("solver.admm.") + 3 + 1 + 9, CountFields<AdmmOptions>())
      << "AdmmOptions gained or lost a field: update the registry in option_specs_solver.cpp";
  EXPECT_EQ(CountKeys("solver.exact.") + 2 + 1, CountFields<ExactOptions>())
      << "ExactOptions gained or lost a field: update the registry in option_specs_solver.cpp";
}

// Every key says who it is for and when it is read; the default view stays short.
TEST(OptionRegistry, EveryKeyHasALevelAndALifetime) {
  int basic = 0;
  for (const OptionInfo& option : OptionRegistry()) {
    EXPECT_TRUE(option.level == "basic" || option.level == "advanced") << option.key;
    EXPECT_TRUE(option.lifetime == "set-up" || option.lifetime == "per solve") << option.key;
    if (option.key.rfind("solver.", 0) != 0) {
      EXPECT_EQ(option.lifetime, "set-up") << option.key;
    }
    basic += option.level == "basic";
  }
  EXPECT_LE(basic, 25);
  EXPECT_GE(basic, 10);
  for (const char* key : {"solver.admm.equilibrate",
                          "solver.admm.block_rho_balancing",
                          "solver.admm.block_node_limit",
                          "solver.kind"}) {
    EXPECT_EQ(FindOption(key)->lifetime, "set-up") << key;
  }
  EXPECT_EQ(FindOption("solver.admm.time_limit_seconds")->lifetime, "per solve");
  EXPECT_EQ(FindOption("solver.admm.time_limit_seconds")->level, "basic");
  const std::string shown = tools::OptionsReference(false);
  std::size_t rows = 0;
  for (char c : shown) rows += c == '\n';
  EXPECT_EQ(rows, static_cast<std::size_t>(basic) + 2);
  EXPECT_THAT(shown, Not(HasSubstr("solver.admm.anderson_memory")));
}

// Renamed keys still load, into their new place, each use with a warning naming the new key;
// retired ones load with a warning that they do nothing; two places that disagree fail.
TEST(DeprecatedKeys, LoadWithAWarning) {
  const fs::path dir = TestDir();
  const std::string head =
      "deployment: {name: t}\nplugin: {name: p}\nstorage: {database: t.db}\nsolver:\n";
  const Result<DeploymentConfig> old = LoadDeployment(
      WriteFile(dir / "old.yaml",
                head + "  admm:\n    feasibility_tolerance: 1e-4\n    fill_after_max_min: true\n"
                       "    verbose: true\n  exact:\n    fill_after_max_min: true\n"));
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(old->admm.feasibility_tolerance, 1e-4);
  EXPECT_TRUE(old->admm.fill_after_max_min);
  EXPECT_TRUE(old->exact.fill_after_max_min);
  EXPECT_FALSE(old->admm.verbose) << "a retired key sets nothing";
  ASSERT_EQ(old->warnings.size(), 4u);
  EXPECT_THAT(old->warnings[0],
              HasSubstr("old.yaml:8:5: solver.admm.verbose is deprecated: it "
                        "has no effect; run with --log-level debug"));
  EXPECT_THAT(old->warnings[1],
              HasSubstr("old.yaml:6:5: solver.admm.feasibility_tolerance is "
                        "deprecated (it judges every method, not ADMM alone): "
                        "use solver.feasibility_tolerance"));
  EXPECT_TRUE(
      std::count(old->keys_set.begin(), old->keys_set.end(), "solver.feasibility_tolerance") == 1);

  const Result<DeploymentConfig> clash = LoadDeployment(
      WriteFile(dir / "clash.yaml",
                head + "  fill_after_max_min: true\n  exact:\n    fill_after_max_min: false\n"));
  ASSERT_FALSE(clash.ok());
  EXPECT_THAT(clash.status().message(),
              HasSubstr("clash.yaml:7:5: solver.exact.fill_after_max_min = 'false' disagrees with "
                        "solver.fill_after_max_min = 'true'"));
  // Bounds are checked at either place.
  const Result<DeploymentConfig> bad = LoadDeployment(
      WriteFile(dir / "bad.yaml", head + "  admm:\n    feasibility_tolerance: -1\n"));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(),
              HasSubstr("bad.yaml:6:5: solver.admm.feasibility_tolerance"
                        " = -1. Violated constraint: "));
  // A plugin's recommendation under an old name lands on the new key.
  DeploymentConfig config = old.value();
  config.keys_set.clear();
  bool applied = false;
  ASSERT_TRUE(
      ApplyRecommendedSetting("solver.exact.fill_slack", "0.05", "plugin p", &config, &applied)
          .ok());
  EXPECT_TRUE(applied);
  EXPECT_EQ(config.admm.fill_slack, 0.05);
  EXPECT_EQ(config.exact.fill_slack, 0.05);
}

TEST(OptionRegistry, EntriesAreCompleteAndUnique) {
  std::set<std::string> keys;
  const std::set<std::string> types = {
      "double", "int", "uint64", "bool", "string", "choice", "map", "list"};
  for (const OptionInfo& option : OptionRegistry()) {
    EXPECT_TRUE(keys.insert(option.key).second) << "duplicate " << option.key;
    EXPECT_TRUE(types.count(option.type)) << option.key << ": " << option.type;
    EXPECT_FALSE(option.description.empty()) << option.key;
    EXPECT_NE(option.required, !option.default_value.empty()) << option.key;
    if (option.type == "choice") {
      EXPECT_GE(option.choices.size(), 2u) << option.key;
    }
  }
  for (const char* required : {"deployment.name", "plugin.name", "storage.database"}) {
    ASSERT_NE(FindOption(required), nullptr) << required;
    EXPECT_TRUE(FindOption(required)->required) << required;
  }
  EXPECT_EQ(FindOption("solver.admm.rho")->default_value, "1");
  EXPECT_EQ(FindOption("solver.admm.eps_abs")->default_value, "1e-05");
  EXPECT_EQ(FindOption("solver.admm.time_limit_seconds")->default_value, ".inf");
  EXPECT_EQ(FindOption("solver.admm.rho_update")->default_value, "residual_balancing");
  EXPECT_EQ(FindOption("solver.admm.relaxation")->bounds, "(0, 2)");
  EXPECT_EQ(FindOption("schedule.overrun")->bounds, "skip|back_to_back");
}

// Registry and structs stay in sync: a file with every key at its registry default loads, and
// each key reads back as that default.
TEST(OptionRegistry, EveryKeyParsesWithItsDefaultValue) {
  const fs::path dir = TestDir();
  const std::string path = WriteFile(dir / "defaults.yaml", NestedYaml(DefaultValues()));
  const Result<DeploymentConfig> loaded = LoadDeployment(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const DeploymentConfig defaults;
  for (const OptionInfo& option : OptionRegistry()) {
    if (option.required) continue;
    EXPECT_EQ(Format(loaded.value(), option.key), option.default_value) << option.key;
    EXPECT_EQ(Format(defaults, option.key), option.default_value) << option.key;
  }
  std::string why;
  EXPECT_TRUE(loaded->admm.IsValid(&why)) << why;
}

// Each key writes its own field: setting one to another value changes that key only.
TEST(OptionRegistry, EveryKeyWritesItsOwnField) {
  const fs::path dir = TestDir();
  const Result<DeploymentConfig> base =
      LoadDeployment(WriteFile(dir / "base.yaml", NestedYaml(DefaultValues())));
  ASSERT_TRUE(base.ok()) << base.status().ToString();
  int index = 0;
  for (const OptionInfo& option : OptionRegistry()) {
    // solver.method only goes with solver.kind: plugin (SolverMethod tests below).
    if (option.key == "solver.method") continue;
    std::vector<std::string> candidates;
    if (option.type == "double") candidates = {"0.5", "1.5", "3", "0.001", "100"};
    if (option.type == "int") candidates = {"3", "7", "1"};
    if (option.type == "uint64") candidates = {"12345"};
    if (option.type == "bool") candidates = {option.default_value == "true" ? "false" : "true"};
    if (option.type == "choice") candidates = option.choices;
    if (option.type == "string") candidates = {"other", "10.0.0.1"};  // http.address: an IP
    if (option.type == "list") candidates = {"[elsewhere/plugins]"};
    if (option.type == "map") candidates = {"{k: 1}"};
    ASSERT_FALSE(candidates.empty()) << option.key;
    bool changed = false;
    for (const std::string& value : candidates) {
      const std::string path =
          WriteFile(dir / FileName('k', index++), NestedYaml(DefaultValues(option.key, value)));
      const Result<DeploymentConfig> loaded = LoadDeployment(path);
      if (!loaded.ok()) continue;
      if (Format(loaded.value(), option.key) == Format(base.value(), option.key)) continue;
      changed = true;
      for (const OptionInfo& other : OptionRegistry()) {
        if (other.key == option.key) continue;
        EXPECT_EQ(Format(loaded.value(), other.key), Format(base.value(), other.key))
            << "setting " << option.key << " changed " << other.key;
      }
      break;
    }
    EXPECT_TRUE(changed) << option.key << " accepted no other value";
  }
}

// The documented bounds are the enforced ones: just outside fails naming the key (through the
// registry or AdmmOptions::IsValid), just inside loads.
TEST(OptionRegistry, DocumentedBoundsAreEnforced) {
  const fs::path dir = TestDir();
  int index = 0;
  auto load = [&](const std::string& key, const std::string& value) {
    const std::string path =
        WriteFile(dir / FileName('b', index++), NestedYaml(DefaultValues(key, value)));
    return LoadDeployment(path);
  };
  auto text = [](const OptionInfo& option, double value) {
    std::ostringstream out;
    out.precision(17);
    out << value;
    return option.type == "int" ? std::to_string(static_cast<long long>(value)) : out.str();
  };
  int checked = 0;
  for (const OptionInfo& option : OptionRegistry()) {
    if (option.type != "double" && option.type != "int") continue;
    const double step = option.type == "int" ? 1 : 0.5;
    if (std::isfinite(option.min)) {
      const double outside = option.min_exclusive ? option.min : option.min - step;
      const double inside = option.min_exclusive ? option.min + 1 : option.min;
      const Result<DeploymentConfig> bad = load(option.key, text(option, outside));
      ASSERT_FALSE(bad.ok()) << option.key << " = " << outside;
      EXPECT_THAT(bad.status().message(), HasSubstr(option.key));
      EXPECT_THAT(bad.status().message(), HasSubstr("Violated constraint"));
      const Result<DeploymentConfig> good = load(option.key, text(option, inside));
      EXPECT_TRUE(good.ok()) << option.key << " = " << inside << ": " << good.status().ToString();
      ++checked;
    }
    if (std::isfinite(option.max)) {
      const double outside = option.max_exclusive ? option.max : option.max + step;
      const Result<DeploymentConfig> bad = load(option.key, text(option, outside));
      ASSERT_FALSE(bad.ok()) << option.key << " = " << outside;
      EXPECT_THAT(bad.status().message(), HasSubstr(option.key));
    } else if (option.type == "double") {
      // max = inf: exclusive means finite; inclusive admits .inf.
      const Result<DeploymentConfig> infinite = load(option.key, ".inf");
      EXPECT_EQ(infinite.ok(), !option.max_exclusive)
          << option.key << ": " << infinite.status().ToString();
    }
  }
  EXPECT_GT(checked, 20);
}

TEST(OptionRegistry, ReferenceTableHasOneRowPerKey) {
  const std::string table = tools::OptionsReference();
  std::size_t rows = 0;
  for (char c : table) rows += c == '\n';
  EXPECT_EQ(rows, OptionRegistry().size() + 2);  // header + separator
  EXPECT_THAT(table,
              HasSubstr("| `solver.admm.rho` | double | `1` | `> 0, finite` | advanced | "
                        "per solve |"));
  EXPECT_THAT(table,
              HasSubstr("| `solver.admm.equilibrate` | bool | `false` | `true\\|false` | "
                        "advanced | set-up |"));
  EXPECT_THAT(table, HasSubstr("| `solver.kind` | choice | `admm` | `admm\\|exact\\|plugin` |"));
  EXPECT_THAT(table, HasSubstr("| `storage.database` | string | *required* |"));
}

TEST(SolverMethod, GoesWithKindPluginOnly) {
  const fs::path dir = TestDir();
  auto load = [&](const std::string& name, const std::string& solver) {
    return LoadDeployment(WriteFile(dir / name,
                                    "deployment: {name: t}\n"
                                    "plugin: {name: p}\n"
                                    "storage: {database: t.db}\n"
                                    "solver:\n" +
                                        solver));
  };
  const Result<DeploymentConfig> plugin = load("a.yaml", "  kind: plugin\n  method: pop-16\n");
  ASSERT_TRUE(plugin.ok()) << plugin.status().ToString();
  EXPECT_EQ(plugin->solver, SolverKind::kPlugin);
  EXPECT_EQ(plugin->method, "pop-16");
  EXPECT_EQ(Format(plugin.value(), "solver.method"), "pop-16");
  // Rendered and loaded back: the same method.
  const std::string rendered = WriteFile(dir / "r.yaml", RenderDeployment(plugin.value()));
  const Result<DeploymentConfig> again = LoadDeployment(rendered);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->method, "pop-16");

  const Result<DeploymentConfig> missing = load("b.yaml", "  kind: plugin\n");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(),
              HasSubstr("b.yaml:5:3: solver.kind = 'plugin' needs solver.method"));
  const Result<DeploymentConfig> stray = load("c.yaml", "  kind: exact\n  method: greedy\n");
  ASSERT_FALSE(stray.ok());
  EXPECT_THAT(stray.status().message(),
              HasSubstr("c.yaml:6:3: solver.method = 'greedy' is only used with solver.kind: "
                        "plugin (solver.kind is 'exact')"));
  const Result<DeploymentConfig> empty = load("d.yaml", "  kind: plugin\n  method: ''\n");
  ASSERT_FALSE(empty.ok());
  EXPECT_THAT(empty.status().message(), HasSubstr("solver.method = '': expected a non-empty"));
}

TEST(OptionRegistry, DocsEmbedTheCurrentReference) {
  std::ifstream in(std::string(DEDE_DOCS_DIR) + "/configuration.md");
  ASSERT_TRUE(in) << "docs/configuration.md is missing";
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr(tools::OptionsReference()))
      << "docs/configuration.md is out of date: paste the output of `dede options` into it";
}

TEST(LoadDeployment, RetentionValuesAreCheckedAtTheirKey) {
  const fs::path dir = TestDir();
  auto load = [&](const std::string& name, const std::string& retention) {
    return LoadDeployment(WriteFile(dir / name,
                                    "deployment: {name: t}\n"
                                    "plugin: {name: p}\n"
                                    "storage:\n"
                                    "  database: t.db\n"
                                    "  retention: " +
                                        retention + "\n"));
  };
  const Result<DeploymentConfig> good = load("good.yaml", "{keep_rounds: 1000, keep_days: 7.5}");
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  EXPECT_EQ(good->retention_keep_rounds, 1000);
  EXPECT_EQ(good->retention_keep_days, 7.5);
  const Result<DeploymentConfig> absent = load("absent.yaml", "{}");
  ASSERT_TRUE(absent.ok()) << absent.status().ToString();
  EXPECT_EQ(absent->retention_keep_rounds, 0);  // keep everything
  EXPECT_EQ(absent->retention_keep_days, 0);
  const std::string at = (dir / "bad.yaml").string() + ":5:15: ";
  const Result<DeploymentConfig> negative = load("bad.yaml", "{keep_rounds: -1}");
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.status().message(),
            at + "storage.retention.keep_rounds = -1. Violated constraint: "
                 "storage.retention.keep_rounds >= 0");
  const Result<DeploymentConfig> text = load("bad.yaml", "{keep_days: x}");
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().message(), at + "storage.retention.keep_days = 'x': expected a number");
  const Result<DeploymentConfig> unknown = load("bad.yaml", "{keep_round: 5}");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(),
            at + "unknown key 'keep_round' in storage.retention; allowed: keep_rounds, keep_days");
  const Result<DeploymentConfig> scalar = load("bad.yaml", "1000");
  ASSERT_FALSE(scalar.ok());
  EXPECT_EQ(
      scalar.status().message(),
      (dir / "bad.yaml").string() +
          ":5:3: storage.retention = '1000': expected a map with keys keep_rounds, keep_days");
}

// Issue 49: http.address is checked when the file is loaded (`dede validate`) as the endpoint
// parses it at start: an IP literal; `localhost` passed validate and failed at start.
TEST(LoadDeployment, HttpAddressIsAnIpLiteralCheckedAtLoad) {
  const fs::path dir = TestDir();
  auto load = [&](const std::string& address) {
    return LoadDeployment(WriteFile(dir / "http.yaml",
                                    "deployment: {name: t}\n"
                                    "plugin: {name: p}\n"
                                    "storage: {database: t.db}\n"
                                    "http:\n"
                                    "  address: " +
                                        address + "\n"));
  };
  for (const std::string ok : {"127.0.0.1", "0.0.0.0", "'::1'", "'fe80::1%lo'"}) {
    const Result<DeploymentConfig> loaded = load(ok);
    EXPECT_TRUE(loaded.ok()) << ok << ": " << loaded.status().ToString();
  }
  for (const std::string bad : {"localhost", "localhost:80", "10.0.0", "example.com"}) {
    const Result<DeploymentConfig> loaded = load(bad);
    ASSERT_FALSE(loaded.ok()) << bad;
    EXPECT_EQ(loaded.status().message(),
              (dir / "http.yaml").string() + ":5:3: http.address = '" + bad +
                  "': not an IP address (give 127.0.0.1 or ::1 for loopback, 0.0.0.0 for every "
                  "interface; host names are not looked up)");
  }
}

}  // namespace
}  // namespace dede::internal
