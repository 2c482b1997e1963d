"""Trains the static model on code: the distilled token table (model2vec's
method, `crates/ken-embed/src/distilled.rs`) fine-tuned so that a docstring's
first paragraph lands near its code (symmetric InfoNCE, in-batch negatives,
pulled towards the distilled table so rare tokens keep what they had).

    python bench/static/train.py --pairs bench/.cache/static/pairs.jsonl \
        --init DIR_OF_THE_DISTILLED_TABLE --out DIR [--steps N] [--eval]

`--eval` reports static-only MRR@10 over the symbols of the harness's code
corpora (their questions, tuning split and held-out third apart) before and
after: a quick proxy; bench/eval.sh and harness.tune give the real figures."""

import argparse
import glob
import json
import random
import re
import shutil
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
from common import embed_text, symbols  # noqa: E402

MAX_TOKENS = 256  # distilled.rs
QUERY_TOKENS = 64
CODE_WORD_FACTOR = 0.1


def code_words():
    """distilled.rs's CODE_WORDS, read from the source so the two never drift."""
    src = (REPO / "crates/ken-embed/src/distilled.rs").read_text()
    block = src[src.index("const CODE_WORDS"):]
    block = block[:block.index("];")]
    return re.findall(r'"([^"]+)"', block)


def split_identifiers(text):
    """distilled.rs's `split_identifiers`."""
    out = []
    for i, c in enumerate(text):
        if c == "_":
            out.append(" ")
            continue
        if c.isupper() and i > 0:
            prev = text[i - 1]
            next_lower = i + 1 < len(text) and text[i + 1].islower()
            if prev.islower() or prev.isdigit() or (prev.isupper() and next_lower):
                out.append(" ")
        out.append(c)
    return "".join(out)


class Encoder:
    def __init__(self, tokenizer_json):
        from tokenizers import Tokenizer
        self.tok = Tokenizer.from_file(str(tokenizer_json))
        self.tok.no_truncation()
        self.tok.no_padding()

    def ids(self, texts, limit):
        encs = self.tok.encode_batch([split_identifiers(t) for t in texts], add_special_tokens=False)
        return [np.array(e.ids[:limit], dtype=np.int32) for e in encs]


def load_table(init):
    meta = json.loads((Path(init) / "static.json").read_text())
    table = np.fromfile(Path(init) / "vectors.f32", dtype="<f4").reshape(meta["vocab"], meta["dim"])
    return table, meta


def pad(id_lists, width):
    out = np.zeros((len(id_lists), width), dtype=np.int32)
    mask = np.zeros((len(id_lists), width), dtype=np.float32)
    for i, ids in enumerate(id_lists):
        out[i, :len(ids)] = ids
        mask[i, :len(ids)] = 1
    return out, mask


def embed_np(table, id_lists):
    out = np.zeros((len(id_lists), table.shape[1]), dtype=np.float32)
    for i, ids in enumerate(id_lists):
        if len(ids):
            out[i] = table[ids].sum(0)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.maximum(norms, 1e-12)


# ------------------------------------------------------------------ eval

def eval_sets(encoder):
    sets = []
    for qfile in sorted((REPO / "bench/queries/questions").glob("*.json")):
        corpus = qfile.stem
        dbs = glob.glob(str(REPO / f"bench/.cache/static/eval/{corpus}-*/index.sqlite"))
        if not dbs:
            continue
        syms = symbols(dbs[0])
        norm = lambda k: k.replace("::", ".")
        keys = [norm(s["path"] + "::" + s["local"]) for s in syms]
        docs = encoder.ids([embed_text(s) for s in syms], MAX_TOKENS)
        qs = json.loads(qfile.read_text())["questions"]
        sets.append(dict(corpus=corpus, keys=keys, docs=docs, questions=qs,
                         qids=encoder.ids([q["query"] for q in qs], MAX_TOKENS)))
    return sets


def evaluate(table, sets):
    """MRR@10 by split: (tuning, held out, all)."""
    rr = {"tune": [], "heldout": []}
    per = {}
    for s in sets:
        d = embed_np(table, s["docs"])
        q = embed_np(table, s["qids"])
        scores = q @ d.T
        mine = []
        for qi, question in enumerate(s["questions"]):
            gold = {g.replace("::", ".") for g in question["gold"]}
            top = np.argsort(-scores[qi])[:10]
            r = next((1 / (rank + 1) for rank, i in enumerate(top) if s["keys"][i] in gold), 0.0)
            rr["heldout" if question.get("heldout") else "tune"].append(r)
            mine.append(r)
        per[s["corpus"]] = float(np.mean(mine))
    m = lambda xs: float(np.mean(xs)) if xs else 0.0
    return m(rr["tune"]), m(rr["heldout"]), m(rr["tune"] + rr["heldout"]), per


# ------------------------------------------------------------------ training

def batches(pairs, size, group, rng):
    """One epoch of batches. With `group`, a batch is made of runs of `group`
    pairs from one package (its other symbols are the hard negatives: the
    same vocabulary, the same domain); without, pairs are drawn at random."""
    if not group:
        order = list(range(len(pairs)))
        rng.shuffle(order)
        return [order[b:b + size] for b in range(0, len(order) - size + 1, size)]
    by_pkg = {}
    for i, p in enumerate(pairs):
        by_pkg.setdefault(p["pkg"], []).append(i)
    runs = []
    for members in by_pkg.values():
        rng.shuffle(members)
        runs += [members[b:b + group] for b in range(0, len(members) - group + 1, group)]
    rng.shuffle(runs)
    per = size // group
    return [sum(runs[b:b + per], []) for b in range(0, len(runs) - per + 1, per)]


def without_name_words(query, doc):
    """The query without the words of the symbol's own name (its last dotted
    part, split like an identifier): the harness's questions name no
    identifier, and a docstring that repeats the name teaches the table only
    to match it."""
    header = doc.split("\n", 1)[0].split()
    name = header[1].rsplit(".", 1)[-1] if len(header) > 1 else ""
    parts = {w.lower() for w in split_identifiers(name).split() if len(w) > 2}
    kept = [w for w in query.split() if re.sub(r"\W", "", w).lower() not in parts]
    return " ".join(kept) if kept else query


def train(args, table0, encoder, pairs, sets):
    import jax
    import jax.numpy as jnp

    vocab, dim = table0.shape
    words = [encoder.tok.token_to_id(w) for w in code_words()]
    factor = np.ones(vocab, dtype=np.float32)
    factor[[w for w in words if w is not None]] = CODE_WORD_FACTOR
    base = table0 * factor[:, None]
    print("encoding pairs…", flush=True)
    queries = [p["q"] for p in pairs]
    if args.mask_names:
        masker = random.Random(2)
        queries = [without_name_words(q, p["d"]) if masker.random() < args.mask_names else q for q, p in zip(queries, pairs)]
    q_ids = encoder.ids(queries, QUERY_TOKENS)
    d_ids = encoder.ids([p["d"] for p in pairs], MAX_TOKENS)

    params = {"table": jnp.asarray(base), "log_w": jnp.zeros(vocab, dtype=jnp.float32)}
    anchor = jnp.asarray(base)
    scale = float(np.sqrt((base ** 2).sum(1)).mean())

    def embed(p, ids, mask):
        rows = p["table"][ids] * (jnp.exp(p["log_w"])[ids] * mask)[..., None]
        v = rows.sum(1)
        return v / jnp.maximum(jnp.linalg.norm(v, axis=1, keepdims=True), 1e-9)

    def loss_fn(p, qi, qm, di, dm):
        q = embed(p, qi, qm)
        d = embed(p, di, dm)
        logits = q @ d.T / args.tau
        labels = jnp.arange(q.shape[0])
        ce = lambda l: -jnp.mean(jax.nn.log_softmax(l, axis=1)[labels, labels])
        drift = jnp.sum((p["table"] - anchor) ** 2) / (scale ** 2) + jnp.sum(p["log_w"] ** 2)
        return (ce(logits) + ce(logits.T)) / 2 + args.reg * drift

    def mask_grads(g):
        if args.train == "weights":
            g = {**g, "table": jnp.zeros_like(g["table"])}
        if args.train == "table":
            g = {**g, "log_w": jnp.zeros_like(g["log_w"])}
        return g

    lrs = {"table": args.lr * scale / np.sqrt(dim), "log_w": args.lr * 10}

    @jax.jit
    def step(p, m, v, t, qi, qm, di, dm):
        loss, g = jax.value_and_grad(loss_fn)(p, qi, qm, di, dm)
        g = mask_grads(g)
        m = jax.tree_util.tree_map(lambda a, b: 0.9 * a + 0.1 * b, m, g)
        v = jax.tree_util.tree_map(lambda a, b: 0.999 * a + 0.001 * b * b, v, g)
        p = {k: p[k] - lrs[k] * (m[k] / (1 - 0.9 ** t)) / (jnp.sqrt(v[k] / (1 - 0.999 ** t)) + 1e-8) for k in p}
        return p, m, v, loss

    m = jax.tree_util.tree_map(jnp.zeros_like, params)
    v = jax.tree_util.tree_map(jnp.zeros_like, params)
    rng = random.Random(0)
    started = time.time()
    t = 0
    while t < args.steps:
        for idx in batches(pairs, args.batch, args.group, rng):
            t += 1
            qi, qm = pad([q_ids[i] for i in idx], QUERY_TOKENS)
            di, dm = pad([d_ids[i] for i in idx], MAX_TOKENS)
            params, m, v, loss = step(params, m, v, t, qi, qm, di, dm)
            if t % 100 == 0 or t == 1:
                print(f"step {t} loss {float(loss):.4f} ({time.time() - started:.0f} s)", flush=True)
            if sets and t % args.eval_every == 0:
                tuned = np.asarray(params["table"]) * np.exp(np.asarray(params["log_w"]))[:, None]
                print("  eval tune/heldout/all", "%.3f %.3f %.3f" % evaluate(tuned, sets)[:3], flush=True)
            if t >= args.steps:
                break
    return np.asarray(params["table"]) * np.exp(np.asarray(params["log_w"]))[:, None], factor


def export(table, tokenizer_json, out, metadata):
    """The files ken ships (`crates/ken-embed/models/`): the table as int8 rows
    with a scale each, in a safetensors file, and the tokenizer, both zstd."""
    import zstandard
    scales = np.maximum(np.abs(table).max(1), 1e-12) / 127.0
    quantized = np.clip(np.rint(table / scales[:, None]), -127, 127).astype(np.int8)
    vocab, dim = table.shape
    blobs = [("embeddings", "I8", [vocab, dim], quantized.tobytes()), ("scales", "F32", [vocab], scales.astype("<f4").tobytes())]
    header, offset = {"__metadata__": metadata}, 0
    for name, dtype, shape, data in blobs:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
    head = json.dumps(header).encode()
    head += b" " * (-len(head) % 8)
    body = len(head).to_bytes(8, "little") + head + b"".join(b for *_, b in blobs)
    out.mkdir(parents=True, exist_ok=True)
    zstd = zstandard.ZstdCompressor(level=19)
    (out / "code-static.safetensors.zst").write_bytes(zstd.compress(body))
    (out / "tokenizer.json.zst").write_bytes(zstd.compress(Path(tokenizer_json).read_bytes()))
    restored = quantized.astype(np.float32) * scales[:, None]
    cos = (restored * table).sum(1) / np.maximum(np.linalg.norm(restored, axis=1) * np.linalg.norm(table, axis=1), 1e-12)
    print(f"exported to {out}: int8 rows, worst row cosine to f32 {cos.min():.5f}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", required=True)
    ap.add_argument("--init", required=True, help="the distilled table's directory (static.json, vectors.f32, tokenizer.json)")
    ap.add_argument("--out", help="where to write the files ken ships (crates/ken-embed/models)")
    ap.add_argument("--model-id", default="ken-static-code-v1")
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--tau", type=float, default=0.05)
    ap.add_argument("--reg", type=float, default=1e-4)
    ap.add_argument("--train", choices=["table", "weights", "both"], default="both")
    ap.add_argument("--eval", action="store_true")
    ap.add_argument("--eval-every", type=int, default=500)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--group", type=int, default=0, help="pairs per package run in a batch (0: random batches)")
    ap.add_argument("--mask-names", type=float, default=0.0, help="share of queries whose name words are dropped")
    args = ap.parse_args()

    table0, meta = load_table(args.init)
    encoder = Encoder(Path(args.init) / "tokenizer.json")
    pairs = [json.loads(l) for l in open(args.pairs)]
    random.Random(1).shuffle(pairs)
    if args.limit:
        pairs = pairs[:args.limit]
    print(f"{len(pairs)} pairs from {len({p['pkg'] for p in pairs})} packages", flush=True)
    sets = eval_sets(encoder) if args.eval else []
    if sets:
        words = [encoder.tok.token_to_id(w) for w in code_words()]
        loaded = table0.copy()
        loaded[[w for w in words if w is not None]] *= CODE_WORD_FACTOR
        before = evaluate(loaded, sets)
        print("distilled: tune/heldout/all %.3f %.3f %.3f" % before[:3], before[3], flush=True)
    table, _ = train(args, table0, encoder, pairs, sets)
    if sets:
        after = evaluate(table, sets)
        print("trained: tune/heldout/all %.3f %.3f %.3f" % after[:3], after[3], flush=True)
    if args.out:
        export(table, Path(args.init) / "tokenizer.json", Path(args.out), {
            "model_id": args.model_id, "init": meta["model_id"], "pairs": str(len(pairs)),
            "packages": str(len({p['pkg'] for p in pairs})), "steps": str(args.steps), "lr": str(args.lr),
            "tau": str(args.tau), "reg": str(args.reg), "train": args.train,
            "group": str(args.group), "mask_names": str(args.mask_names)})

if __name__ == "__main__":
    main()
