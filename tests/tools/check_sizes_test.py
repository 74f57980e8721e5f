#!/usr/bin/env python3
"""Tests of tools/ci/check_sizes.py on small source trees written here: it must find a function
whose signature is wrapped (its first line does not end in '{'), count a lambda-heavy function
as one function whatever its lambdas, string literals and comments hold, report a function one
line over the limit and not one at it, and enforce the exceptions' caps.

Usage: check_sizes_test.py [path/to/check_sizes.py] (default: the repository's)."""
import pathlib
import subprocess
import sys
import tempfile
import textwrap
import unittest

CHECKER = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else
                       pathlib.Path(__file__).resolve().parents[2] / "tools/ci/check_sizes.py")
LIMIT = 120


def body(lines, indent="  "):
    """`lines` lines of statements."""
    return "".join(f"{indent}total += {i};\n" for i in range(lines))


def wrapped(body_lines):
    # Return type on its own line, the name and the parameters over three more, and the
    # brace at the end of the last: the old check saw no function here.
    return ("std::vector<std::pair<int, double>>\n"
            "VeryLongNamespace::WrappedSignatureFunction(\n"
            "    const std::vector<int>& first_argument,\n"
            "    double second_argument) {\n"
            "  int total = 0;\n" + body(body_lines) + "  return {};\n}\n")


def lambda_heavy(body_lines):
    # Lambdas (one with an unbalanced brace in a string, a character literal, a raw string and
    # a comment), a local struct and brace initialisers: one function of body_lines + 22 lines.
    return textwrap.dedent("""\
        int LambdaHeavy(int n) {
          int total = 0;
          auto open = [&](int k) {
            const char* s = "{ not a brace";
            char c = '}';
            return k + s[0] + c;
          };
          auto raw = [] { return R"x(})}" )x"; };
          /* } a comment with a brace { */
          struct Local {
            int F() const { return 1; }
          };
          std::vector<int> v{1, 2, 3};
          std::for_each(v.begin(), v.end(), [&](int x) {
            total += x;  // }
          });
          const long big = 1'000'000;
        """) + body(body_lines) + textwrap.dedent("""\
          total += open(n) + Local{}.F() + raw()[0];
          return total + static_cast<int>(big);
        }
        """)


def plain(name, body_lines):
    # name(), its opening and closing lines and a return: body_lines + 4 lines.
    return f"int {name}() {{\n  int total = 0;\n" + body(body_lines) + "  return total;\n}\n"


def constructor(body_lines):
    # A constructor with brace initialisers before its body: body_lines + 6 lines.
    return ("Widget::Widget(int a, double b) noexcept\n"
            "    : a_{a},\n"
            "      b_{b} {\n"
            "  int total = 0;\n" + body(body_lines) + "  a_ = total;\n}\n")


class CheckSizes(unittest.TestCase):

    def run_checker(self, files, exceptions=""):
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            for name, text in files.items():
                (root / name).parent.mkdir(parents=True, exist_ok=True)
                (root / name).write_text(text)
            (root / "exceptions.txt").write_text(exceptions)
            done = subprocess.run([sys.executable, str(CHECKER), "--root", str(root),
                                   "--exceptions", str(root / "exceptions.txt")] + list(files),
                                  capture_output=True, text=True)
        self.assertIn(done.returncode, (0, 1), done.stderr)
        return done.returncode, done.stdout

    def test_finds_a_function_with_a_wrapped_signature(self):
        # From the name's line (the second) to the closing brace: 3 + 1 + 130 + 2 = 136.
        code, out = self.run_checker({"a.cpp": wrapped(130)})
        self.assertEqual(code, 1, out)
        self.assertIn("a.cpp:2: VeryLongNamespace::WrappedSignatureFunction: 136 lines (limit 120)", out)

    def test_counts_a_lambda_heavy_function_once(self):
        code, out = self.run_checker({"b.cpp": "#include <vector>\n" + lambda_heavy(110)})
        self.assertEqual(code, 1, out)
        self.assertIn("b.cpp:2: LambdaHeavy: 130 lines (limit 120)", out)
        self.assertEqual(out.count("OVER"), 1, out)
        self.assertNotIn("note", out)  # ctags and the brace matching agree

    def test_a_lambda_heavy_function_under_the_limit_passes(self):
        code, out = self.run_checker({"b.cpp": lambda_heavy(100)})  # 120 lines
        self.assertEqual(code, 0, out)

    def test_one_line_over_the_limit_fails_and_at_the_limit_passes(self):
        code, out = self.run_checker({"c.cpp": plain("AtLimit", LIMIT - 4) + "\n" +
                                      plain("JustOver", LIMIT - 3)})
        self.assertEqual(code, 1, out)
        self.assertIn("JustOver: 121 lines", out)
        self.assertNotIn("AtLimit", out)

    def test_a_constructors_brace_initialisers_are_not_its_body(self):
        code, out = self.run_checker({"d.cpp": constructor(120)})
        self.assertEqual(code, 1, out)
        self.assertIn("d.cpp:1: Widget::Widget: 126 lines", out)
        self.assertNotIn("note", out)

    def test_a_member_defined_in_its_class_is_named_by_its_class(self):
        text = "struct Holder {\n" + textwrap.indent(plain("Member", 130), "  ") + "};\n"
        code, out = self.run_checker({"e.h": text})
        self.assertEqual(code, 1, out)
        self.assertIn("e.h:2: Holder::Member: 134 lines", out)

    def test_an_exception_holds_up_to_its_cap(self):
        files = {"c.cpp": plain("JustOver", LIMIT - 3)}
        code, out = self.run_checker(files, "c.cpp:JustOver  max=121  # one loop\n")
        self.assertEqual(code, 0, out)
        self.assertIn("excepted", out)
        code, out = self.run_checker(files, "c.cpp:JustOver  max=125  # one loop\n")
        self.assertEqual(code, 0, out)
        self.assertIn("can come down", out)

    def test_an_excepted_function_that_grows_past_its_cap_fails(self):
        code, out = self.run_checker({"c.cpp": plain("JustOver", LIMIT - 2)},
                                     "c.cpp:JustOver  max=121  # one loop\n")
        self.assertEqual(code, 1, out)
        self.assertIn("GREW", out)

    def test_an_exception_needs_a_cap_and_a_reason(self):
        files = {"c.cpp": plain("JustOver", LIMIT - 3)}
        code, out = self.run_checker(files, "c.cpp:JustOver  # one loop\n")
        self.assertEqual(code, 1, out)
        code, out = self.run_checker(files, "c.cpp:JustOver  max=121\n")
        self.assertEqual(code, 1, out)
        self.assertIn("gives no reason", out)

    def test_a_stale_exception_fails(self):
        code, out = self.run_checker({"c.cpp": plain("Short", 10)},
                                     "c.cpp:Short  max=130  # was long\n")
        self.assertEqual(code, 1, out)
        self.assertIn("STALE", out)

    def test_over_the_hard_limit_only_as_temporary(self):
        files = {"f.cpp": plain("Huge", 200)}
        code, out = self.run_checker(files, "f.cpp:Huge  max=204  # one table\n")
        self.assertEqual(code, 1, out)
        self.assertIn("nothing may exceed 200", out)
        code, out = self.run_checker(files, "f.cpp:Huge  max=204  # TEMPORARY: being split\n")
        self.assertEqual(code, 0, out)

    def test_a_file_over_800_lines_fails_unless_listed(self):
        text = "".join(plain(f"F{i}", 20) for i in range(35))  # 840 lines
        code, out = self.run_checker({"g.cpp": text})
        self.assertEqual(code, 1, out)
        self.assertIn("g.cpp: 840 lines (limit 800)", out)
        code, out = self.run_checker({"g.cpp": text}, "g.cpp  max=840  # generated\n")
        self.assertEqual(code, 0, out)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
