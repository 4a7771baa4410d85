#!/usr/bin/env python3
"""Lines of every function body in C++ sources (clang-formatted code), longest first.

A function is a definition whose body opens with '{' at the end of its signature line and
closes with a '}' at the signature's indentation: free functions, member functions defined out
of line or in a class, and lambdas longer than the limit count inside their enclosing function.
Comments and blank lines count as lines, as a reader sees them.

  scripts/function-lengths.py [--top N] [--over LINES] DIR...
"""
import argparse
import os
import re
import sys

SIGNATURE_END = re.compile(r"\)\s*(const\s*)?(noexcept\s*)?(override\s*)?(final\s*)?(->\s*[\w:<>,\s*&]+)?\{\s*$")
NOT_FUNCTION = re.compile(r"^\s*(if|for|while|switch|catch|do|else|return|namespace|class|struct|enum|union)\b|=\s*\[|\[[^\]]*\]\s*\(.*\)\s*(mutable\s*)?(->.*)?\{\s*$|^\s*\[")


def functions(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if SIGNATURE_END.search(line) and not NOT_FUNCTION.search(line) and "(" in "".join(lines[max(0, i - 6):i + 1]):
            # The signature may span lines: its first line is the nearest one above at a lower
            # or equal indentation that does not continue an argument list.
            start = i
            while start > 0 and lines[start - 1].strip() and not lines[start - 1].rstrip().endswith((";", "{", "}", ":")) and not lines[start - 1].lstrip().startswith(("//", "#")):
                start -= 1
            indent = len(lines[start]) - len(lines[start].lstrip())
            name_line = lines[start].strip()
            if NOT_FUNCTION.search(lines[start]):
                i += 1
                continue
            j = i + 1
            closing = " " * indent + "}"
            while j < len(lines) and not (lines[j].startswith(closing) and (len(lines[j]) - len(lines[j].lstrip())) == indent):
                j += 1
            if j >= len(lines):
                i += 1
                continue
            m = re.search(r"([~\w:]+(?:<[^()]*>)?)\s*\(", " ".join(l.strip() for l in lines[start:i + 1]))
            name = m.group(1) if m else name_line
            yield name, start + 1, j - i - 1
            i = j + 1 if indent == 0 else i + 1
            continue
        i += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--over", type=int, default=0)
    ap.add_argument("--exclude", action="append", default=[])
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args()
    found = []
    for d in args.dirs:
        for root, _, files in os.walk(d):
            for fn in files:
                if not fn.endswith((".cpp", ".hpp")):
                    continue
                path = os.path.join(root, fn)
                if any(re.search(x, path) for x in args.exclude):
                    continue
                for name, line, length in functions(path):
                    found.append((length, f"{path}:{line}", name))
    found.sort(reverse=True)
    shown = [f for f in found if f[0] > args.over] if args.over else found[: args.top]
    for length, where, name in shown:
        print(f"{length:5d}  {where}  {name}")
    return 1 if args.over and shown else 0


if __name__ == "__main__":
    sys.exit(main())
