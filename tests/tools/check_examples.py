#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks that the C++ examples in ocml's documentation compile.

usage: check_examples.py [PROJECT_DIR] [--keep FILE]

Sources: every public header include/ocml/*.hpp and every ```cpp (or ```c++) fenced block
of README.md and docs/*.md.

What an example is, in a header: a maximal run of comment lines (`//`, `///`, `//!`, at any
indentation) whose text is indented by two or more spaces after the comment marker, as in

    ///   auto text = ocml::render(c, {.dialect = ocml::dialect::harmony});

A blank comment line does not end a block when the lines after it are still indented code.
The block's common indentation is removed, so raw strings continued across lines keep
their meaning.

Scopes (so that a later block may use what an earlier one declared):
  * each file becomes one function, `int example_N()`, blocks in file order;
  * in a header, the blocks of one comment (consecutive comment lines, prose included)
    share one `{ ... }` scope: the usage guide in ocml.hpp is one comment and reads as
    one program, while the examples on separate declarations (separate doc comments) are
    separate scopes and may reuse names;
  * in a markdown file all of its fenced blocks share one scope (the page reads as one
    program).
The function returns int, so an example may `return 1;` on an error.

Within a block:
  * `#include` lines are moved to file scope (every public header is included anyway);
  * a line that is a C++ comment (`// *text == "..."`) is output shown, and stays a comment;
  * a line that is clearly not C++ ends the code: a shell prompt (`$ ...`) or a JSON object
    (`{"key": ...`). From there on the block is output and is commented out; a block that
    begins with one is not C++ at all and is skipped;
  * a block whose last statement has no `;` shows an expression and its value
    (`ocml::error_name(c)  // "E-..."`): when the block is that one expression it is
    checked as `(void)(expression);`, else a `;` is added after it.

Opting out: a block that is not C++ (pseudo-code, a grammar) is skipped when the prose
comment line just before it (in markdown: the line before the fence) contains
`(not C++)`. Use it sparingly: every skipped block is listed.

Placeholders: names the examples use without declaring them (the input `text`, a
conversation `conv`, a tokenizer `tok`, ...) are declared, not defined, in the prelude
below with the type an honest program would have; each example only compiles when it
uses them as that type allows. The translation unit is checked with
`${CXX:-g++} -std=c++20 -fsyntax-only -I include`; `#line` directives make every error
name the documentation file and line of the example.

Prints "examples: N blocks from M files compile" and exits 0, or prints the compiler's
errors and exits 1.
"""
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

# Placeholders the examples use. Declarations only: a use the declared type does not allow
# is an error, as it would be in a real program.
PRELUDE = r"""
// Input and output of the examples.
extern std::string text, input, chunk, log, prompt, output_text, prompt_text, pcml_text;
extern std::vector<std::string> engine_stream;
std::optional<std::string> next_chunk();
void print_line(std::string_view line);
template <class... A>
void use(A&&... values);
// Values an earlier step of the program made.
extern ocml::conversation conv, pcml_conversation, parsed_harmony;
extern ocml::parse_result parsed, result;
extern ocml::message m;
extern ocml::render_options opts;
extern ocml::json j, request_json, spec_json;
extern ocml::tokenizer tok;
extern std::vector<ocml::token_id> ids;
extern ocml::response_template t;
extern ocml::chat_template chat;
extern ocml::engine& engine;
extern ocml::generation generation;
extern ocml::tool_router router;
extern ocml::tool_reply reply;
"""

CODE_COMMENT = re.compile(r"^\s*(//[/!]?)(.*)$")
OPT_OUT = "(not C++)"
SHELL_LINE = re.compile(r"^\$ ")
JSON_LINE = re.compile(r'^[{\[]\s*"[^"]*"\s*:')
FENCE_OPEN = re.compile(r"^(\s*)```\s*(cpp|c\+\+|cxx)\s*$", re.IGNORECASE)
FENCE_CLOSE = re.compile(r"^\s*```\s*$")


class Block:
    def __init__(self, path, first_line, lines, scope):
        self.path = path              # relative to the project directory
        self.first_line = first_line  # 1-based line of lines[0]
        self.lines = lines            # code, common indentation removed ('' for blank lines)
        self.scope = scope            # blocks with the same scope share one { }
        self.skipped = None           # why the block is not compiled


def dedent(lines):
    indents = [len(l) - len(l.lstrip(" ")) for l in lines if l.strip()]
    cut = min(indents) if indents else 0
    return [l[cut:] if l.strip() else "" for l in lines]


def header_blocks(path, rel):
    with open(path, encoding="utf-8") as f:
        src = f.read().split("\n")
    blocks = []
    scope = 0
    prev_comment = False
    i = 0
    last_prose = ""
    while i < len(src):
        m = CODE_COMMENT.match(src[i])
        if not m:
            prev_comment = False
            i += 1
            continue
        if not prev_comment:
            scope += 1
            last_prose = ""
        prev_comment = True
        body = m.group(2)
        if not re.match(r"^ {2,}\S", body):
            if body.strip():
                last_prose = body
            i += 1
            continue
        # A code block: code lines, and blank comment lines followed by more code lines.
        start = i
        lines = []
        j = i
        while j < len(src):
            mj = CODE_COMMENT.match(src[j])
            if not mj:
                break
            bj = mj.group(2)
            if re.match(r"^ {2,}\S", bj):
                lines.append(bj)
                j += 1
                continue
            if bj.strip():
                break
            k = j  # blank comment lines: part of the block only if code follows
            while k < len(src):
                mk = CODE_COMMENT.match(src[k])
                if not mk or mk.group(2).strip():
                    break
                k += 1
            mk = CODE_COMMENT.match(src[k]) if k < len(src) else None
            if mk and re.match(r"^ {2,}\S", mk.group(2)):
                lines.extend([""] * (k - j))
                j = k
                continue
            break
        b = Block(rel, start + 1, dedent(lines), (rel, scope))
        if OPT_OUT in last_prose:
            b.skipped = "marked " + OPT_OUT
        blocks.append(b)
        i = j
    return blocks


def markdown_blocks(path, rel):
    with open(path, encoding="utf-8") as f:
        src = f.read().split("\n")
    blocks = []
    i = 0
    while i < len(src):
        if not FENCE_OPEN.match(src[i]):
            i += 1
            continue
        before = src[i - 1] if i > 0 else ""
        j = i + 1
        while j < len(src) and not FENCE_CLOSE.match(src[j]):
            j += 1
        b = Block(rel, i + 2, dedent(src[i + 1:j]), (rel, 0))
        if OPT_OUT in before:
            b.skipped = "marked " + OPT_OUT
        blocks.append(b)
        i = j + 1
    return blocks


def strip_line_comment(line):
    """The line without a trailing // comment (string and character literals respected)."""
    quote = None
    k = 0
    while k < len(line):
        c = line[k]
        if quote:
            if c == "\\":
                k += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif line.startswith("//", k):
            return line[:k].rstrip()
        k += 1
    return line.rstrip()


def prepare(block):
    """Splits a block into hoisted #include lines and the statements; None when not C++."""
    includes = []
    body = []
    output = False
    for n, line in enumerate(block.lines):
        s = line.strip()
        if not output and (SHELL_LINE.match(s) or JSON_LINE.match(s)):
            if not any(strip_line_comment(l).strip() for l in body):
                return None, None
            output = True
        if output:
            body.append("// " + line if s else "")
        elif s.startswith("#include"):
            includes.append((block.first_line + n, s))
            body.append("")
        else:
            body.append(line)
    code = [(n, strip_line_comment(l)) for n, l in enumerate(body)]
    code = [(n, l) for n, l in code if l.strip() and not l.lstrip().startswith("/*")]
    if code and code[-1][1][-1] not in ";{}":
        last = code[-1][0]
        if not any(";" in l for _, l in code):
            return includes, ("expression", body, last)
        body[last] = body[last] + ";"
    return includes, ("statements", body, None)


def main():
    args = sys.argv[1:]
    keep = None
    if "--keep" in args:
        k = args.index("--keep")
        keep = args[k + 1]
        del args[k:k + 2]
    root = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), "..", ".."))
    os.chdir(root)

    headers = sorted(glob.glob("include/ocml/*.hpp"))
    if not headers:
        sys.exit(f"check_examples: no headers in {root}/include/ocml")
    files = [(h, header_blocks(h, h)) for h in headers]
    for md in ["README.md"] + sorted(glob.glob("docs/*.md")):
        if os.path.exists(md):
            files.append((md, markdown_blocks(md, md)))

    top = ["// Generated by tests/tools/check_examples.py: the documentation's C++ examples."]
    top += [f"#include <{h[len('include/'):]}>" for h in headers]
    top += ["#include <cassert>", "#include <cstdio>", "#include <iostream>",
            "#include <optional>", "#include <string>", "#include <string_view>",
            "#include <utility>", "#include <vector>"]
    hoisted = []
    funcs = []
    skipped = []
    compiled = 0
    used_files = set()
    for n, (path, blocks) in enumerate(files):
        out = []
        scope = None
        for b in blocks:
            includes, prepared = (None, None) if b.skipped else prepare(b)
            if prepared is None:
                skipped.append(f"{b.path}:{b.first_line} ({b.skipped or 'not C++'})")
                continue
            for line_no, inc in includes:
                hoisted += [f'#line {line_no} "{b.path}"', inc]
            if b.scope != scope:
                if scope is not None:
                    out.append("}")
                out.append("{")
                scope = b.scope
            kind, body, last = prepared
            if kind == "expression":  # on the line before the block's first line
                out += [f'#line {b.first_line - 1} "{b.path}"', "(void)("]
            else:
                out.append(f'#line {b.first_line} "{b.path}"')
            out += body
            if kind == "expression":
                out.append(");")
            compiled += 1
            used_files.add(path)
        if scope is None:
            continue
        out.append("}")
        funcs += [f"// {path}", f"int example_{n}() {{"] + out + ["return 0;", "}"]

    unit = top + hoisted + ['#line 1 "check_examples.py prelude"', "namespace ocml_examples {"]
    unit += PRELUDE.strip("\n").split("\n")
    unit += ['#line 1 "check_examples.py wrapper"'] + funcs + ["}  // namespace ocml_examples", ""]
    text = "\n".join(unit)

    cxx = shlex.split(os.environ.get("CXX") or "g++")
    with tempfile.TemporaryDirectory() as tmp:
        unit_path = keep or os.path.join(tmp, "doc_examples.cpp")
        with open(unit_path, "w", encoding="utf-8") as f:
            f.write(text)
        cmd = cxx + ["-std=c++20", "-fsyntax-only", "-Werror=unused-result", "-I", "include",
                     "-x", "c++", unit_path]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for s in skipped:
        print(f"examples: skipped {s}")
    if proc.returncode != 0:
        sys.stdout.write(proc.stdout)
        print(f"examples: FAILED to compile ({compiled} blocks from {len(used_files)} files; "
              f"command: {shlex.join(cmd)})")
        return 1
    if proc.stdout.strip():
        sys.stdout.write(proc.stdout)
    print(f"examples: {compiled} blocks from {len(used_files)} files compile")
    return 0


if __name__ == "__main__":
    sys.exit(main())
