"""A run's thread attributes against those of the baseline's run it is compared with (docs/
reading-reports.md, "Thread differences"): each worker's ThreadInfo (results.json's
`thread_infos`) against the baseline's worker of the same index, or the baseline's first
worker; a difference every compared worker has is one line, one only some have names them
("workers 1, 3: cpus: ..."). Compared fields: stack and guard size, blocked signals, CPU
affinity, policy, priority, nice, whether Python created the thread, the GIL state where both
know it. Standard library only.
"""

import signal

SUMMARIZED = 6      # a signal set of more signals is written as a count


def size_text(n):
    """'8 MiB', '256 KiB', '4100 B', '7.99 MiB': the largest binary unit, exact where whole."""
    units = ["B", "KiB", "MiB", "GiB", "TiB"]
    v, u = float(n), 0
    while v >= 1024 and u < 4:
        v /= 1024
        u += 1
    return f"{int(v)} {units[u]}" if v == int(v) else f"{v:.2f} {units[u]}"


def signal_name(number):
    """Linux's name of a signal; realtime ones relative to SIGRTMIN as this C library sets it."""
    low, high = signal.SIGRTMIN, signal.SIGRTMAX
    if number == low:
        return "SIGRTMIN"
    if number == high:
        return "SIGRTMAX"
    if low < number < high:
        return f"SIGRTMIN+{number - low}"
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"SIG{number}"
    # Python's enum gives one name of a number with aliases; the report spells the classic one.
    return {"SIGIOT": "SIGABRT", "SIGPOLL": "SIGIO", "SIGCLD": "SIGCHLD"}.get(name, name)


def names(signals):
    return ", ".join(signal_name(s) for s in signals)


def signals_text(signals):
    if not signals:
        return "none"
    if len(signals) <= SUMMARIZED:
        return "{" + names(signals) + "}"
    missing = [s for s in range(1, signal.SIGRTMAX + 1) if s not in set(signals)]
    out = f"{len(signals)} signals"
    if len(missing) <= SUMMARIZED:
        out += " (all but " + (names(missing) if missing else "none") + ")"
    return out


def only_in(a, b):
    out = [s for s in a if s not in set(b)]
    return names(out) if len(out) <= SUMMARIZED else f"{len(out)} signals"


def cpus_text(cpus):
    """'0-3,8,10-11'; 'none' when empty."""
    if not cpus:
        return "none"
    out, i = [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) + (f"-{cpus[j]}" if j > i else ""))
        i = j + 1
    return ",".join(out)


def yes_no(value):
    return "yes" if value else "no"


def differences(a, b):
    """How ThreadInfo b differs from a, one line per field, a's value first."""
    out = []
    for field in ("stack_size", "guard_size"):
        if a.get(field, 0) != b.get(field, 0):
            out.append(f"{field}: {size_text(a.get(field, 0))} vs {size_text(b.get(field, 0))}")
    sa, sb = sorted(a.get("blocked_signals") or []), sorted(b.get("blocked_signals") or [])
    if sa != sb:
        line = f"{signals_text(sa)} vs {signals_text(sb)}"
        if sa and sb and (len(sa) > SUMMARIZED or len(sb) > SUMMARIZED):
            first, second = only_in(sa, sb), only_in(sb, sa)
            line += (f" (only first: {first})" if first else "") + \
                (f" (only second: {second})" if second else "")
        out.append("blocked_signals: " + line)
    if (a.get("cpus") or []) != (b.get("cpus") or []):
        out.append(f"cpus: {cpus_text(a.get('cpus') or [])} vs {cpus_text(b.get('cpus') or [])}")
    for field in ("policy", "priority", "nice"):
        if a.get(field) != b.get(field):
            out.append(f"{field}: {a.get(field)} vs {b.get(field)}")
    if bool(a.get("python_thread")) != bool(b.get("python_thread")):
        out.append(f"python_thread: {yes_no(a.get('python_thread'))} vs "
                   f"{yes_no(b.get('python_thread'))}")
    if a.get("gil_held") is not None and b.get("gil_held") is not None and \
            a["gil_held"] != b["gil_held"]:
        out.append(f"gil_held: {yes_no(a['gil_held'])} vs {yes_no(b['gil_held'])}")
    return out


def workers_of(raw):
    return [t for t in raw.get("thread_infos") or [] if t.get("worker", -1) >= 0]


def thread_differences(run_raw, baseline_raw):
    """The lines of a run's thread attribute differences from the baseline's run."""
    base = {}
    for t in workers_of(baseline_raw):
        base.setdefault(t["worker"], t)
    if not base:
        return []
    first = base[min(base)]
    found, compared = {}, 0
    for t in workers_of(run_raw):
        compared += 1
        for d in differences(base.get(t["worker"], first), t):
            found.setdefault(d, []).append(t["worker"])
    out = []
    for text, workers in found.items():
        if len(workers) == compared:
            out.append(text)
        else:
            who = "worker" if len(workers) == 1 else "workers"
            out.append(f"{who} {', '.join(str(w) for w in workers)}: {text}")
    return out


def payload_line(run_raw):
    """'payload NAME: PATH (found in FOLDER), sha256 HASH' of a run that ran a payload."""
    p = run_raw.get("payload")
    if not isinstance(p, dict):
        return None
    return (f"payload {p.get('name', '')}: {p.get('path', '')} (found in {p.get('folder', '')}), "
            f"sha256 {p.get('sha256', '')}")
