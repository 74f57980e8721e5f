#!/usr/bin/env python3
"""Lists the C++ files over 800 lines and the functions over 120 lines in framework/ and
plugins/ (issue 20's limits, issue 51's honest count), and fails on any that is not listed in
tools/ci/size_exceptions.txt, or that grew past its listed cap.

Functions are found by a parser, universal-ctags (Debian's universal-ctags): every function
definition with its start line (the line of its name) and its end line. Lambdas and local
classes' members count towards the function that holds them (ctags reports a lambda as a
function scoped in its enclosing function; those are skipped). ctags' end line is then checked
against this script's own brace matching, which lexes from the name's line (comments, string,
character and raw string literals, digit separators, preprocessor lines, a constructor's
brace-initialised members) to the body's closing brace; where the two disagree the longer
length counts and the disagreement is printed. As a last net, any block that opens at column 0
and closes at column 0 over the limit, and that no function found covers, is reported as a
function ctags missed.

A function's length is from the line of its name to its closing brace, both included.

size_exceptions.txt, one entry a line, the reason after '#':
    path:function  max=NNN  # reason
    path           max=NNN  # reason          (a file over 800 lines)
`function` is the name as ctags gives it, qualified by its innermost class (`Store::Impl::Open`
is `Impl::Open`, a free function is its bare name). An entry fails the check when its function
grows past max, when it matches nothing over the limit (the exception is stale: remove it),
or when it has no max. No function may exceed 200 lines (HARD_LIMIT) unless its reason starts
with 'TEMPORARY' (a split in progress, printed as such).

Usage: check_sizes.py [--root DIR] [--exceptions FILE] [FILE ...]
Without files: the git-tracked .cpp and .h files under framework/ and plugins/ of the root.
Exit status: 0 clean, 1 something over its limit, 2 usage or tool error.
"""
import argparse
import json
import pathlib
import re
import shutil
import subprocess
import sys

FILE_LIMIT, FUNCTION_LIMIT, HARD_LIMIT = 800, 120, 200


def lex(text):
    """Yields (character, line, column) of the code's significant characters: comments,
    string and character literals and preprocessor lines are skipped (a literal yields one
    '"' so that a token boundary remains)."""
    i, n, line, col0 = 0, len(text), 1, 0
    at_line_start = True
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            col0 = i + 1
            at_line_start = True
            i += 1
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if at_line_start and c == "#":
            # A preprocessor line, with its continuations.
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    line += 1
                    i += 1
                i += 1
            continue
        at_line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += text.count("\n", i, end)
            col0 = text.rfind("\n", 0, end) + 1 if "\n" in text[i:end] else col0
            i = end
            continue
        raw = re.match(r'(?:u8|u|U|L)?R"([^()\\ \t\n]{0,16})\(', text[i:i + 24])
        if raw and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            close = ")" + raw.group(1) + '"'
            end = text.find(close, i + raw.end())
            end = n if end < 0 else end + len(close)
            yield '"', line, i - col0
            line += text.count("\n", i, end)
            if "\n" in text[i:end]:
                col0 = text.rfind("\n", 0, end) + 1
            i = end
            continue
        if c == "'" and i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_") \
                and re.match(r"[0-9a-fA-F]", text[i + 1:i + 2] or " ") \
                and re.search(r"\b[0-9][0-9a-fA-FxXbB']*$", text[max(0, i - 40):i]):
            i += 1  # a digit separator: 1'000'000
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            yield '"', line, i - col0
            i = j + 1
            continue
        yield c, line, i - col0
        i += 1


def noexcept_before(tokens, k):
    """Whether the tokens before k spell 'noexcept' (a constructor's, before its ':')."""
    return k >= 8 and "".join(t[0] for t in tokens[k - 8:k]) == "noexcept"


def body_end(tokens, start_line):
    """The line of the closing brace of the function whose name is on start_line, found by
    brace matching: the body opens at the first '{' outside parentheses and brackets after
    the name that is not a member's brace initialiser in a constructor's initialiser list.
    None when a ';' comes first (a declaration) or nothing matches."""
    k = next((t for t, tok in enumerate(tokens) if tok[1] >= start_line), None)
    if k is None:
        return None
    depth = 0  # () and []
    init_list = False
    prev = ""
    while k < len(tokens):
        c, line, _ = tokens[k]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif depth == 0 and c == ";":
            return None
        elif depth == 0 and c == ":" and (prev == ")" or noexcept_before(tokens, k)):
            init_list = True
        elif depth == 0 and c == "{":
            if init_list and (prev.isalnum() or prev in "_>"):
                # A member's brace initialiser: skip to its match.
                level = 0
                while k < len(tokens):
                    level += {"{": 1, "}": -1}.get(tokens[k][0], 0)
                    if level == 0:
                        break
                    k += 1
                prev = "}"
                k += 1
                continue
            level = 0
            while k < len(tokens):
                level += {"{": 1, "}": -1}.get(tokens[k][0], 0)
                if level == 0:
                    return tokens[k][1]
                k += 1
            return None
        prev = c
        k += 1
    return None


def column0_blocks(lines):
    """(start, end) lines (1-based) of every block that opens on a line ending in '{' that
    starts at column 0 and closes with '}' at column 0: the old check's view."""
    blocks, start = [], None
    for i, line in enumerate(lines):
        if start is None:
            if line and not line[0].isspace() and line.rstrip().endswith("{") \
                    and not line.startswith(("namespace", "extern", "#", "//")):
                start = i + 1
        elif line.startswith("}"):
            blocks.append((start, i + 1))
            start = None
    return blocks


def ctags_functions(root, names):
    """Function definitions as ctags reports them: (path, key, start, end) per definition."""
    if shutil.which("ctags") is None:
        sys.exit("check_sizes.py: ctags not found (Debian: apt-get install universal-ctags)")
    version = subprocess.run(["ctags", "--version"], capture_output=True, text=True).stdout
    if "Universal Ctags" not in version:
        sys.exit("check_sizes.py: ctags is not universal-ctags (needs its JSON output)")
    out = subprocess.run(["ctags", "--output-format=json", "--languages=C++",
                          "--language-force=C++", "--c++-kinds=f", "--fields=+neKZ", "-o", "-"]
                         + names, cwd=root, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"check_sizes.py: ctags failed: {out.stderr.strip()}")
    found = []
    for row in out.stdout.splitlines():
        tag = json.loads(row)
        if tag.get("_type") != "tag" or tag.get("kind") != "function":
            continue
        if tag.get("scopeKind") == "function" or tag["name"].startswith("__anon"):
            continue  # a lambda: counted in the function that holds it
        scope, scope_kind = tag.get("scope", ""), tag.get("scopeKind", "")
        key = tag["name"]
        if scope_kind in ("class", "struct", "union"):
            key = scope.rsplit("::", 1)[-1] + "::" + key
            if key.startswith("__anon"):
                key = tag["name"]
        found.append((tag["path"], key, tag["line"], tag.get("end")))
    return found


def read_exceptions(path):
    entries, errors = {}, []
    if not path.exists():
        return entries, errors
    for number, line in enumerate(path.read_text().splitlines(), 1):
        entry, _, reason = line.partition("#")
        fields = entry.split()
        if not fields:
            continue
        cap = None
        for field in fields[1:]:
            if field.startswith("max="):
                try:
                    cap = int(field[4:])
                except ValueError:
                    pass
        if cap is None or len(fields) != 2:
            errors.append(f"{path.name}:{number}: expected 'path[:function]  max=N  # reason'")
            continue
        if not reason.strip():
            errors.append(f"{path.name}:{number}: {fields[0]} gives no reason")
        entries[fields[0]] = (cap, reason.strip(), number)
    return entries, errors


def measure(root, names):
    """(key, location, length) of every file over FILE_LIMIT and function over FUNCTION_LIMIT,
    plus notes on where ctags and the brace matching disagree."""
    over, notes = [], []
    by_file = {}
    for path, key, start, end in ctags_functions(root, names):
        by_file.setdefault(path, []).append((key, start, end))
    for name in names:
        text = (root / name).read_text(errors="replace")
        lines = text.splitlines()
        if len(lines) > FILE_LIMIT:
            over.append((name, f"{name}", len(lines), FILE_LIMIT))
        tokens = list(lex(text))
        spans = []
        for key, start, end in by_file.get(name, []):
            matched = body_end(tokens, start)
            if end is None and matched is None:
                continue
            if end is not None and matched is not None and matched != end:
                notes.append(f"note      {name}:{start}: {key}: ctags ends it at line {end}, "
                             f"brace matching at {matched}: counting the longer")
            last = max(e for e in (end, matched) if e is not None)
            spans.append((start, last))
            length = last - start + 1
            if length > FUNCTION_LIMIT:
                over.append((f"{name}:{key}", f"{name}:{start}: {key}", length, FUNCTION_LIMIT))
        for start, end in column0_blocks(lines):
            length = end - start + 1
            if length > FUNCTION_LIMIT and not any(s <= start + 1 and end <= e + 1
                                                   for s, e in spans):
                # Not a function ctags found: a type, or a function it missed. A type's
                # member functions are found separately; anything else is counted.
                head = lines[start - 1]
                if re.match(r"^(template\s*<.*>\s*)?(class|struct|union|enum)\b", head):
                    continue
                if any(start <= s and e <= end for s, e in spans) and \
                        re.search(r"\b(class|struct|union)\b", head):
                    continue
                match = re.search(r"([\w:~]+)\s*\(", head)
                key = match.group(1) if match else f"line{start}"
                over.append((f"{name}:{key}", f"{name}:{start}: {key} (not found by ctags)",
                             length, FUNCTION_LIMIT))
    return over, notes


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parents[2])
    parser.add_argument("--exceptions", type=pathlib.Path)
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    root = args.root.resolve()
    listed = args.exceptions or root / "tools/ci/size_exceptions.txt"
    names = args.files or subprocess.run(
        ["git", "ls-files", "framework/*.cpp", "framework/*.h", "plugins/*.cpp", "plugins/*.h"],
        cwd=root, capture_output=True, text=True, check=True).stdout.split()
    exceptions, failures = read_exceptions(listed)
    over, notes = measure(root, names)
    for note in notes:
        print(note)
    used = set()
    for key, where, length, limit in sorted(over, key=lambda o: -o[2]):
        entry = exceptions.get(key)
        message = f"{where}: {length} lines (limit {limit})"
        if entry is None:
            failures.append(f"OVER      {message}, not listed in {listed.name}")
            continue
        cap, reason, _ = entry
        used.add(key)
        if length > cap:
            failures.append(f"GREW      {message}, past its cap max={cap}")
        elif limit == FUNCTION_LIMIT and length > HARD_LIMIT and not reason.startswith("TEMPORARY"):
            failures.append(f"OVER      {message}: nothing may exceed {HARD_LIMIT}")
        else:
            label = "TEMPORARY" if limit == FUNCTION_LIMIT and length > HARD_LIMIT else "excepted "
            shrink = f" (the cap max={cap} can come down)" if length < cap else ""
            print(f"{label} {message}{shrink}")
    for key, (cap, _, number) in exceptions.items():
        if key not in used:
            failures.append(f"STALE     {listed.name}:{number}: {key} is not over its limit "
                            f"(or not found): remove the entry")
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
