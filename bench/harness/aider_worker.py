"""aider's repository map as a peer (context packs, issue 18), run in the
aider venv. Reads one JSON request on stdin: {root, files, queries: [{id,
query}], budgets, tiktoken}; prints {id: {budget: map text}}.

Each query is given to aider as an agent's chat would give it: its words
as mentioned identifiers and the file names it mentions, no files in the
chat. Tokens are counted with o200k_base, read from the local file
tiktoken-rs ships (the hub that serves tiktoken's files is unreachable)."""

import json
import re
import sys

import tiktoken
import base64


def ranks(path):
    out = {}
    for line in open(path, "rb").read().splitlines():
        if line:
            token, rank = line.split()
            out[base64.b64decode(token)] = int(rank)
    return out


def o200k(path):
    pat = "|".join([
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""", r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""", r"""\s*[\r\n]+""", r"""\s+(?!\S)""", r"""\s+""",
    ])
    return tiktoken.Encoding(name="o200k_base", pat_str=pat, mergeable_ranks=ranks(path),
                             special_tokens={"<|endoftext|>": 199999, "<|endofprompt|>": 200018})


class Model:
    """What RepoMap asks of aider's main model: a token count."""

    def __init__(self, enc):
        self.enc = enc

    def token_count(self, text):
        return len(self.enc.encode(text, disallowed_special=()))


def main():
    req = json.load(sys.stdin)
    from aider.io import InputOutput
    from aider.repomap import RepoMap
    enc = o200k(req["tiktoken"])
    io = InputOutput(yes=True, pretty=False, fancy_input=False)
    files = [f"{req['root']}/{f}" for f in req["files"]]
    out = {}
    for budget in req["budgets"]:
        repo_map = RepoMap(map_tokens=budget, root=req["root"], main_model=Model(enc), io=io,
                           max_context_window=budget * 4, refresh="always")
        for q in req["queries"]:
            words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", q["query"]))
            names = {f for f in req["files"] if f.rsplit("/", 1)[-1].split(".")[0] in words}
            text = repo_map.get_ranked_tags_map([], files, budget, mentioned_fnames=names, mentioned_idents=words) or ""
            out.setdefault(q["id"], {})[str(budget)] = text
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
