"""Plan and execute (CodePlan's §4 experiments, issue 17): a seed edit that
forces derived edits elsewhere, carried out by `ken plan --execute` and
checked by a type checker.

Tasks, generated mechanically on pinned corpora:
  add-param   a required parameter added to a function or method (the
              impact set's edits: the checker reports every call left short);
  rename      a function or method renamed at its definition (every call,
              import and override left behind breaks).

Each task runs three ways in the same run, as in CodePlan:
  seed only   the seed edit, checked once (`--strategy repair --rounds 0`);
  repair      an oracle-guided repair loop without a plan: the checker's new
              errors are the only obligations (`--strategy repair`);
  plan        Kenning's plan: may-impact obligations first, then the
              checker's rounds (`--strategy plan`).
With the structural editor by default; `repair llm` and `plan llm` use the
language model (`--editor llm`: the local SmolLM2, or KEN_LLM_BASE_URL).
A task passes when the checker reports no error the repository did not have
before the seed edit. Reported: the share passed, oracle rounds used, block
edits made, and the wall time per task."""

import json
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from . import corpora, impact, symbols
from .paths import CACHE

STRATEGIES = {"seed only": ("repair", 0, "structural"), "repair": ("repair", 3, "structural"), "plan": ("plan", 3, "structural"),
              "repair llm": ("repair", 3, "llm"), "plan llm": ("plan", 3, "llm")}
DEFAULT_SYSTEMS = ["seed only", "repair", "plan"]
RENAMED = "_ken_renamed"


def oracle_command(language):
    if language == "rust":
        return "cargo"
    if language == "python":
        venv_python = CACHE / "graph-venv" / "bin" / "python"
        extra = f" --pythonpath {venv_python}" if venv_python.exists() else ""
        return f"pyright --outputjson{extra}"
    return "tsc --noEmit --pretty false -p tsconfig.bench.json"


def tasks(name, n):
    """add-param tasks from the impact set, and rename tasks on the same targets."""
    corpus = corpora.CORPORA[name]
    root = corpora.fetch(name)
    syms = symbols.extract(root, corpus.language)
    rows = impact.impact_set(name, syms, 12) or []
    out = []
    for row in rows[:n]:
        t = row["target"]
        s = next((s for s in syms if s.path == t["path"] and s.name_line == t["name_line"] and s.name == t["name"]), None)
        if s is None:
            continue
        out.append({"id": f"{name}/add/{t['qual']}", "kind": "add-param", "path": s.path, "edit": ("add", s)})
        if not s.name.startswith("__"):
            out.append({"id": f"{name}/rename/{t['qual']}", "kind": "rename", "path": s.path, "edit": ("rename", s)})
    return root, corpus.language, out


def seed_edit(work, task, language):
    kind, s = task["edit"]
    path = work / s.path
    data = path.read_bytes()
    if kind == "add":
        return impact._add_parameter(data, s, language)
    text = data.decode("utf-8")
    lines = text.split("\n")
    offset = sum(len(l) + 1 for l in lines[:s.name_line - 1]) + s.name_col
    if text[offset:offset + len(s.name)] != s.name:
        return None
    return (text[:offset] + s.name + RENAMED + text[offset + len(s.name):]).encode()


def run(ken, names, n, systems, log=print):
    results = {}
    for name in names:
        root, language, todo = tasks(name, n)
        work = Path(tempfile.mkdtemp(prefix=f"ken-execute-{name}-"))
        try:
            shutil.copytree(root, work, dirs_exist_ok=True)
            if language == "typescript":
                impact._write_tsconfig(work)
            (work / ".gitignore").write_text(".kenning/\ntarget/\n")
            git = lambda *a: subprocess.run(["git", "-C", str(work), *a], check=True, capture_output=True)
            git("init", "-q")
            git("add", "-A")
            git("-c", "user.email=bench@kenning", "-c", "user.name=bench", "commit", "-qm", "corpus")
            subprocess.run([ken, "index", "--no-embed", "--quiet", str(work)], check=True, capture_output=True)
            for task in todo:
                edited = seed_edit(work, task, language)
                if edited is None:
                    continue
                path = work / task["path"]
                original = path.read_bytes()
                path.write_bytes(edited)
                try:
                    for system in systems:
                        strategy, rounds, editor = STRATEGIES[system]
                        instruction = (f"add the required parameter {impact.NEW_PARAM} to {task['edit'][1].name}"
                                       if task["kind"] == "add-param" else
                                       f"rename {task['edit'][1].name} to {task['edit'][1].name}{RENAMED}")
                        cmd = [ken, "plan", instruction, "--seed-diff", "--execute",
                               "--oracle", oracle_command(language), "--strategy", strategy, "--editor", editor,
                               "--rounds", str(rounds), "--format", "json"]
                        started = time.monotonic()
                        p = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
                        seconds = time.monotonic() - started
                        if p.returncode != 0:
                            row = {"passed": False, "error": p.stderr.strip()[-300:], "seconds": seconds}
                        else:
                            r = json.loads(p.stdout)
                            row = {"passed": bool(r["passed"]), "rounds": max(0, len(r["rounds"]) - 1),
                                   "edits": len(r["edits"]), "errors_left": r["rounds"][-1]["errors"] if r["rounds"] else None,
                                   "errors_seed": r["rounds"][0]["errors"] if r["rounds"] else None,
                                   "seconds": seconds}
                        results.setdefault(system, {})[task["id"]] = {**row, "kind": task["kind"], "corpus": name}
                        log(f"{system:9s} {task['id']:60s} passed={row['passed']} edits={row.get('edits')} "
                            f"rounds={row.get('rounds')} left={row.get('errors_left')} {seconds:.1f}s")
                finally:
                    path.write_bytes(original)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return results


def table(results):
    """Per kind of task and system. A task whose seed edit alone passes the
    checker forces nothing (a rename nobody calls by name) and is left out."""
    trivial = {t for t, r in results.get("seed only", {}).items() if r["passed"]}
    results = {s: {t: r for t, r in rows.items() if t not in trivial} for s, rows in results.items()}
    systems = list(results)
    kinds = sorted({r["kind"] for s in systems for r in results[s].values()})
    lines = ["| system | tasks | passed | share | oracle rounds (mean) | edits (mean) | s/task (median) |",
             "|---|---|---|---|---|---|---|"]
    for kind in kinds + ["all"]:
        for s in systems:
            rows = [r for r in results[s].values() if kind == "all" or r["kind"] == kind]
            if not rows:
                continue
            passed = sum(r["passed"] for r in rows)
            mean = lambda k: sum(r.get(k) or 0 for r in rows) / len(rows)
            secs = sorted(r["seconds"] for r in rows)[len(rows) // 2]
            lines.append(f"| {s} ({kind}) | {len(rows)} | {passed} | {passed / len(rows):.2f} | {mean('rounds'):.2f} | "
                         f"{mean('edits'):.1f} | {secs:.1f} |")
    return "\n".join(lines)
