#!/usr/bin/env python3
"""Lists the C++ files over 800 lines and the functions over 120 lines in framework/ and
plugins/ (issue 20's limits). Functions are found in the clang-formatted layout: a definition
at namespace scope opens on a line ending in '{' at column 0 and closes with '}' at column 0.
Exit status 1 if anything is over its limit and not listed in tools/ci/size_exceptions.txt
(one path or path:function per line, with the reason after a '#')."""
import pathlib
import re
import subprocess
import sys

FILE_LIMIT, FUNCTION_LIMIT = 800, 120
root = pathlib.Path(__file__).resolve().parents[2]
files = subprocess.run(["git", "ls-files", "framework/*.cpp", "framework/*.h", "plugins/*.cpp",
                        "plugins/*.h"], cwd=root, capture_output=True, text=True,
                       check=True).stdout.split()
exceptions = set()
listed = root / "tools/ci/size_exceptions.txt"
if listed.exists():
    for line in listed.read_text().splitlines():
        entry = line.split("#", 1)[0].strip()
        if entry:
            exceptions.add(entry)
not_a_function = re.compile(r"^(namespace|class|struct|enum|union|extern|template\s*<[^>]*>\s*(class|struct))\b")
over = []
for name in files:
    lines = (root / name).read_text(errors="replace").splitlines()
    if len(lines) > FILE_LIMIT:
        over.append((name, f"{name}: {len(lines)} lines (limit {FILE_LIMIT})"))
    start = None
    for i, line in enumerate(lines):
        if start is None:
            if line and not line[0].isspace() and line.rstrip().endswith("{") \
                    and not not_a_function.match(line) and "=" not in line.split("(")[0]:
                start = i
                # The signature may begin on earlier lines (return type, wrapped parameters).
                head = i
                while head > 0 and lines[head - 1].strip() and not lines[head - 1].rstrip().endswith((";", "}", "{")) \
                        and not lines[head - 1].lstrip().startswith(("//", "#")):
                    head -= 1
                signature = " ".join(l.strip() for l in lines[head:i + 1])
        elif line.startswith("}"):
            length = i - start + 1
            if length > FUNCTION_LIMIT:
                match = re.search(r"([\w:~]+)\s*\(", signature)
                function = match.group(1) if match else signature[:60]
                over.append((f"{name}:{function}",
                             f"{name}:{start + 1}: {function}: {length} lines (limit {FUNCTION_LIMIT})"))
            start = None
failed = False
for key, message in over:
    if key in exceptions:
        print(f"excepted  {message}")
    else:
        print(f"OVER      {message}")
        failed = True
sys.exit(1 if failed else 0)
