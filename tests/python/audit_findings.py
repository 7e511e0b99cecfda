"""A finding as the explanations audit expects it (its rule, the sentence shape of the catalogue
with a {name} where each field goes, and each field: a claim's text, a figure's value, the runs
it points to), and how a printed sentence is held against it: the same shape, the same claims,
every figure within the precision it is printed with (a range "lo to hi" where a concise line
lists several runs), the run's own references among the runs printed. Standard library only.
"""

import dataclasses
import math
import re

DURATION_UNITS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}

NUMBER = {
    "duration": r"-?[0-9.]+(?:e[+-]?[0-9]+)? (?:ns|us|µs|ms|s)",
    "percent": r"-?[0-9.]+%",
    "ratio": r"[0-9.]+(?:e[+-]?[0-9]+)?x",
    "times": r"[0-9.]+(?:e[+-]?[0-9]+)?x",
    "f1": r"-?[0-9.]+",
    "f2": r"-?[0-9.]+",
    "int": r"-?[0-9]+",
    "gbps": r"[0-9.]+ GB/s",
    "gb": r"[0-9.]+",           # GB/s without the unit (a table cell)
    "f3": r"-?[0-9.]+",
    "g2": r"[0-9.]+(?:e[+-]?[0-9]+)?",
    "g3": r"[0-9.]+(?:e[+-]?[0-9]+)?",
}
SIGNIFICANT = {"g2": 2, "g3": 3}
# The low end of a printed range "13.2-21.3 ms": its number alone, the unit after the high end.
RANGE_LOW = r"-?[0-9.]+(?:e[+-]?[0-9]+)?"
RUNS = r"runs? [0-9]+(?:, [0-9]+)*"


# ------------------------------------------------------------------------------------------
# Numbers as the report prints them (for messages), and what a printed number can stand for

FORMATS = {"ratio": "{:.2f}x", "times": "{:.0f}x", "f1": "{:.1f}", "f2": "{:.2f}",
           "f3": "{:.3f}", "g2": "{:.2g}", "g3": "{:.3g}"}


def render_number(value, kind):
    """A figure as the report prints it (for the audit's messages)."""
    if kind in FORMATS:
        return FORMATS[kind].format(value)
    if kind == "int":
        return str(int(round(value)))
    if kind == "percent":
        p = value * 100
        return f"{p:.1f}%" if abs(p) < 10 else f"{p:.0f}%"
    if kind in ("gbps", "gb"):
        g = value / 1e9
        return (f"{g:.1f}" if g >= 100 else f"{g:.2f}" if g >= 1 else f"{g:.3f}") + \
            (" GB/s" if kind == "gbps" else "")
    if kind == "duration":
        if abs(value) < 1e3:
            return f"{value:.0f} ns"
        unit, scale = next((u, f) for u, f in (("us", 1e3), ("ms", 1e6), ("s", 1e9))
                           if abs(value) < f * 1e3 or u == "s")
        return f"{value / scale:.3g} {unit}"
    raise ValueError(kind)


def decimals(text):
    mantissa = text.split("e")[0]
    return len(mantissa.split(".")[1]) if "." in mantissa else 0


def printed_interval(text, kind):
    """The values a printed number stands for: (low, high)."""
    text = text.strip()
    if kind == "duration":
        number, unit = text.rsplit(" ", 1)
        x, scale = float(number), DURATION_UNITS[unit]
        if unit == "ns":
            half = 0.5
        elif x == 0:
            half = 0.5 * 10 ** -decimals(number) * scale
        else:  # three significant digits
            half = 0.5 * 10 ** (math.floor(math.log10(abs(x))) - 2) * scale
        return x * scale - half, x * scale + half
    if kind == "percent":
        number = text.rstrip("%")
        half = 0.5 * 10 ** -decimals(number)
        return (float(number) - half) / 100, (float(number) + half) / 100
    if kind in ("gbps", "gb"):
        number = text.split()[0]
        half = 0.5 * 10 ** -decimals(number)
        return (float(number) - half) * 1e9, (float(number) + half) * 1e9
    if kind in SIGNIFICANT:
        x = float(text)
        digits = SIGNIFICANT[kind]
        half = 0.5 * 10 ** (math.floor(math.log10(abs(x))) - digits + 1) if x else 0.5e-12
        return x - half, x + half
    number = text.rstrip("x")
    if kind == "int":
        return float(number), float(number)
    half = 0.5 * 10 ** -decimals(number)
    return float(number) - half, float(number) + half


def within_printed(value, low, high):
    slack = 1e-9 * max(1.0, abs(value))
    return low - slack <= value <= high + slack


def run_numbers(text):
    return [int(x) for x in re.findall(r"\d+", text)]


def runs_text(runs):
    runs = sorted(set(runs))
    return ("run " if len(runs) == 1 else "runs ") + ", ".join(str(r) for r in runs)


def normalized(text):
    return " ".join(text.split())


# ------------------------------------------------------------------------------------------
# Expected findings

@dataclasses.dataclass
class Field:
    name: str
    kind: str               # claim, label, runs, ratios, or a figure's number kind (NUMBER)
    value: object           # claim: text; runs: [ints]; ratios: [(label, ratio)]; figure: float

    @property
    def is_figure(self):
        return self.kind in NUMBER


class Found:
    """A finding the audit's own reading of the catalogue requires of a run (or the summary)."""

    def __init__(self, rule, kind=None, run=None):
        self.rule, self.kind, self.run = rule, kind, run
        self.shape = ""
        self.fields = {}

    def say(self, text):
        self.shape += text
        return self

    def claim(self, name, text):
        self.fields[name] = Field(name, "claim", text)
        return self

    def label(self, name, text):
        """A claim printed in a table cell, which may break a long word."""
        self.fields[name] = Field(name, "label", text)
        return self

    def figure(self, name, value, kind):
        self.fields[name] = Field(name, kind, float(value))
        return self

    def runs(self, name, runs):
        self.fields[name] = Field(name, "runs", sorted(set(runs)))
        return self

    def ratios(self, name, pairs):
        self.fields[name] = Field(name, "ratios", list(pairs))
        return self

    @property
    def id(self):
        return f"{self.rule}/{self.kind}" if self.kind else self.rule

    def text(self):
        """The sentence with this finding's own fields, as the audit would print it."""
        def value(m):
            f = self.fields[m.group(1)]
            if f.kind in ("claim", "label"):
                return f.value
            if f.kind == "runs":
                return runs_text(f.value)
            if f.kind == "ratios":
                return ", ".join(f"'{label}' {render_number(r, 'ratio')}" for label, r in f.value)
            return render_number(f.value, f.kind)
        return re.sub(r"\{(\w+)\}", value, self.shape)

    def regex(self):
        return shape_regex(self.shape, tuple((n, f.kind) for n, f in self.fields.items()))


_REGEXES = {}


def shape_regex(shape, kinds):
    """The regex of a shape: its text literally, each field a group by its kind (a figure may be
    a range "lo to hi")."""
    key = (shape, kinds)
    if key not in _REGEXES:
        kind_of = dict(kinds)
        out, names = [], []
        for i, part in enumerate(re.split(r"\{(\w+)\}", shape)):
            if i % 2 == 0:
                out.append(re.escape(re.sub(r"\s+", " ", part)))
                continue
            kind = kind_of[part]
            group = f"g{len(names)}"
            names.append(part)
            if kind in NUMBER:
                pattern = f"(?:{RANGE_LOW}(?:-| to ))?{NUMBER[kind]}"
            elif kind == "runs":
                pattern = RUNS
            else:
                pattern = ".+?"
            out.append(f"(?P<{group}>{pattern})")
        _REGEXES[key] = (re.compile("".join(out) + r"\Z", re.DOTALL), names)
    return _REGEXES[key]


# ------------------------------------------------------------------------------------------
# A printed sentence against an expected finding

@dataclasses.dataclass
class Held:
    """A printed sentence held against one expected finding: the text of each field as printed,
    and what does not agree (empty: the finding backs the sentence)."""
    found: Found
    matched: bool                       # the sentence has the finding's shape
    printed: dict = dataclasses.field(default_factory=dict)
    problems: list = dataclasses.field(default_factory=list)


def hold(sentence, found, ranges=False):
    """The sentence against the finding: every printed sentence is some run's own (a --full
    section, the summary), run lists exactly as its own; a concise line that lists several trials
    (`ranges`) may give a figure as "lo-hi", which must hold the run's own figure."""
    regex, names = found.regex()
    m = regex.match(normalized(sentence))
    if not m:
        return Held(found, False, problems=[
            f"its own says '{excerpt_near(found.text(), sentence)}' where printed "
            f"'{excerpt_near(sentence, found.text())}'"])
    held = Held(found, True)
    for i, name in enumerate(names):
        text = m.group(f"g{i}")
        held.printed[name] = text
        why = field_problem(found.fields[name], text, ranges)
        if why:
            held.problems.append(why)
    return held


def split_range(text, kind):
    """A printed range "13.2-21.3 ms" as its two ends, each as printed alone ("13.2 ms", "21.3
    ms"); None where `text` is one number."""
    m = re.fullmatch(f"({RANGE_LOW})(?:-| to )({NUMBER[kind]})", text.strip())
    if not m:
        return None
    high = m.group(2)
    number = re.match(RANGE_LOW, high).group(0)
    return m.group(1) + high[len(number):], high


def field_problem(field, text, ranges=False):
    """Why a printed field does not hold for the finding's own field ('' when it does)."""
    if field.kind == "label":     # a table cell: a long word may wrap inside itself
        if "".join(text.split()) != "".join(field.value.split()):
            return f"its {field.name} is '{field.value}', printed '{text}'"
        return ""
    if field.kind == "claim":
        if normalized(text) != normalized(field.value):
            return f"its {field.name} is '{field.value}', printed '{text}'"
        return ""
    if field.kind == "runs":
        if run_numbers(text) != field.value:
            return f"its {field.name} is {runs_text(field.value)}, printed '{text}'"
        return ""
    if field.kind == "ratios":
        return ratios_problem(field, text)
    ends = split_range(text, field.kind) if field.kind in NUMBER else None
    if ends:
        if not ranges:
            return f"its {field.name} is {render_number(field.value, field.kind)}, printed a range"
        low = printed_interval(ends[0], field.kind)[0]
        high = printed_interval(ends[1], field.kind)[1]
    else:
        low, high = printed_interval(text, field.kind)
    if not within_printed(field.value, low, high):
        return (f"its {field.name} is {render_number(field.value, field.kind)}, printed "
                f"'{text}'")
    return ""


def ratios_problem(field, text):
    printed = re.findall(r"'(.*?)' ([0-9.]+)x(?:, |$)", text)
    labels = [label for label, _ in printed]
    want = [label for label, _ in field.value]
    if labels != want:
        return f"its {field.name} lists {want}, printed {labels}"
    for (label, r_text), (_, r) in zip(printed, field.value):
        if not within_printed(r, *printed_interval(r_text, "ratio")):
            return f"'{label}' is {r:.3f}x, printed {r_text}x"
    return ""


def excerpt_near(text, other, width=60):
    """The part of `text` from the first word where it and `other` differ."""
    a, b = normalized(text), normalized(other)
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    start = a.rfind(" ", 0, max(0, i - 15)) + 1
    piece = a[start:start + width]
    return ("..." if start else "") + piece + ("..." if start + width < len(a) else "")
