"""Benchmark: pycline's SEARCH/REPLACE engine against a faithful port of Cline's.

Run: .venv/bin/python bench/edits/run.py [--verbose] [--per-category N]
(--per-category 200 generates a larger corpus from more seeds: a stress run.)

Every corpus case (corpus.py) is applied by both engines and classified:
- correct: applied and equal to the intended result, or refused when refusal is intended;
- refused: an error although the edit has an intended result;
- wrong:   applied, but the result differs from the intended one (or should have been refused).
Then the engine's time for edits on a 10,000-line file.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "src"))

from cline_v1 import ClineDiffError, apply_cline_v1  # noqa: E402
from corpus import PER_CATEGORY, Case, build  # noqa: E402
from encodings_bench import run as run_encodings  # noqa: E402
from malformed import gen_malformed, markers_written  # noqa: E402
from peers import SCENARIOS  # noqa: E402

from pycline.editing.search_replace import SearchReplaceError, apply_search_replace  # noqa: E402

CONFORMANCE = (
    Path(__file__).resolve().parents[2] / "tests" / "conformance" / "diff_search_replace.json"
)

Engine = Callable[[str, str], str]


def ours(original: str, diff: str) -> str:
    return apply_search_replace(original, diff.strip()).content


def cline(original: str, diff: str) -> str:
    return apply_cline_v1(original, diff.strip())


def classify(engine: Engine, case: Case) -> tuple[str, int]:
    """The verdict, and how many marker lines the result gained (a malformed block written)."""
    try:
        result = engine(case.original, case.diff)
    except (SearchReplaceError, ClineDiffError):
        return ("correct" if case.intended is None else "refused"), 0
    markers = markers_written(case.original, result)
    if case.intended is not None and result == case.intended:
        return "correct", markers
    return "wrong", markers


def check_baseline() -> str:
    if not CONFORMANCE.exists():
        return "conformance vectors not found; baseline unchecked"
    cases = json.loads(CONFORMANCE.read_text(encoding="utf-8"))
    passed = 0
    for case in cases:
        try:
            out = apply_cline_v1(case["original"], case["diff"].strip(), is_final=case["is_final"])
            passed += (not case["expect_error"]) and out == case["expected"]
        except ClineDiffError:
            passed += bool(case["expect_error"])
    return f"baseline port passes {passed}/{len(cases)} of Cline's conformance cases"


def table(cases: list[Case], verbose: bool) -> None:
    results: dict[str, dict[str, Counter[str]]] = {
        "pycline": defaultdict(Counter),
        "cline": defaultdict(Counter),
    }
    markers: Counter[str] = Counter()
    for case in cases:
        for name, engine in (("pycline", ours), ("cline", cline)):
            verdict, written = classify(engine, case)
            markers[name] += written
            results[name][case.category][verdict] += 1
            results[name]["TOTAL"][verdict] += 1
            if verbose and name == "pycline" and verdict != "correct":
                print(f"  {verdict:8} {case.id} [{case.source}] {case.note}")
    categories = sorted(
        {c.category for c in cases}, key=lambda c: [x.category for x in cases].index(c)
    )
    header = (
        f"{'category':22}{'cases':>6} | {'pycline ok/ref/wrong':>21} | {'cline ok/ref/wrong':>19}"
    )
    print(header)
    print("-" * len(header))
    for category in [*categories, "TOTAL"]:
        n = sum(results["pycline"][category].values())
        cells = []
        for name in ("pycline", "cline"):
            r = results[name][category]
            cells.append(f"{r['correct']:>4} / {r['refused']:>3} / {r['wrong']:>3}")
        if category == "TOTAL":
            print("-" * len(header))
        print(f"{category:22}{n:>6} | {cells[0]:>21} | {cells[1]:>19}")
    refusals = sum(1 for c in cases if c.intended is None)
    print(
        f"\n{len(cases)} cases, {refusals} of them should be refused. "
        "ok = applied as intended or rightly refused."
    )
    print(
        f"Marker lines written into files: pycline {markers['pycline']}, cline {markers['cline']}."
    )


def peer_table(verbose: bool) -> None:
    """Scenarios from other agents' test suites (peers.py): applied as intended, refused, wrong."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for scenario in SCENARIOS:
        try:
            result = ours(scenario.original, scenario.diff)
            verdict = "correct" if result == scenario.intended else "wrong"
        except SearchReplaceError:
            verdict = "refused"
        counts[scenario.group][verdict] += 1
        counts["TOTAL"][verdict] += 1
        if verbose and verdict != "correct":
            print(f"  {verdict:8} {scenario.id}")
    print(f"\nPeer scenarios ({len(SCENARIOS)})               applied / refused / wrong")
    for group in [*(g for g in counts if g != "TOTAL"), "TOTAL"]:
        c = counts[group]
        print(f"  {group:34} {c['correct']:>4} / {c['refused']:>7} / {c['wrong']:>5}")


def timing() -> None:
    lines: list[str] = []
    for i in range(2500):
        lines += [
            f"def handler_{i}(request, context):",
            f"    value = request.args.get('k{i}', {i})",
            f"    return respond(context, value * {i % 7})",
            "",
        ]
    original = "\n".join(lines) + "\n"
    assert len(original.split("\n")) > 10_000
    cases = {
        "exact match": (
            "------- SEARCH\ndef handler_2000(request, context):\n"
            "    value = request.args.get('k2000', 2000)\n=======\n"
            "def handler_2000(request, context):\n    value = request.args.get('k2000', 1)\n"
            "+++++++ REPLACE"
        ),
        "indentation lost": (
            "------- SEARCH\nvalue = request.args.get('k2000', 2000)\n"
            "return respond(context, value * 5)\n=======\n"
            "value = request.args.get('k2000', 1)\nreturn respond(context, value * 5)\n"
            "+++++++ REPLACE"
        ),
        "fuzzy (stale line)": (
            "------- SEARCH\ndef handler_2000(request, ctx):\n"
            "    value = request.args.get('k2000', 2000)\n    return respond(context, value * 5)\n"
            "=======\ndef handler_2000(request, ctx):\n    value = request.args.get('k2000', 1)\n"
            "    return respond(context, value * 5)\n+++++++ REPLACE"
        ),
    }
    print(f"\nEngine time on a {len(original.splitlines())}-line file (median of 7 runs):")
    for label, diff in cases.items():
        runs = []
        for _ in range(7):
            start = time.perf_counter()
            apply_search_replace(original, diff)
            runs.append(time.perf_counter() - start)
        print(f"  {label:22} {statistics.median(runs) * 1000:7.1f} ms")


def main() -> None:
    verbose = "--verbose" in sys.argv
    per_category = PER_CATEGORY
    if "--per-category" in sys.argv:
        per_category = int(sys.argv[sys.argv.index("--per-category") + 1])
    cases = build(per_category, {"malformed": gen_malformed})
    print(check_baseline() + "\n")
    table(cases, verbose)
    peer_table(verbose)
    timing()
    run_encodings()


if __name__ == "__main__":
    main()
