#!/usr/bin/env python3
"""Checks that the code quoted in a guide is the code that CI compiles.

A guide (docs/plugin-guide.md by default) quotes a region of a source file with a marker line
directly before a fenced code block:

    <!-- snippet: examples/out_of_tree_plugin/example_plugin.cpp#describe -->
    ```cpp
    ...
    ```

and the source marks the region with comment lines of its own:

    // [guide:describe]
    ...
    // [guide:end]

The block must equal the region's lines, both without their common indentation and trailing
blanks. It fails (exit 1, every problem listed) when a block differs from its region (with a
diff), a marker names a file or region that does not exist, a region is marked twice or never
closed, a marked region is quoted nowhere, or a ```cpp block of the guide has no marker (one
that is deliberately not from a source file says so with `<!-- snippet: none -->`). Paths in
markers are relative to the repository root.

Usage: tools/ci/check_guide_snippets.py [GUIDE.md ...]
       tools/ci/check_guide_snippets.py --self-test
"""
import difflib
import os
import re
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
DEFAULT_GUIDES = ['docs/plugin-guide.md']
MARKER = re.compile(r'^<!--\s*snippet:\s*(\S+?)\s*-->\s*$')
FENCE = re.compile(r'^(```+|~~~+)\s*([\w+-]*)')
REGION_START = re.compile(r'^\s*//\s*\[guide:([A-Za-z0-9_.-]+)\]\s*$')


def normalize(lines):
    """The lines without trailing blanks, leading and trailing empty lines, or common indent."""
    lines = [line.rstrip() for line in lines]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    indents = [len(line) - len(line.lstrip(' ')) for line in lines if line]
    cut = min(indents) if indents else 0
    return [line[cut:] for line in lines]


def read_regions(path, errors):
    """name -> normalized lines of every `// [guide:name]` ... `// [guide:end]` region."""
    regions = {}
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    current, start, body = None, 0, []
    for number, line in enumerate(lines, 1):
        m = REGION_START.match(line)
        if not m:
            if current is not None:
                body.append(line)
            continue
        name = m.group(1)
        if name == 'end':
            if current is None:
                errors.append('%s:%d: [guide:end] without an open region' % (path, number))
            else:
                regions[current] = normalize(body)
                current = None
            continue
        if current is not None:
            errors.append('%s:%d: region [guide:%s] opens inside [guide:%s] (line %d)' %
                          (path, number, name, current, start))
        if name in regions:
            errors.append('%s:%d: region [guide:%s] is marked twice' % (path, number, name))
        current, start, body = name, number, []
    if current is not None:
        errors.append('%s:%d: region [guide:%s] is never closed with [guide:end]' %
                      (path, start, current))
    return regions


def check(guides, root):
    errors = []
    quoted = {}   # (source path, region) -> first guide line quoting it
    regions = {}  # source path -> {name: lines}
    for guide in guides:
        guide_path = os.path.join(root, guide)
        try:
            with open(guide_path, encoding='utf-8') as f:
                lines = f.read().split('\n')
        except OSError as e:
            errors.append('%s: cannot read the guide (%s)' % (guide, e.strerror))
            continue
        i = 0
        pending = None  # (marker line, target) of the last marker, until its block
        while i < len(lines):
            line = lines[i]
            m = MARKER.match(line.strip())
            if m:
                pending = (i + 1, m.group(1))
                i += 1
                continue
            fence = FENCE.match(line)
            if not fence:
                if line.strip() and pending is not None:
                    errors.append('%s:%d: the snippet marker is not followed by a code block' %
                                  (guide, pending[0]))
                    pending = None
                i += 1
                continue
            # A fenced block from line i + 1 to its closing fence.
            opener, lang = fence.group(1), fence.group(2)
            j = i + 1
            while j < len(lines) and not lines[j].startswith(opener):
                j += 1
            if j >= len(lines):
                errors.append('%s:%d: the code block is never closed' % (guide, i + 1))
                break
            block = normalize(lines[i + 1:j])
            target = pending[1] if pending is not None else None
            if target is None:
                if lang in ('cpp', 'c++', 'cc', 'cxx'):
                    errors.append(
                        '%s:%d: a cpp block without a snippet marker (quote a marked region with '
                        '<!-- snippet: PATH#REGION -->, or say <!-- snippet: none -->)' %
                        (guide, i + 1))
            elif target != 'none':
                path, _, name = target.partition('#')
                if not name:
                    errors.append('%s:%d: the marker names no region (PATH#REGION): %s' %
                                  (guide, pending[0], target))
                else:
                    source = os.path.join(root, path)
                    if path not in regions:
                        if os.path.isfile(source):
                            regions[path] = read_regions(source, errors)
                        else:
                            regions[path] = None
                    if regions[path] is None:
                        errors.append('%s:%d: %s does not exist' % (guide, pending[0], path))
                    elif name not in regions[path]:
                        errors.append('%s:%d: %s has no region [guide:%s]' %
                                      (guide, pending[0], path, name))
                    else:
                        quoted.setdefault((path, name), '%s:%d' % (guide, pending[0]))
                        expected = regions[path][name]
                        if block != expected:
                            diff = difflib.unified_diff(
                                expected, block, '%s [guide:%s]' % (path, name),
                                '%s:%d' % (guide, i + 2), lineterm='')
                            errors.append('%s:%d: the excerpt differs from %s [guide:%s]:\n%s' %
                                          (guide, i + 2, path, name, '\n'.join(diff)))
            pending = None
            i = j + 1
        if pending is not None:
            errors.append('%s:%d: the snippet marker is not followed by a code block' %
                          (guide, pending[0]))
    for path, names in sorted(regions.items()):
        for name in sorted(names or {}):
            if (path, name) not in quoted:
                errors.append('%s: region [guide:%s] is quoted by no guide (quote it or remove '
                              'its markers)' % (path, name))
    return errors, len(quoted)


def self_test():
    """The checker on small files: it must pass a good guide and catch each kind of fault."""
    source = ('int a;\n'
              '  // [guide:one]\n'
              '  int f() {\n'
              '    return 1;\n'
              '  }\n'
              '  // [guide:end]\n')
    good = ('Text.\n\n<!-- snippet: src.cpp#one -->\n```cpp\nint f() {\n  return 1;\n}\n```\n'
            '\n<!-- snippet: none -->\n```cpp\nnot from a file\n```\n\n```yaml\nk: v\n```\n')
    cases = {
        'good': (good, 0),
        'differs': (good.replace('return 1;', 'return 2;'), 1),
        'unknown region': (good.replace('#one', '#two'), 2),  # and [guide:one] quoted nowhere
        'missing file': (good.replace('src.cpp', 'nope.cpp'), 1),
        'unmarked cpp': (good.replace('<!-- snippet: none -->\n', ''), 1),
        'marker without block': (good + '\n<!-- snippet: src.cpp#one -->\nplain text\n', 1),
        'unclosed block': (good + '\n```cpp\nint x;\n', 1),
    }
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, 'src.cpp'), 'w') as f:
            f.write(source)
        for name, (text, want) in cases.items():
            with open(os.path.join(tmp, 'guide.md'), 'w') as f:
                f.write(text)
            errors, _ = check(['guide.md'], tmp)
            if len(errors) != want:
                failures.append('%s: %d error(s), expected %d: %s' % (name, len(errors), want,
                                                                      errors))
        with open(os.path.join(tmp, 'src.cpp'), 'w') as f:
            f.write(source + '// [guide:two]\nint b;\n')
        with open(os.path.join(tmp, 'guide.md'), 'w') as f:
            f.write(good)
        errors, _ = check(['guide.md'], tmp)
        if not any('never closed' in e for e in errors):
            failures.append('unclosed region: not reported: %s' % errors)
    for failure in failures:
        print('check_guide_snippets self-test: FAILED: ' + failure, file=sys.stderr)
    if not failures:
        print('check_guide_snippets self-test: OK (%d cases)' % (len(cases) + 1))
    return 1 if failures else 0


def main(argv):
    if argv[1:] == ['--self-test']:
        return self_test()
    guides = argv[1:] or DEFAULT_GUIDES
    errors, count = check(guides, ROOT)
    for error in errors:
        print('check_guide_snippets: ' + error, file=sys.stderr)
    if errors:
        print('check_guide_snippets: FAILED (%d problem(s))' % len(errors), file=sys.stderr)
        return 1
    print('check_guide_snippets: OK (%d excerpt(s) of %s match their marked regions)' %
          (count, ', '.join(guides)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
