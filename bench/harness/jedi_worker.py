"""jedi as a live peer (references, for change impact), in the graph venv.
One JSON object per line: {"root": DIR, "path": REL, "line": L, "column": C}
-> {"refs": [[rel_path, line], ...]} (definitions excluded)."""
import json
import os
import sys

import jedi

projects = {}
for line in sys.stdin:
    req = json.loads(line)
    try:
        root = req["root"]
        project = projects.setdefault(root, jedi.Project(root, added_sys_path=[root]))
        path = os.path.join(root, req["path"])
        script = jedi.Script(open(path, encoding="utf-8").read(), path=path, project=project)
        out = []
        for r in script.get_references(req["line"], req["column"], scope="project"):
            if r.module_path is None or r.is_definition():
                continue
            rel = os.path.relpath(str(r.module_path), root)
            if not rel.startswith(".."):
                out.append([rel, r.line])
        reply = {"refs": out}
    except Exception as e:
        reply = {"error": f"{type(e).__name__}: {e}"}
    print(json.dumps(reply), flush=True)
