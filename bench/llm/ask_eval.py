"""`ken ask` on a harness question set: does the answer cite a gold
definition, and are its citations sound?

  python3 bench/llm/ask_eval.py KEN CORPUS_DIR QUESTIONS_JSON [N]

CORPUS_DIR must be indexed (`ken index`). Per question: the model's answer
with `--json`; gold definitions ("path::Qualified.name") are found with
`ken symbols`. Reports, over the questions:
- cites gold: an answer with a kept citation overlapping a gold definition;
- context has gold: the retrieved context held one (what the model could cite);
- citation precision: kept / all the model wrote (kept ones exist and were shown);
- dropped share: dropped / all; answers without any citation.
The language model is ken's configured one (KEN_LLM_* for an endpoint)."""
import json, subprocess, sys

ken, corpus, questions_file = sys.argv[1], sys.argv[2], sys.argv[3]
limit = int(sys.argv[4]) if len(sys.argv) > 4 else None
questions = json.load(open(questions_file))["questions"][:limit]

def run(*args):
    r = subprocess.run([ken, *args], cwd=corpus, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"ken {' '.join(args[:2])}: {r.stderr.strip()[-300:]}")
    return json.loads(r.stdout)

def gold_ranges(ref):
    path, qual = ref.split("::")
    rows = run("symbols", qual.split(".")[-1], "--json", "-k", "0")
    return [(s["path"], s["start_line"], s["end_line"]) for s in rows
            if s["path"].endswith(path) and s["qualified_name"].endswith(qual)]

def overlaps(span, ranges):
    return any(span["path"] == p and span["start_line"] <= e and span["end_line"] >= s for p, s, e in ranges)

n = cites = context = no_citation = kept = dropped = 0
model = None
for q in questions:
    gold = [r for ref in q["gold"] for r in gold_ranges(ref)]
    answer = run("ask", "--json", "--max-tokens", "200", q["query"])
    model = answer["model"]
    n += 1
    cites += any(overlaps(c, gold) for c in answer["citations"])
    context += any(overlaps(c, gold) for c in answer["context"])
    kept += len(answer["citations"]); dropped += len(answer["dropped_citations"])
    no_citation += not answer["citations"] and not answer["dropped_citations"]
    print(f"{n:>3} cites gold {int(any(overlaps(c, gold) for c in answer['citations']))} "
          f"context gold {int(any(overlaps(c, gold) for c in answer['context']))} "
          f"kept {len(answer['citations'])} dropped {len(answer['dropped_citations'])}  {q['query'][:70]}", flush=True)
written = kept + dropped
print(f"model {model}: {n} questions; cites gold {cites / n:.3f}; context has gold {context / n:.3f}; "
      f"citation precision {kept / written if written else float('nan'):.3f} ({kept}/{written}); "
      f"dropped share {dropped / written if written else float('nan'):.3f}; no citation {no_citation / n:.3f}")
