"""`pycline history`: past tasks, newest first."""

from __future__ import annotations

import argparse
import datetime as dt
import json

from pycline.storage.paths import pycline_home
from pycline.storage.task_store import TaskStore


def show_history(ns: argparse.Namespace) -> int:
    records = TaskStore(pycline_home()).index.list(search=ns.search, limit=ns.limit)
    if ns.json:
        print(json.dumps([r.to_json() for r in records], ensure_ascii=False, indent=1))
        return 0
    if not records:
        print("No tasks yet.")
        return 0
    for r in records:
        when = dt.datetime.fromtimestamp(r.ts).strftime("%Y-%m-%d %H:%M")
        text = " ".join(r.task.split())
        if len(text) > 60:
            text = text[:59] + "…"
        print(
            f"{r.id}  {when}  {r.status:<9}  {r.tokens_in:>7} in {r.tokens_out:>6} out"
            f"  ${r.total_cost:.4f}  {text}"
        )
    return 0
