"""The systems under test, each behind one adapter that normalises its
answers to {path, start_line, end_line, score}.

A system answers some of: `search(query, k)` (ranked hits), `graph(relation,
target)` (a set of definitions), `impact(target)` (a set of locations). Each
call is timed by the runner; a crash, hang (per-query timeout) or garbage
answer raises proc.Failure and is recorded for that query only.

`unavailable()` says, in one line, why a system cannot run here (not
installed, needs a model hub, ...); the runner then skips it and prints why."""

import json
import os
import re
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from . import proc, symbols
from .paths import CACHE, REPO
from .proc import Failure

QUERY_TIMEOUT = float(os.environ.get("BENCH_QUERY_TIMEOUT", "30"))
INDEX_TIMEOUT = float(os.environ.get("BENCH_INDEX_TIMEOUT", "3600"))
PEERS = CACHE / "peers"
# The docs set's scope: every file of a tree corpus, docs, config and hidden
# CI files included, where the code sets search one language's files.
TREE = "tree"
EXTS = {"python": [".py"], "typescript": [".ts"], "rust": [".rs"], TREE: []}
STOPWORDS = set("""a an the of to in on for and or is are be by with from that this it its as at how what where
which when who does do did can should would will into when why whether there their them then than not no
show find me all any get gets getting use used using code function method class""".split())


@dataclass
class IndexStats:
    cold_s: float | None = None
    warm_s: float | None = None
    size_mib: float | None = None
    peak_rss_mib: float | None = None
    note: str = ""


def hit(path, start, end, score):
    try:
        return {"path": str(path), "start_line": int(start), "end_line": int(end), "score": float(score)}
    except (TypeError, ValueError) as e:
        raise Failure(f"garbage hit {path!r} {start!r} {end!r}: {e}") from e


class System:
    name = "?"
    family = "?"  # which row group: the system before the colon in reports
    tasks = ()  # subset of {"search", "graph", "impact"}
    relations = ("callers", "callees", "subclasses")  # the graph questions it can answer
    languages = ("python", "typescript", "rust", TREE)

    def unavailable(self):
        return None

    def prepare(self, root: Path, language: str, work: Path) -> IndexStats | None:
        """Index root (a corpus or its docstring-stripped copy); None when there is nothing to index."""
        return None

    def close(self):
        pass


# ---------------------------------------------------------------- Kenning

class KenServer:
    """One `ken index` + `ken serve` per corpus variant, shared by the ken rows."""

    def __init__(self, ken, root, language, work, model=None, intents=False, embed=True):
        self.ken, self.root = ken, root
        self.index = work / ("-".join(["ken-index"] + ([model] if model else []) + (["intents"] if intents else [])))
        self.stats = IndexStats()
        shutil.rmtree(self.index, ignore_errors=True)
        cmd = [ken, "--index-dir", str(self.index), "index", str(root), "-q"] + ([] if model is None else ["--model", model])
        # Change impact reads the graph only: no vectors to wait for.
        cmd += [] if embed else ["--no-embed"]
        # MutaGReP's intents, by the language model KEN_LLM_* names (else the local one).
        cmd += ["--intents"] if intents else []
        self.stats.cold_s, self.stats.peak_rss_mib = proc.peak_rss_of(cmd, INDEX_TIMEOUT)
        self.stats.warm_s, _ = proc.peak_rss_of(cmd, INDEX_TIMEOUT)
        self.stats.size_mib = proc.dir_size(self.index) / 2**20
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.base = f"http://127.0.0.1:{port}"
        self.log = open(work / "ken-serve.log", "w")
        self.server = subprocess.Popen([ken, "--index-dir", str(self.index), "serve", "--addr", f"127.0.0.1:{port}"],
                                       stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.time() + 120
        while True:
            try:
                urllib.request.urlopen(self.base + "/ready", timeout=2).read()
                break
            except (urllib.error.URLError, ConnectionError):
                if self.server.poll() is not None or time.time() > deadline:
                    raise Failure(f"ken serve did not come up; see {work / 'ken-serve.log'}")
                time.sleep(0.2)

    def post(self, route, body):
        req = urllib.request.Request(self.base + route, data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json"})
        return self._send(req)

    def get(self, route, **params):
        return self._send(urllib.request.Request(self.base + route + "?" + urllib.parse.urlencode(params)))

    def _send(self, req):
        try:
            with urllib.request.urlopen(req, timeout=QUERY_TIMEOUT) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as e:
            raise Failure(f"HTTP {e.code}: {e.read()[:300].decode('utf-8', 'replace')}") from e
        except (urllib.error.URLError, TimeoutError, ConnectionError) as e:
            raise Failure(f"ken serve: {e}") from e

    def close(self):
        if self.log.closed:
            return
        if self.server.poll() is None:
            self.server.terminate()
            try:
                self.server.wait(10)
            except subprocess.TimeoutExpired:
                self.server.kill()
        self.log.close()


class Ken(System):
    """Kenning over its HTTP API (warm server, as agents and editors use it)."""
    family = "ken"
    tasks = ("search", "graph", "impact")

    def __init__(self, ken, mode="hybrid", model=None, intents=False):
        self.ken, self.mode, self.model, self.intents = ken, mode, model, intents
        self.name = " ".join(["ken"] + ([model] if model else []) + (["intents"] if intents else []) + ([mode] if mode != "hybrid" else []))
        if mode == "impact":  # CodePlan's classification and may-impact rules (`ken impact`)
            self.tasks = ("impact",)
        elif mode != "hybrid":
            self.tasks = ("search",)
        self.server = None

    def unavailable(self):
        return None if os.access(self.ken, os.X_OK) else f"{self.ken} is not built; run cargo build --release -p ken"

    def attach(self, server):
        self.server = server

    def search(self, query, k):
        if self.mode.startswith("pipeline"):
            body = {"query": query, "top_k": k}
            if self.mode == "pipeline seed003":  # seed 003's order: every member by its weighted factors
                body["config_overrides"] = {"order": "factors"}
            r = self.server.post("/api/v1/hybrid-search", body)
            syms = [s for c in r["results"] for s in c["symbols"]]
            syms.sort(key=lambda s: -s["score"])
            seen, out = set(), []
            for s in syms:
                key = (s["file_path"], s["range"]["start"]["line"])
                if key not in seen:
                    seen.add(key)
                    out.append(hit(s["file_path"], s["range"]["start"]["line"], s["range"]["end"]["line"], s["score"]))
            return out[:k]
        if self.mode in ("dsl", "keywords"):  # the server's language model rewrites the query
            r = self.server.post("/api/v1/search", {"query": query, "k": k, "query_expansion": self.mode})
        else:
            r = self.server.post("/api/v1/search", {"query": query, "k": k, "mode": self.mode})
        return [hit(h["path"], h["start_line"], h["end_line"], h["score"]) for h in r["hits"]]

    def graph(self, relation, target):
        """Definitions related to target ({path, line, name, qual}): callers, callees or subclasses."""
        r = self.server.get(f"/api/v1/graph/{relation}", symbol=f"{target['path']}:{target['line']}")
        return [{"path": h["symbol"]["path"], "start_line": h["symbol"]["start_line"],
                 "end_line": h["symbol"]["end_line"], "qual": h["symbol"]["qualified_name"]} for h in r["hits"]]

    def impact(self, target):
        """Locations that must change when target's signature changes: every
        call site and every override, from the graph's refs; or, as `ken
        impact`, from CodePlan's may-impact analysis of the edit itself."""
        if self.mode == "impact":
            return self._codeplan_impact(target)
        r = self.server.get("/api/v1/graph/refs", symbol=f"{target['path']}:{target['line']}")
        out = []
        for h in r["hits"]:
            site = h.get("site")
            if site:
                out.append({"path": site["path"], "start_line": site["line"], "end_line": site["line"]})
            elif h.get("relation") in ("OverriddenBy", "Overrides"):
                s = h["symbol"]
                out.append({"path": s["path"], "start_line": s["start_line"], "end_line": s["start_line"] + 2})
        return out


    def _codeplan_impact(self, target):
        """`POST /api/v1/impact` with the file before and after the benchmark's
        edit: the sites of the rules that reach each impacted block."""
        from .impact import apply_edit
        path = Path(self.server.root) / target["path"]
        original = path.read_bytes()
        language = "python" if target["path"].endswith(".py") else "rust" if target["path"].endswith(".rs") else "typescript"
        edited = apply_edit(original, target, language)
        if edited is None:
            raise Failure(f"the benchmark's edit does not apply to {target['path']}:{target['name_line']}")
        files = [{"path": target["path"], "before": original.decode("utf-8", "replace"),
                  "after": edited.decode("utf-8", "replace")}]
        r = self.server.post("/api/v1/impact", {"files": files})
        out = []
        for block in r["impacted"]:
            s = block["symbol"]
            for reason in block["reasons"]:
                if reason["relation"] in ("Overrides", "OverriddenBy"):
                    out.append({"path": s["path"], "start_line": s["start_line"], "end_line": s["start_line"] + 2})
                else:
                    out.extend({"path": site["path"], "start_line": site.get("start_line", site["line"]),
                                "end_line": site.get("end_line", site["line"])}
                               for site in reason["sites"])
        return out


class KenCli(System):
    """Kenning as a fresh process per query, the way the CLI peers run."""
    name = "ken cli"
    family = "ken"
    tasks = ("search",)

    def __init__(self, ken):
        self.ken = ken
        self.index = None

    def attach(self, server):
        # Qdrant Edge lets one process hold a shard: with `ken serve` up, each
        # CLI process would wait for the shard and answer from names alone.
        # The runner orders the HTTP rows first, so the server can go now.
        server.close()
        self.index = server.index

    def search(self, query, k):
        out = proc.run([self.ken, "--index-dir", str(self.index), "search", query, "--json", "-k", str(k)], QUERY_TIMEOUT)
        try:
            return [hit(h["path"], h["start_line"], h["end_line"], h["score"]) for h in json.loads(out)["hits"]]
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise Failure(f"garbage output: {e}") from e


# ---------------------------------------------------------------- ripgrep

class Ripgrep(System):
    """The lexical floor: every non-stopword of the query as a whole word,
    case-insensitive; lines ranked by how many distinct words they hold,
    then by how many the file holds."""
    name = family = "ripgrep"
    tasks = ("search", "graph", "impact")
    relations = ("callers", "subclasses")  # text has no notion of what a body calls

    def __init__(self):
        self.rg = shutil.which("rg")
        self.root = None

    def unavailable(self):
        return None if self.rg else "rg is not installed (apt-get install ripgrep)"

    def prepare(self, root, language, work):
        self.root, self.language = root, language
        return None

    def _rg(self, args):
        if self.language == TREE:
            # Every file, dotfiles too (.github/, .readthedocs.yaml): the
            # answer may be in any; only the harness's stamp is left out.
            scope = ["--hidden", "-g", "!.complete"]
        else:
            scope = ["-g", {"python": "*.py", "typescript": "*.ts", "rust": "*.rs"}[self.language]]
        try:
            out = proc.run([self.rg, "--json"] + scope + args + [str(self.root)], QUERY_TIMEOUT)
        except Failure as e:
            if str(e).startswith("exit 1:"):  # no match
                return []
            raise
        rows = []
        for line in out.splitlines():
            m = json.loads(line)
            if m["type"] == "match":
                rows.append((os.path.relpath(m["data"]["path"]["text"], self.root), m["data"]["line_number"],
                             m["data"]["lines"].get("text", "")))
        return rows

    def search(self, query, k):
        words = [w for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", query) if w.lower() not in STOPWORDS and len(w) > 2]
        if not words:
            return []
        args = ["-i", "-w"]
        for w in words:
            args += ["-e", w]
        rows = self._rg(args)
        lowered = [w.lower() for w in words]
        per_file = {}
        scored = []
        for path, line, text in rows:
            t = text.lower()
            distinct = sum(1 for w in lowered if re.search(rf"\b{re.escape(w)}\b", t))
            per_file[path] = per_file.get(path, 0) + distinct
            scored.append((distinct, path, line))
        scored.sort(key=lambda r: (-r[0], -per_file[r[1]], r[1], r[2]))
        return [hit(p, l, l, d) for d, p, l in scored[:k]]

    def graph(self, relation, target):
        """callers: definitions enclosing a `name(`; subclasses: classes
        naming the base in their header, transitively (no callees: see relations)."""
        name = target["name"]
        if relation == "callers":
            rows = self._rg(["-e", rf"\b{re.escape(name)}\s*\("])
            return _enclosing(self.root, self.language, rows, skip=target)
        if relation == "subclasses":
            found, frontier, out = set(), [name], []
            while frontier:
                base = frontier.pop()
                for path, line, text in self._rg(["-e", rf"^\s*class\s+\w+\s*\([^)]*\b{re.escape(base)}\b"]):
                    m = re.match(r"\s*class\s+(\w+)", text)
                    if m and m.group(1) not in found:
                        found.add(m.group(1))
                        frontier.append(m.group(1))
                        out.append({"path": path, "start_line": line, "end_line": line, "qual": m.group(1)})
            return out
        raise Failure(f"ripgrep cannot answer {relation}")

    def impact(self, target):
        # A constructor is used through its class's name.
        rows = self._rg(["-w", "-e", target.get("class") or target["name"]])
        return [{"path": p, "start_line": l, "end_line": l} for p, l, _ in rows
                if not (p == target["path"] and l == target["name_line"])]


def _enclosing(root, language, rows, skip=None):
    """The innermost definition around each (path, line), once each."""
    cache, out, seen = {}, [], set()
    for path, line, _ in rows:
        if path not in cache:
            cache[path] = symbols.extract_file(root, path, language)
        inner = None
        for s in cache[path]:
            if s.kind != "class" and s.start_line <= line <= s.end_line:
                if inner is None or s.start_line >= inner.start_line:
                    inner = s
        if inner is None or (skip and inner.path == skip["path"] and inner.name_line == skip["line"]):
            continue
        key = (inner.path, inner.start_line)
        if key not in seen:
            seen.add(key)
            out.append({"path": inner.path, "start_line": inner.start_line, "end_line": inner.end_line, "qual": inner.qual})
    return out


# ---------------------------------------------------------------- probe

class Probe(System):
    """probe (probe-code on crates.io): BM25 over tree-sitter code blocks, no index."""
    name = family = "probe"
    tasks = ("search",)

    def __init__(self):
        self.bin = PEERS / "bin" / "probe"

    def unavailable(self):
        return None if self.bin.exists() else "not installed; run bench/peers/install_probe.sh"

    def prepare(self, root, language, work):
        self.root, self.language = root, language
        return None

    def search(self, query, k):
        # No --language on a tree: probe then searches every file it can read.
        lang = [] if self.language == TREE else ["--language", self.language]
        out = proc.run([str(self.bin), "search", query, str(self.root), "--format", "json", "--max-results", str(k)]
                       + lang, QUERY_TIMEOUT)
        start, end = out.find("{"), out.rfind("}")
        if start < 0:
            raise Failure("garbage output: no JSON object")
        try:
            results = json.JSONDecoder().raw_decode(out[start:])[0]["results"]
            return [hit(os.path.relpath(r["file"], self.root), r["lines"][0], r["lines"][1], r["score"] or 0)
                    for r in results][:k]
        except (json.JSONDecodeError, KeyError, TypeError, IndexError) as e:
            raise Failure(f"garbage output: {e}") from e


# ---------------------------------------------------------------- naive RAG

class WorkerSystem(System):
    """A peer in its own Python environment behind `proc.Worker`: `prepare`
    starts the worker and indexes; searches are one request each."""
    worker = None

    def search(self, query, k):
        r = self.worker.call({"op": "search", "query": query, "k": k}, QUERY_TIMEOUT)
        return [hit(h["path"], h["start_line"], h["end_line"], h["score"]) for h in r["hits"]]

    def close(self):
        if self.worker:
            self.worker.close()
            self.worker = None


class NaiveRag(WorkerSystem):
    """Fixed 1000-character chunks, all-MiniLM-L6-v2 via sentence-transformers, cosine top-k."""
    name = family = "naive RAG"
    tasks = ("search",)

    def __init__(self):
        self.python = CACHE / "embed-venv" / "bin" / "python"
        self.model = Path(os.environ.get("KEN_CACHE_DIR", Path.home() / ".cache" / "ken")) / "models" / "minilm"

    def unavailable(self):
        if not self.python.exists():
            return "the sentence-transformers venv is missing; bench/eval.sh makes it"
        if not (self.model / "model.safetensors").exists():
            return f"no all-MiniLM-L6-v2 at {self.model}; run ken index once (it provisions the model)"
        return None

    def prepare(self, root, language, work):
        self.close()
        self.worker = proc.Worker([str(self.python), str(Path(__file__).parent / "rag_worker.py"), str(self.model)])
        r = self.worker.call({"op": "index", "root": str(root), "exts": EXTS[language]}, INDEX_TIMEOUT)
        return IndexStats(cold_s=r["seconds"], peak_rss_mib=r["rss_mib"], note=f"{r['chunks']} chunks, in memory")


class Semble(WorkerSystem):
    """semble 0.7.0 (MinishLab): Model2Vec static vectors and BM25 over
    tree-sitter chunks, fused by RRF, then its code-aware reranking (definition
    and file-name boosts, file coherence, path penalties, one file's repeats
    decayed). Its model comes from Hugging Face, so it runs with Kenning's
    static table in Model2Vec's layout: beside `ken static`, the same token
    vectors, and everything else each system's own."""
    name = family = "semble"
    tasks = ("search",)
    languages = ("python", "typescript", "rust")

    def __init__(self):
        self.python = PEERS / "semble-venv" / "bin" / "python"
        self.model = PEERS / "semble-model"

    def unavailable(self):
        if not self.python.exists() or not (self.model / "model.safetensors").exists():
            return "not installed; run bench/peers/install_semble.sh"
        return None

    def prepare(self, root, language, work):
        self.close()
        # Its cache of indexes (and usage statistics) stays in the work dir.
        env = dict(os.environ, SEMBLE_CACHE_LOCATION=str(work / "semble-cache"), HF_HUB_OFFLINE="1")
        shutil.rmtree(work / "semble-cache", ignore_errors=True)
        self.worker = proc.Worker([str(self.python), str(Path(__file__).parent / "semble_worker.py"), str(self.model)], env=env)
        r = self.worker.call({"op": "index", "root": str(root)}, INDEX_TIMEOUT)
        return IndexStats(cold_s=r["seconds"], peak_rss_mib=r["rss_mib"], note=f"{r['chunks']} chunks; Kenning's static table as its model")


# ---------------------------------------------------------------- jedi

class Jedi(System):
    """jedi: the graph reference (the graph set's oracle, so it is not scored
    there) and a live peer for change impact (get_references)."""
    name = family = "jedi"
    tasks = ("impact",)
    languages = ("python",)

    def __init__(self):
        self.python = CACHE / "graph-venv" / "bin" / "python"
        self.worker = None

    def unavailable(self):
        return None if self.python.exists() else "the jedi venv is missing; run bench/graph_eval.sh --oracle-only"

    def prepare(self, root, language, work):
        self.root = root
        if self.worker is None:
            self.worker = proc.Worker([str(self.python), str(Path(__file__).parent / "jedi_worker.py")])
        return None

    def impact(self, target):
        r = self.worker.call({"root": str(self.root), "path": target["path"], "line": target["name_line"],
                              "column": target["name_col"]}, QUERY_TIMEOUT * 4)
        return [{"path": p, "start_line": l, "end_line": l} for p, l in r["refs"]]

    def close(self):
        if self.worker:
            self.worker.close()
            self.worker = None


# ---------------------------------------------------------------- codexlens-search

class EmbedServer:
    """bench/harness/embed_server.py in the sentence-transformers venv, started once."""
    _instance = None

    @classmethod
    def url(cls):
        if cls._instance is None:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
            rag = NaiveRag()
            p = subprocess.Popen([str(rag.python), str(Path(__file__).parent / "embed_server.py"), str(rag.model),
                                  str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
            base = f"http://127.0.0.1:{port}/v1"
            deadline = time.time() + 180
            while True:
                try:
                    req = urllib.request.Request(base + "/embeddings", data=b'{"input": ["ok"]}')
                    urllib.request.urlopen(req, timeout=5).read()
                    break
                except (urllib.error.URLError, ConnectionError):
                    if p.poll() is not None or time.time() > deadline:
                        raise Failure(f"embedding endpoint did not start: {p.stderr.read()[-300:] if p.poll() is not None else 'timeout'}")
                    time.sleep(0.5)
            cls._instance = (p, base)
        return cls._instance[1]

    @classmethod
    def stop(cls):
        if cls._instance:
            cls._instance[0].kill()
            cls._instance = None


class Codexlens(System):
    """codexlens-search 0.8.1 (pip): vector + FTS + AST graph + ripgrep with
    RRF fusion and a reranker. Its models come from a hub, so it embeds
    through bench's OpenAI-compatible endpoint with the same MiniLM as
    Kenning, and its reranker is MiniLM cosine (no cross-encoder offline)."""
    name = family = "codexlens"
    tasks = ("search",)

    def __init__(self):
        self.exe = PEERS / "codexlens-venv" / "bin" / "codexlens-search"

    def unavailable(self):
        if not self.exe.exists():
            return "not installed; run bench/peers/install_codexlens.sh"
        return NaiveRag().unavailable()

    def _env(self):
        url = EmbedServer.url()
        env = dict(os.environ, HF_HUB_OFFLINE="1", CODEXLENS_EMBED_API_URL=url, CODEXLENS_EMBED_API_MODEL="all-MiniLM-L6-v2",
                   CODEXLENS_EMBED_DIM="384", CODEXLENS_EMBED_API_KEY="local", CODEXLENS_RERANKER_API_URL=url,
                   CODEXLENS_RERANKER_API_MODEL="all-MiniLM-L6-v2", CODEXLENS_RERANKER_API_KEY="local")
        return env

    def prepare(self, root, language, work):
        self.db = work / "codexlens-db"
        shutil.rmtree(self.db, ignore_errors=True)
        env = self._env()
        glob = "**/*" + (EXTS[language][0] if EXTS[language] else "")
        proc.run([str(self.exe), "--db-path", str(self.db), "init"], 120, env=env)
        sync = [str(self.exe), "--db-path", str(self.db), "sync", "--root", str(root), "--glob", glob,
                "-e", "tests", "-e", "test", "-e", "node_modules"]
        cold, rss = proc.peak_rss_of(sync, INDEX_TIMEOUT, env=env)
        warm, _ = proc.peak_rss_of(sync, INDEX_TIMEOUT, env=env)
        self.root = root
        return IndexStats(cold, warm, proc.dir_size(self.db) / 2**20, rss,
                          note="embeddings from the bench MiniLM endpoint, whose own RSS is not counted")

    def search(self, query, k):
        out = proc.run([str(self.exe), "--db-path", str(self.db), "search", "-q", query, "-k", str(k)], QUERY_TIMEOUT,
                       env=self._env())
        try:
            rows = json.loads(out)
            if isinstance(rows, dict):
                raise Failure(f"error: {rows.get('error', rows)}")
            return [hit(r["path"], r["line"], r["end_line"], r["score"]) for r in rows][:k]
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise Failure(f"garbage output: {e}") from e


# ---------------------------------------------------------------- ck

class Ck(System):
    """ck-search 0.8.1 in its BM25 mode (`--lex`, tantivy over tree-sitter
    chunks). Its semantic and hybrid modes fetch bge-small from Hugging Face
    on first use, which cannot be reached here. ck writes its index (.ck/)
    into the tree it searches, so it runs on a copy."""
    name = family = "ck"
    tasks = ("search",)

    def __init__(self):
        self.bin = PEERS / "bin" / "ck"
        self.ort = PEERS / "onnxruntime-1.23.2"

    def unavailable(self):
        return None if self.bin.exists() else "not installed; run bench/peers/install_ck.sh"

    def _env(self):
        return dict(os.environ, LD_LIBRARY_PATH=str(self.ort), HF_HUB_OFFLINE="1")

    def prepare(self, root, language, work):
        self.tree = work / "ck-tree"
        shutil.rmtree(self.tree, ignore_errors=True)
        shutil.copytree(root, self.tree)
        # `ck --index` would also embed (and fetch a model); `--lex` builds
        # only the BM25 index, on its first query.
        # A word every corpus's code holds: a query without a match exits 1.
        cmd = [str(self.bin), "--lex", "return", ".", "--topk", "1", "--jsonl", "--no-snippet"]
        cold, rss = proc.peak_rss_of(cmd, INDEX_TIMEOUT, cwd=self.tree, env=self._env())
        warm, _ = proc.peak_rss_of(cmd, INDEX_TIMEOUT, cwd=self.tree, env=self._env())
        return IndexStats(cold, warm, proc.dir_size(self.tree / ".ck") / 2**20, rss,
                          note="--lex (BM25); timed as its first and second query")

    def search(self, query, k):
        try:
            out = proc.run([str(self.bin), "--lex", query, ".", "--topk", str(k), "--jsonl", "--no-snippet"],
                           QUERY_TIMEOUT, cwd=self.tree, env=self._env())
        except Failure as e:
            if str(e) == "exit 1: No matches found":  # grep's convention: an answer, not a failure
                return []
            raise
        hits = []
        for line in out.splitlines():
            if not line.startswith("{"):
                continue
            try:
                r = json.loads(line)
                hits.append(hit(os.path.relpath(r["path"], self.tree), r["span"]["line_start"], r["span"]["line_end"],
                                r.get("score", 0)))
            except (json.JSONDecodeError, KeyError, TypeError) as e:
                raise Failure(f"garbage output: {e}") from e
        return hits[:k]
