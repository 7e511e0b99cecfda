#!/usr/bin/env python3
"""Checks that docs/results holds only what a reader is sent to, and that the docs' links work.

    tools/check-results-cited.py     exit 1 on any finding (ctest: docs/results-cited)

1. Every file under docs/results is cited, and none is a log (*.log: build and test logs stay in
   git history; a benchmark's output is kept as .txt). The pages are README.md and docs/*.md,
   and every .md under docs/results that one of them cites (a page cited is a page that cites);
   tests (tests/**, not fixtures) cite too. A citation is a Markdown link or image
   (`[text](path)`, relative to the page) or a path in the text: relative to the page, to
   docs/results or to the repository root (`docs/results/...`). A link to a folder cites no
   file in it, and a path after `git show REV:` names history, not the tree.
2. Every relative link in README.md and the .md files under docs/ leads somewhere: the file or
   folder exists, and its #anchor is a heading of the target page (GitHub's slugs).
3. The command CI runs (.ci/run) is one the README's first code block gives as written, so that
   what a newcomer runs is what CI checks.
Prints each finding on a line of its own; no network, nothing written.
"""
import pathlib
import re
import sys
import urllib.parse

ROOT = pathlib.Path(__file__).resolve().parent.parent
RESULTS = ROOT / "docs" / "results"
TEST_SUFFIXES = {".cpp", ".hpp", ".py", ".sh", ".txt", ".cmake", ".toml"}

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
# A path-like word with a file name at its end: what a page or a test may name a file by.
PATH = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[\w.-]+\.(?:json|xz|txt|png|svg|csv|log|md|toml|"
                  r"sqlite|jsonl|tsv))(?![\w/])")
HISTORY = re.compile(r"git show [0-9a-f]{6,40}:\S+")
FENCE = re.compile(r"^(```|~~~)")


def rel(p):
    return p.relative_to(ROOT).as_posix()


def inside(p, folder):
    try:
        p.relative_to(folder)
        return True
    except ValueError:
        return False


def links(text):
    """The link targets of a Markdown text, outside code blocks and code spans."""
    out, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line.strip()):
            fenced = not fenced
            continue
        if not fenced:
            out += LINK.findall(re.sub(r"`[^`]*`", "", line))
    return out


def slug(heading):
    """GitHub's anchor for a heading: its text without markup, lower case, punctuation out,
    spaces as hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "").replace("*", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


_anchors = {}


def anchors(page):
    if page not in _anchors:
        seen, found, fenced = {}, set(), False
        for line in page.read_text(encoding="utf-8").splitlines():
            if FENCE.match(line.strip()):
                fenced = not fenced
                continue
            m = None if fenced else re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                s = slug(m.group(1))
                n = seen.get(s, 0)
                seen[s] = n + 1
                found.add(s if n == 0 else f"{s}-{n}")
        _anchors[page] = found
    return _anchors[page]


def resolve_link(page, target):
    """(path or None, anchor) for a relative link; None, None for one that leaves the repo."""
    if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):
        return None, None
    path, _, anchor = target.partition("#")
    path = urllib.parse.unquote(path)
    return (page.resolve() if not path else (page.parent / path).resolve()), anchor


def named_paths(text, bases):
    """The existing files under docs/results that a text names by a path."""
    text = HISTORY.sub("", text)
    out = set()
    for word in PATH.findall(text):
        for base in bases:
            p = (base / word).resolve()
            if inside(p, RESULTS) and p.is_file():
                out.add(p)
    return out


def main():
    files = {p.resolve() for p in RESULTS.rglob("*") if p.is_file()}
    cited, problems = set(), []

    # 1. The pages and what they cite, from README.md and docs/*.md down.
    todo = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
    done = set()
    while todo:
        page = todo.pop().resolve()
        if page in done:
            continue
        done.add(page)
        text = page.read_text(encoding="utf-8")
        found = named_paths(text, [page.parent, RESULTS, ROOT])
        for target in links(text):
            path, _ = resolve_link(page, target)
            if path is not None and path.is_file() and inside(path, RESULTS):
                found.add(path)
        cited |= found
        todo += [p for p in found if p.suffix == ".md"]
    for test in sorted((ROOT / "tests").rglob("*")):
        if test.is_file() and test.suffix in TEST_SUFFIXES and "fixtures" not in test.parts:
            cited |= named_paths(test.read_text(encoding="utf-8", errors="replace"), [ROOT])
    for p in sorted(files):
        if p.suffix == ".log":
            problems.append(f"a log: {rel(p)} (build and test logs stay in git history; a "
                            f"benchmark's output is .txt)")
        elif p not in cited:
            problems.append(f"not cited: {rel(p)}")

    # 2. Relative links in README.md and docs/**/*.md.
    for page in [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md")):
        for target in links(page.read_text(encoding="utf-8")):
            path, anchor = resolve_link(page, target)
            if path is None:
                continue
            where = f"{rel(page)}: ({target})"
            if not inside(path, ROOT):
                problems.append(f"broken link: {where} leaves the repository")
            elif not path.exists():
                problems.append(f"broken link: {where} no such file")
            elif anchor and path.suffix == ".md" and anchor not in anchors(path):
                problems.append(f"broken link: {where} no heading #{anchor} in {rel(path)}")

    # 3. .ci/run's command in the README's first code block.
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```[a-z]*\n(.*?)```", readme, re.S)
    shown = [line.split("#")[0].strip() for line in block.group(1).splitlines()] if block else []
    ci = ROOT / ".ci" / "run"
    for command in (ci.read_text(encoding="utf-8").splitlines() if ci.exists() else []):
        command = command.strip()
        if command and not command.startswith(("#", "set ", "cd ")) and command not in shown:
            problems.append(f"README.md: its first code block does not give `{command}`, which "
                            f".ci/run runs")

    for line in problems:
        print(line)
    n_cited = len(files & cited)
    print(f"check-results-cited: {len(files)} files under docs/results, {n_cited} cited; "
          f"{len(problems)} problem(s)", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
