"""The report's header, held against results.json: the title (tool version, scenario, runs and
trials), the host, the command, and the settings of "What ran" (those every run of the plan
shares) and "What differs between runs" (each run of the plan with the settings in which the
runs differ), with the keys an older file does not hold (docs/reading-reports.md, "The
terminal table"). The keys each settings table has are read from docs/scenarios.md, their values
from each run's `settings` in results.json; nothing is read from xferlab's analysis. Standard
library only.
"""

import json
import os
import re

import audit_report as rep
from audit_findings import normalized

SCENARIOS_DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                             "scenarios.md")
TABLES = ("transfer", "threads", "staging")
# The [[run]]'s own settings results.json records (docs/scenarios.md, "What results record":
# RunSettings), each named where a file lacks it.
RUN_NAMES = ("launcher", "payload", "gil", "mimic", "backend", "timeout", "timeout_ns", "params",
             "overrides")
# docs: "a run has one [gil] where its workers take the GIL".
GIL_ALWAYS = {"python", "python-subinterp", "host+gil"}
GIL_WITH_PAYLOAD = {"process", "mpi"}
ABSENT = "-"


class DocsError(Exception):
    """docs/scenarios.md does not say what the audit needs."""


def documented_keys(path=SCENARIOS_DOC):
    """{table: [key, ...]} of docs/scenarios.md's key table under '## [table]...', in its order."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    out = {}
    for table in TABLES:
        start = next((i for i, line in enumerate(lines)
                      if line.startswith(f"## [{table}]")), None)
        if start is None:
            raise DocsError(f"{path}: no '## [{table}]' section")
        keys = []
        for line in lines[start + 1:]:
            if line.startswith("#"):
                break
            m = re.match(r"^\| `([a-z_]+)` \|", line)
            if m:
                keys.append(m.group(1))
        if not keys:
            raise DocsError(f"{path}: '## [{table}]' has no key table")
        out[table] = keys
    return out


KEYS = documented_keys()


def documented_defaults(path=SCENARIOS_DOC):
    """{dotted name: the default as the header prints it} from docs/scenarios.md's key tables (the
    third column: `"64MiB"`, `8`, `true`), and the [[run]]'s own keys the default report can
    leave out (mimic, backend, timeout)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    out = {"mimic": "none", "backend": "auto", "timeout": "none"}
    for table in TABLES:
        start = next(i for i, line in enumerate(lines) if line.startswith(f"## [{table}]"))
        for line in lines[start + 1:]:
            if line.startswith("#"):
                break
            m = re.match(r"^\| `([a-z_]+)` \| [^|]* \| `([^`]*)` \|", line)
            if m:
                out[f"{table}.{m.group(1)}"] = default_text(m.group(2).strip('"'))
    return out


def retired_defaults(path=SCENARIOS_DOC):
    """{dotted name: its former default} of the [staging] keys retired (docs/scenarios.md's
    table after "retired key"): older results that recorded one at its former default leave it
    out of the default report, as reports did then."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    out = {}
    start = next((i for i, line in enumerate(lines) if line.startswith("| retired key |")), None)
    for line in lines[start + 2:] if start is not None else []:
        m = re.match(r"^\| `staging\.([a-z_]+)` \| `([^`]*)`", line)
        if not line.startswith("|"):
            break
        if m:
            out[f"staging.{m.group(1)}"] = default_text(m.group(2).strip('"'))
    return out


UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "KB": 10 ** 3, "MB": 10 ** 6,
         "GB": 10 ** 9}


def default_text(value):
    """A documented default as the header prints it: a size ("64MiB") as size_text does."""
    m = re.fullmatch(r"(\d+)(B|KiB|MiB|GiB|KB|MB|GB)", value)
    return size_text(int(m.group(1)) * UNITS[m.group(2)]) if m else value


# ------------------------------------------------------------------------------------------
# What results.json says

def value_text(value):
    """A setting's value as the header prints it: text as it is, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def gil_applies(settings):
    launcher = settings.get("launcher", "")
    with_payload = launcher in GIL_WITH_PAYLOAD and bool(settings.get("payload"))
    return launcher in GIL_ALWAYS or with_payload


OBSERVES_PROGRAM = {"watched"}  # launchers whose runs watch a program (xferlab watch)


def run_settings(raw):
    """[(dotted name, value text)] of one run: its [[run]] keys, every documented key of its
    tables (staging only for a staged run; keys a retired option left in an older file too),
    its params. A key the file lacks is left out."""
    s = raw.get("settings") or {}
    # A watched program ran with no settings of xferlab's (launcher "watched", the one launcher
    # that observes a program): its launcher and the backend that watched it, nothing else
    # (report/render/settings_header.cpp).
    if s.get("launcher") in OBSERVES_PROGRAM:
        return [("launcher", s.get("launcher")), ("backend", raw.get("backend") or "")]
    out = []

    def add(name, value):
        if name in s:
            out.append((name, value))

    add("launcher", s.get("launcher"))
    add("payload", s.get("payload") or "none")
    if gil_applies(s):
        add("gil", s.get("gil"))
    add("mimic", s.get("mimic") or "none")
    used = raw.get("backend") or ""
    add("backend", f"{s.get('backend')} (ran on {used})" if used and used != s.get("backend")
        else s.get("backend"))
    add("timeout", s.get("timeout"))
    for table in TABLES:
        values = s.get(table)
        if not isinstance(values, dict):
            continue
        if table == "staging" and (s.get("transfer") or {}).get("path") != "staged":
            continue        # [staging] acts on staged copies only
        for key in KEYS[table]:
            if key in values:
                out.append((f"{table}.{key}", value_text(shown(values, key))))
        if table == "staging":
            out += [(f"staging.{key}", value_text(v)) for key, v in values.items()
                    if retired_staging(key)]
    if isinstance(s.get("params"), dict):
        out += [(f"params.{k}", value_text(v)) for k, v in s["params"].items()]
    return out


def shown(values, key):
    """A key's value: a size that has a text twin ("bytes_text") in binary units where they are
    exact, decimal ones where only those are ("100 MB"), "default" as recorded; else as
    recorded."""
    text = values.get(key + "_text")
    number = values[key]
    if text is None or text == "default" or not isinstance(number, int):
        return number if text is None else text
    return size_text(number)


def size_text(n):
    """docs/scenarios.md, "Units": binary units unless the size is exact only in decimal ones
    ("1000000" is "1 MB"), two decimals at most, trailing zeros dropped."""
    def scaled(units, step):
        k = 0
        while k + 1 < len(units) and n >= step ** (k + 1):
            k += 1
        v = n / step ** k
        if k + 1 < len(units) and round(v * 100) / 100 >= step:
            k += 1
            v = n / step ** k
        return f"{v:.2f}".rstrip("0").rstrip(".") + " " + units[k]

    def exact(step):
        k = 0
        while k < 5 and n >= step ** (k + 1):
            k += 1
        return (n * 100) % step ** k == 0

    binary = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
    decimal = ["B", "KB", "MB", "GB", "TB", "PB"]
    if not exact(1024) and exact(1000):
        return scaled(decimal, 1000)
    return scaled(binary, 1024)


def retired_staging(key):
    """A [staging] key an older xferlab recorded that the docs no longer list (not a number or
    text twin of a listed one): shown as it ran."""
    if key in KEYS["staging"]:
        return False
    base = re.sub(r"_(bytes|text|ns)$", "", key)
    return base not in KEYS["staging"]


def unrecorded(raw):
    """The names of settings a run's file lacks (a whole table by its name)."""
    s = raw.get("settings") or {}
    out = [n for n in RUN_NAMES if n not in s]
    for table in TABLES:
        if not isinstance(s.get(table), dict):
            out.append(table)
        else:
            out += [f"{table}.{k}" for k in KEYS[table] if k not in s[table]]
    return out


class Settings:
    """The plan's settings as the header must show them: each run of the plan (its first trial)
    with its settings; those all runs that have them share, and those in which they differ."""

    def __init__(self, plan):
        self.groups = plan.groups
        self.each = [dict(run_settings(g.runs[0].raw)) for g in self.groups]
        names = []
        for settings in self.each:
            names += [n for n in settings if n not in names]
        self.names = names
        self.common, self.differing = {}, []
        for name in names:
            values = [s.get(name) for s in self.each]
            present = {v for v in values if v is not None}
            if len(present) == 1:
                self.common[name] = (present.pop(), None in values)
            else:
                self.differing.append(name)
        self.unrecorded = sorted({n for g in self.groups for n in unrecorded(g.runs[0].raw)})


# ------------------------------------------------------------------------------------------
# What the report prints

def header_items(block, first_indent="  "):
    """Items of a header paragraph (after its heading): a line at `first_indent` starts one,
    lines indented further continue it (joined with one space)."""
    out = []
    for line in block[1:]:
        if line.startswith(first_indent) and not line.startswith(first_indent + " "):
            out.append(line.strip())
        elif out:
            out[-1] += " " + line.strip()
    return out


def pairs(text, keys):
    """'key = value, key = value' as [(key, value)], split before each of `keys` (a value may
    hold commas and spaces, a params key spaces too)."""
    out = []
    known = "|".join(re.escape(k) for k in sorted(set(keys), key=len, reverse=True))
    for part in re.split(f", (?=(?:{known}) = )", text) if known else [text]:
        key, sep, value = part.partition(" = ")
        out.append((key, value) if sep else (part, None))
    return out


def printed_common(block, names):
    """'What ran': ({dotted name: (value, where it applies)}, [unrecorded names] or None,
    [lines not read]); `names`: the dotted names a run of the plan has."""
    common, not_recorded, unread = {}, None, []
    for item in header_items(block):
        if item.startswith("not recorded in this file "):
            not_recorded = item.split("): ", 1)[1].split(", ") if "): " in item else []
            continue
        m = re.match(r"^([a-z_]+)( \(the runs it applies to\))?: (.*)$", item)
        if not m:
            unread.append(item)
            continue
        table, whole, rest = m.group(1), bool(m.group(2)), m.group(3)
        keys = [n.split(".", 1)[1] if n.startswith(table + ".") else n for n in names]
        for key, value in pairs(rest, keys):
            where = whole
            if value is not None and value.endswith(" (where it applies)"):
                value, where = value[: -len(" (where it applies)")], True
            name = key if table == "run" else f"{table}.{key}"
            common[name] = (value, where)
    return common, not_recorded, unread


# ------------------------------------------------------------------------------------------
# The checks

def check_header(audit, text, view):
    """Title, host and command in every view; What ran and What differs where the view has
    them (not --brief)."""
    results = audit.plan.results
    block = rep.paragraphs(text)[0] if text.strip() else []
    check_title_block(audit, block, results, view)
    if view == "brief":
        return
    check_settings(audit, text, view)


def title_text(plan):
    results = plan.results
    scenario = results.get("scenario") or {}
    inner = scenario.get("scenario") if isinstance(scenario, dict) else None
    name = "(unnamed)"
    if isinstance(inner, dict) and isinstance(inner.get("name"), str):
        name = inner["name"]
    elif isinstance(scenario, dict) and isinstance(scenario.get("name"), str):
        name = scenario["name"]
    n = len(plan.runs)
    runs = f"{n} run" + ("" if n == 1 else "s")
    if any(r.trial > 1 for r in plan.runs):
        sizes = [len(g.runs) for g in plan.groups]
        runs += f" ({len(sizes)} x {'' if min(sizes) == max(sizes) else 'up to '}{max(sizes)} " \
                "trials)"
    return (f"xferlab {results.get('tool_version', '')} ({results.get('git_describe', '')}): "
            f"scenario {name}, {runs}")


def host_text(results):
    host = results.get("host") or {}
    parts = [str(host[k]) for k in ("hostname", "cpu_model") if host.get(k)]
    if host.get("logical_cpus") is not None:
        parts.append(f"{host['logical_cpus']} CPUs")
    if host.get("numa_nodes") is not None:
        n = host["numa_nodes"]
        parts.append(f"{n} NUMA node" + ("" if n == 1 else "s"))
    if host.get("transparent_hugepage"):
        parts.append(f"THP {host['transparent_hugepage']}")
    if host.get("kernel"):
        parts.append(host["kernel"])
    return "host: " + ", ".join(parts) if parts else None


SHELL_SAFE = re.compile(r"^[A-Za-z0-9@%+=:,./_-]+$")


def shell_word(word):
    """A word as a POSIX shell reads it back: quoted where it holds anything but letters,
    digits and @%+=:,./-_."""
    if SHELL_SAFE.match(word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"


def command_text(results):
    command = results.get("command") or {}
    argv = command.get("argv") or []
    if not argv:
        return "command: not recorded (results written before xferlab recorded it)"
    cwd = command.get("cwd") or ""
    return "command: " + " ".join(shell_word(w) for w in argv) + (f" (in {cwd})" if cwd else "")


def check_title_block(audit, block, results, view):
    """The report's first paragraph: the title, then the host line, then the command, each
    wrapped with its continuation lines indented."""
    items = []
    for line in block:
        if line.startswith("note ("):
            break           # --brief's notes follow the command without a blank line
        if line.startswith(" ") and items:
            items[-1] += " " + line.strip()
        else:
            items.append(line)
    want = [("title", title_text(audit.plan)), ("host", host_text(results)),
            ("command", command_text(results))]
    want = [(what, text) for what, text in want if text is not None]
    for i, (what, text) in enumerate(want):
        printed = items[i] if i < len(items) else None
        if printed is None or normalized(printed) != normalized(text):
            audit.add("header", what, printed or "(nothing)", view, f"results.json says '{text}'")
    for extra in items[len(want):]:
        audit.add("header", "header", extra, view, "a line results.json does not give")


def check_settings(audit, text, view):
    settings = Settings(audit.plan)
    ran = next((p for p in rep.paragraphs(text) if p[0].startswith("What ran")), None)
    # The default report leaves out the settings at their defaults (docs/reading-reports.md,
    # "The terminal table"); --full shows them all.
    about = ["every run"] if len(audit.plan.runs) > 1 else []
    if view == "default":
        about.append("the settings at their defaults: --full")
        defaults = {**DEFAULTS, **RETIRED_DEFAULTS}
        settings.common = {n: v for n, v in settings.common.items()
                           if defaults.get(n) != v[0]}
    if ran is None:
        if settings.common or settings.differing:
            audit.add("header", "what ran", "(nothing)", view, "no 'What ran' block")
        return
    heading = "What ran" + (f" ({'; '.join(about)})" if about else "")
    if ran[0] != heading:
        audit.add("header", "what ran", ran[0], view, f"the heading is '{heading}'")
    check_common(audit, ran, settings, view)
    differs = rep.paragraph(text, "What differs between runs")
    check_differs(audit, differs, settings, view)


def check_common(audit, block, settings, view):
    common, not_recorded, unread = printed_common(block, settings.names)
    for item in unread:
        audit.add("header", "what ran", item, view, "not a 'table: key = value' line")
    for name, (value, where) in common.items():
        if name in settings.differing:
            audit.add("header", "what ran", f"{name} = {value}", view,
                      "the runs differ in it: it belongs under 'What differs'")
        elif name not in settings.common:
            audit.add("header", "what ran", f"{name} = {value}", view,
                      "no run of the plan has this setting")
        elif settings.common[name][0] != value:
            audit.add("header", "what ran", f"{name} = {value}", view,
                      f"every run that has it has {settings.common[name][0]}")
        elif settings.common[name][1] != where:
            audit.add("header", "what ran", f"{name} = {value}", view,
                      "some runs do not have it: '(where it applies)'" if settings.common[name][1]
                      else "every run has it: not '(where it applies)'")
    for name, (value, _) in settings.common.items():
        if name not in common:
            audit.add("header", "what ran", f"{name} = {value}", view, "not printed")
    if (not_recorded or []) != settings.unrecorded:
        audit.add("header", "what ran", "not recorded: " + ", ".join(not_recorded or []), view,
                  "the file lacks " + (", ".join(settings.unrecorded) or "nothing"))


def check_differs(audit, block, settings, view):
    if not settings.differing:
        if block is not None:
            audit.add("header", "what differs", block[0], view, "every run has the same settings")
        return
    if block is None:
        audit.add("header", "what differs", "(nothing)", view,
                  "the runs differ in " + ", ".join(settings.differing))
        return
    items = header_items(block)
    if len(items) != len(settings.groups):
        audit.add("header", "what differs", f"{len(items)} lines", view,
                  f"{len(settings.groups)} runs of the plan")
    for item, group, values in zip(items, settings.groups, settings.each):
        where = f"label '{group.label}'"
        if not item.startswith(group.label + ": "):
            audit.add("header", "what differs", item, view, f"the line of {where} comes here")
            continue
        printed = dict(pairs(item[len(group.label) + 2:], settings.names))
        want = {name: values.get(name, ABSENT) for name in settings.differing}
        for name, value in printed.items():
            if name not in want:
                audit.add("header", "what differs", f"{group.label}: {name} = {value}", view,
                          "the runs do not differ in it")
            elif value != want[name]:
                audit.add("header", "what differs", f"{group.label}: {name} = {value}", view,
                          f"its run {group.runs[0].index} has {name} = {want[name]}")
        for name in want:
            if name not in printed:
                audit.add("header", "what differs", f"{group.label}: {name}", view,
                          "not printed")



DEFAULTS = documented_defaults()
RETIRED_DEFAULTS = retired_defaults()
