//! `ken search`: arguments, the first search of an unindexed repository, the
//! pipeline's flags, and the text renderings of hits and clusters.

use crate::model::ModelArgs;
use crate::output::{Context, Output, Template};
use anyhow::{Context as _, Result, bail};
use clap::Args;
use ken_engine::api::{HybridSearchRequest, SearchRequest};
use ken_engine::{Engine, EngineOptions};
use ken_pipeline::{Expansion, MemberOrder, Overrides, PipelineResponse, RankingWeights, Source};
use ken_search::{Hit, MAX_QUERY_CHARS, Mode, SearchResponse};
use ken_store::Store;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

/// How long a search waits for a writer to let go of the vector index
/// (`KEN_LOCK_WAIT_SECS`, default 10).
pub fn reader_wait() -> Duration {
    let secs = std::env::var("KEN_LOCK_WAIT_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(10.0f64);
    Duration::from_secs_f64(secs.clamp(0.0, 3600.0))
}

#[derive(Args)]
pub struct SearchArgs {
    /// What to look for: a question, a description, or a name.
    pub query: Vec<String>,
    /// Number of results (clusters with --pipeline).
    #[arg(short = 'k', long)]
    pub k: Option<usize>,
    /// Only this language; repeatable.
    #[arg(long)]
    pub lang: Vec<String>,
    /// Only files matching this glob (`src/**/*.py`, `tests/*`).
    #[arg(long, value_name = "GLOB")]
    pub path: Option<String>,
    /// Only these kinds (function, class, method, …); repeatable.
    #[arg(long)]
    pub kind: Vec<String>,
    /// hybrid (dense + BM25 + exact names), semantic, lexical, exact, or
    /// intents (symbols whose intents match; `ken index --intents` writes them).
    #[arg(long, default_value = "hybrid")]
    pub mode: String,
    /// Reciprocal Rank Fusion constant (default: `search.ranking.rrf_k` in ken.toml, else 60).
    #[arg(long, value_name = "K")]
    pub rrf_k: Option<f32>,
    /// `dsl`: the language model rewrites the query (English, the original
    /// wording, a hypothetical answer in code); each is searched and fused.
    /// `keywords`: the model proposes the words the code likely holds, and
    /// BM25 searches them beside the query.
    #[arg(long, value_name = "HOW", value_parser = ["none", "dsl", "keywords"])]
    pub expand: Option<String>,
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// One line per hit from a template: `{path}:{line}: {qualified_name}`,
    /// or `vimgrep`. Fields: rank, path, line, col, end_line, kind, name,
    /// qualified_name, language, score, header.
    #[arg(long, value_name = "TEMPLATE", conflicts_with = "json")]
    pub format: Option<String>,
    /// Search a team hub (`ken serve --hub`) instead of this index, with
    /// the token in KEN_HUB_TOKEN: every repository pushed to it, or those
    /// named by --repo.
    #[arg(long, env = "KEN_HUB_URL", value_name = "URL", conflicts_with_all = ["format", "pipeline", "expand"])]
    pub hub: Option<String>,
    /// With --hub: only this repository; repeatable.
    #[arg(long, value_name = "NAME", requires = "hub")]
    pub repo: Vec<String>,
    /// With --hub whose vectors are in a cluster: search in full only the N
    /// repositories the cluster's first stage ranks best (default 32; 0: all).
    #[arg(long, value_name = "N", requires = "hub", value_parser = clap::value_parser!(u16).range(0..=1000))]
    pub route: Option<u16>,
}

/// `ken search --hub URL`: one search over the hub's repositories, each
/// hit named `repo:path:lines`.
pub fn on_hub(args: &SearchArgs, url: &str) -> Result<()> {
    check(args)?;
    let token = std::env::var("KEN_HUB_TOKEN").map_err(|_| anyhow::anyhow!("set KEN_HUB_TOKEN to a token of the hub (`ken hub token`)"))?;
    let mut body = serde_json::json!({"query": args.query.join(" "), "k": args.k.unwrap_or(10), "mode": args.mode, "repos": args.repo});
    if !args.lang.is_empty() {
        body["languages"] = args.lang.clone().into();
    }
    if !args.kind.is_empty() {
        body["kinds"] = args.kind.clone().into();
    }
    if let Some(path) = &args.path {
        body["path"] = path.clone().into();
    }
    if let Some(route) = args.route {
        body["route"] = route.into();
    }
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let base = url.trim_end_matches('/');
    let mut response = agent
        .post(&format!("{base}/api/v1/search"))
        .header("authorization", &format!("Bearer {token}"))
        .header("content-type", "application/json")
        .send(body.to_string())
        .with_context(|| format!("cannot reach the hub at {base}"))?;
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string()?;
    let answer: serde_json::Value = serde_json::from_str(&text).with_context(|| format!("the hub answered {status}: {text}"))?;
    if status != 200 {
        bail!("the hub answered {status}: {}", answer["error"]["message"].as_str().unwrap_or(&text));
    }
    if args.json {
        println!("{answer}");
        return Ok(());
    }
    let hits = answer["hits"].as_array().cloned().unwrap_or_default();
    if hits.is_empty() {
        println!("no results for `{}` in {}", args.query.join(" "), answer["repos"]);
    }
    for (rank, hit) in hits.iter().enumerate() {
        println!(
            "{:>2}. {}:{}:{}-{}  {} {}  ({:.4})",
            rank + 1,
            hit["repo"].as_str().unwrap_or_default(),
            hit["path"].as_str().unwrap_or_default(),
            hit["start_line"],
            hit["end_line"],
            hit["kind"].as_str().unwrap_or_default(),
            hit["qualified_name"].as_str().unwrap_or_default(),
            hit["score"].as_f64().unwrap_or_default()
        );
        for (i, line) in hit["snippet"]["text"].as_str().unwrap_or_default().lines().take(4).enumerate() {
            println!("      {:>5} │ {line}", hit["snippet"]["start_line"].as_u64().unwrap_or(0) + i as u64);
        }
    }
    for note in answer["notes"].as_array().into_iter().flatten() {
        eprintln!("note: {}", note.as_str().unwrap_or_default());
    }
    Ok(())
}

/// Checks the arguments before any work (indexing a new repository included).
pub fn check(args: &SearchArgs) -> Result<()> {
    Mode::parse(&args.mode).with_context(|| format!("unknown --mode `{}`; use hybrid, semantic, lexical, exact or intents", args.mode))?;
    let k = args.k.unwrap_or(10);
    if k == 0 || k > 1000 {
        bail!("-k must be between 1 and 1000");
    }
    if args.pipeline.wanted() && args.k.is_some_and(|k| k > ken_pipeline::MAX_TOP_K) {
        bail!("-k must be between 1 and {} with --pipeline", ken_pipeline::MAX_TOP_K);
    }
    for language in &args.lang {
        crate::parse_language(language)?;
    }
    crate::parse_kinds(&args.kind)?;
    ken_search::plan_query(&args.query.join(" "))?;
    if args.format.is_some() && args.pipeline.wanted() {
        bail!("--format lays out plain search hits; --pipeline answers with clusters (use --json)");
    }
    template(args)?;
    Ok(())
}

/// The fields of a hit for `--format`.
const HIT_FIELDS: &[&str] = &["rank", "path", "line", "col", "end_line", "kind", "name", "qualified_name", "language", "score", "header"];

fn template(args: &SearchArgs) -> Result<Option<Template>> {
    args.format.as_deref().map(|f| Template::parse(f, HIT_FIELDS)).transpose()
}

fn hit_field(rank: usize, hit: &Hit, field: &str) -> String {
    match field {
        "rank" => rank.to_string(),
        "path" => hit.path.clone(),
        "line" => hit.start_line.to_string(),
        // Hits start at a line: editors want a column too.
        "col" => "1".into(),
        "end_line" => hit.end_line.to_string(),
        "kind" => hit.kind.to_string(),
        "name" => {
            if hit.name.is_empty() {
                hit.path.clone()
            } else {
                hit.name.clone()
            }
        }
        "qualified_name" => {
            if hit.qualified_name.is_empty() {
                hit.path.clone()
            } else {
                hit.qualified_name.clone()
            }
        }
        "language" => hit.language.name().to_string(),
        "score" => format!("{:.4}", hit.score),
        "header" => hit.header.clone(),
        _ => String::new(),
    }
}

/// `ken search`: stage 1 (hybrid retrieval), or with `--pipeline` the five
/// stages, over the engine's configuration with the flags on top.
pub fn search(engine: &Engine, context: &Context, args: &SearchArgs, out: &mut Output) -> Result<()> {
    check(args)?;
    // The API refuses an overlong query; the command line cuts it, and says so.
    let mut query = args.query.join(" ");
    let cut = query.chars().count() > MAX_QUERY_CHARS;
    if cut {
        query = query.chars().take(MAX_QUERY_CHARS).collect();
    }
    let cut_note = format!("the query was cut to its first {MAX_QUERY_CHARS} characters");
    let languages = args.lang.iter().map(|l| Ok(crate::parse_language(l)?.name().to_string())).collect::<Result<Vec<_>>>()?;
    if args.pipeline.wanted() {
        let mut config =
            engine.config.with_overrides(&args.pipeline.overrides()?, "", &Source::Flag).map_err(|e| anyhow::anyhow!("{e}"))?;
        if let Some(k) = args.k {
            config.top_k = k;
        }
        let request = HybridSearchRequest {
            query,
            top_k: args.k,
            config_overrides: None,
            explain: args.pipeline.explain,
            languages,
            kinds: args.kind.clone(),
            path: args.path.clone(),
            titles: args.pipeline.titles.as_deref().and_then(ken_engine::api::ClusterTitles::parse),
            query_expansion: args.expand.as_deref().and_then(ken_engine::api::QueryExpansion::parse),
        };
        let mut response = engine.pipeline_search(&request, &config)?;
        if cut {
            response.notes.insert(0, cut_note);
        }
        if args.json {
            writeln!(out.stdout, "{}", serde_json::to_string_pretty(&response)?)?;
        } else {
            out.stdout.push_str(&render_pipeline(&response, args.pipeline.explain));
            for note in &response.notes {
                writeln!(out.stderr, "note: {note}")?;
            }
        }
        return Ok(());
    }
    let request = SearchRequest {
        query,
        k: args.k,
        mode: Mode::parse(&args.mode),
        languages,
        kinds: args.kind.clone(),
        path: args.path.clone(),
        rrf_k: args.rrf_k,
        ranking: None,
        query_expansion: args.expand.as_deref().and_then(ken_engine::api::QueryExpansion::parse),
    };
    let mut response = engine.search(&request)?;
    if cut {
        response.notes.insert(0, cut_note);
    }
    if args.json {
        writeln!(out.stdout, "{}", serde_json::to_string_pretty(&response)?)?;
    } else if let Some(template) = template(args)? {
        for (i, hit) in response.hits.iter().enumerate() {
            out.stdout.push_str(&template.line(|f| hit_field(i + 1, hit, f)));
        }
        for note in &response.notes {
            writeln!(out.stderr, "note: {note}")?;
        }
    } else {
        out.stdout.push_str(&render(&response, context.color, context.links.then(|| engine.root())));
        for note in &response.notes {
            writeln!(out.stderr, "note: {note}")?;
        }
    }
    Ok(())
}

/// `ken search --pipeline` in this process: with `--expansion lsp` it
/// starts (and stops) the language servers, so it runs in a runtime.
pub fn pipeline_here(mut options: EngineOptions, context: &Context, args: &SearchArgs) -> Result<Output> {
    let mut out = Output::default();
    let config = options.config.with_overrides(&args.pipeline.overrides()?, "", &Source::Flag).map_err(|e| anyhow::anyhow!("{e}"))?;
    options.lsp = config.expansion == Expansion::Lsp;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the async runtime")?;
    let _entered = runtime.enter();
    let engine = Engine::open(options)?;
    for problem in runtime.block_on(engine.warm_lsp()) {
        writeln!(out.stderr, "warning: language server: {problem}")?;
    }
    if let Err(e) = search(&engine, context, args, &mut out) {
        out.error = Some(crate::error_text(&e));
    }
    runtime.block_on(engine.shutdown());
    Ok(out)
}

/// A repository searched before it was indexed: mine it now (lexical and
/// exact search work at once), and embed in a background process.
pub fn first_index(cwd: &Path, dir: &Path, model: &ModelArgs) -> Result<()> {
    let root = crate::repo_root(cwd);
    eprintln!("no index yet; indexing {} (embeddings follow in the background)", root.display());
    let mut options = ken_engine::EngineOptions::new(dir.to_path_buf());
    options.root = Some(root.clone());
    options.model = model.explicit()?;
    options.config = ken_pipeline::PipelineConfig::load(&root).map_err(|e| anyhow::anyhow!("{e}"))?;
    let request = ken_engine::IndexRequest {
        options: ken_index::IndexOptions::new(root.clone(), dir.to_path_buf()),
        embed: false,
        ..Default::default()
    };
    ken_engine::Engine::open(options)?.index(&request, &|_| {})?;
    // The binary's choice, made here only: embedding takes minutes, so a
    // detached `ken index --embed-only` does it while this search answers.
    let exe = std::env::current_exe().context("cannot find the ken executable to embed in the background")?;
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("--index-dir").arg(dir).args(["index", "--embed-only", "--quiet"]).arg(&root);
    if let Some(m) = &model.model {
        cmd.args(["--model", m]);
    }
    if let Some(d) = &model.model_dir {
        cmd.arg("--model-dir").arg(d);
    }
    cmd.stdin(std::process::Stdio::null()).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
    match cmd.spawn() {
        Ok(_) => eprintln!("embedding in the background; `ken status` shows progress"),
        Err(e) => eprintln!("warning: could not start background embedding ({e}); run `ken index`"),
    }
    Ok(())
}

/// Text results: location, kind and name, score; the header; the snippet
/// with query words in bold on a terminal.
pub fn render(response: &SearchResponse, color: bool, root: Option<&Path>) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    if response.hits.is_empty() {
        let _ = writeln!(out, "no results for `{}`", response.query);
        return out;
    }
    for (i, hit) in response.hits.iter().enumerate() {
        let name = if hit.qualified_name.is_empty() { hit.path.clone() } else { hit.qualified_name.clone() };
        let title = crate::output::link(&format!("{}:{}-{}", hit.path, hit.start_line, hit.end_line), root, &hit.path);
        if color {
            let _ = writeln!(out, "\x1b[1m{:>2}. {title}\x1b[0m  {} \x1b[36m{name}\x1b[0m  ({:.4})", i + 1, hit.kind, hit.score);
        } else {
            let _ = writeln!(out, "{:>2}. {title}  {} {name}  ({:.4})", i + 1, hit.kind, hit.score);
        }
        let _ = writeln!(out, "    {}", hit.header);
        if let Some(intent) = &hit.intent {
            let _ = writeln!(out, "    intent: {intent}");
        }
        if !hit.also_in.is_empty() {
            let _ = writeln!(out, "    also in: {}", hit.also_in.join(", "));
        }
        let text = &hit.snippet.text;
        let spans = if color { crate::highlight::spans(hit.language, text) } else { Vec::new() };
        let mut start = 0;
        for (n, line) in text.split('\n').enumerate() {
            let shown = line.strip_suffix('\r').unwrap_or(line);
            let shown = if color { crate::highlight::paint(shown, start, &spans, &response.terms) } else { shown.to_string() };
            start += line.len() + 1;
            if start > text.len() && line.is_empty() {
                break; // the newline ending the snippet starts no line
            }
            let _ = writeln!(out, "    {:>5} │ {shown}", hit.snippet.start_line as usize + n);
        }
        out.push('\n');
    }
    out
}

/// A writer is already at work: say what it is doing instead of failing bare.
pub fn busy_message(index_dir: &Path) -> Option<String> {
    let store = Store::open_read_only(index_dir).ok()?;
    let p = store.embed_progress().ok()?;
    Some(format!(
        "another ken process is updating the index in {} (embeddings {}/{}); `ken status` shows progress, and searches work meanwhile",
        index_dir.display(),
        p.embedded(),
        p.total()
    ))
}

/// The pipeline's knobs on the command line (`ken search --pipeline`).
#[derive(Args, Clone, Debug, Default)]
pub struct PipelineArgs {
    /// Run the five-stage pipeline: seeds, graph expansion, clustering,
    /// reranking. Prints clusters of related symbols.
    #[arg(long)]
    pub pipeline: bool,
    /// Say why each symbol is there: seed or relation, and the factor scores (implies --pipeline).
    #[arg(long)]
    pub explain: bool,
    /// Grow the graph over the stored graph (static) or live language servers (lsp).
    #[arg(long, value_name = "static|lsp")]
    pub expansion: Option<String>,
    /// Steps of expansion from the seeds (0–5, default 2).
    #[arg(long, value_name = "N")]
    pub depth: Option<u32>,
    /// Most symbols in the graph (default 100).
    #[arg(long, value_name = "N")]
    pub max_nodes: Option<usize>,
    /// Louvain resolution: higher gives smaller clusters (default 1.0).
    #[arg(long, value_name = "R")]
    pub resolution: Option<f64>,
    /// Ranking weights: text relevance, centrality, proximity (default 0.4,0.35,0.25).
    #[arg(long, value_name = "W1,W2,W3")]
    pub weights: Option<String>,
    /// Order members by retrieval (seeds first, the default) or by the weighted factors alone (seed 003's order).
    #[arg(long, value_name = "retrieval|factors")]
    pub order: Option<String>,
    /// `llm`: each cluster also gets a title by the language model, cached
    /// (default when [llm] names a model or endpoint); `structural`: not.
    #[arg(long, value_name = "HOW", value_parser = ["structural", "llm"])]
    pub titles: Option<String>,
}

impl PipelineArgs {
    pub fn wanted(&self) -> bool {
        self.pipeline || self.explain || self.expansion.is_some() || self.order.is_some() || self.titles.is_some()
    }

    pub fn overrides(&self) -> Result<Overrides> {
        let expansion = match &self.expansion {
            Some(text) => Some(Expansion::parse(text).with_context(|| format!("unknown --expansion `{text}`; use static or lsp"))?),
            None => None,
        };
        let ranking_weights = match &self.weights {
            Some(text) => {
                let w: Vec<f64> = text
                    .split(',')
                    .map(|p| p.trim().parse::<f64>())
                    .collect::<Result<_, _>>()
                    .ok()
                    .filter(|w: &Vec<f64>| w.len() == 3)
                    .with_context(|| format!("--weights `{text}` must be three numbers, e.g. 0.4,0.35,0.25"))?;
                Some(RankingWeights { w1: w[0], w2: w[1], w3: w[2] })
            }
            None => None,
        };
        let order = match &self.order {
            Some(text) => Some(MemberOrder::parse(text).with_context(|| format!("unknown --order `{text}`; use retrieval or factors"))?),
            None => None,
        };
        Ok(Overrides {
            ranking_weights,
            order,
            max_graph_depth: self.depth,
            clustering_resolution: self.resolution,
            max_nodes: self.max_nodes,
            min_cluster_size: None,
            expansion,
        })
    }
}

/// Clusters as text: score, title, then each symbol (and, with `explain`, why).
pub fn render_pipeline(response: &PipelineResponse, explain: bool) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let e = &response.expansion;
    let symbols: usize = response.results.iter().map(|c| c.symbols.len()).sum();
    let _ = writeln!(
        out,
        "{} symbols in {} clusters ({} seeds, {} graph, {} nodes, {} edges)\n",
        symbols,
        response.results.len(),
        e.seeds,
        match e.mode {
            Expansion::Static => "static",
            Expansion::Lsp => "live LSP",
        },
        e.nodes,
        e.edges
    );
    if response.results.is_empty() {
        let _ = writeln!(out, "no results for `{}`", response.query);
    }
    for (i, cluster) in response.results.iter().enumerate() {
        let _ = writeln!(out, "cluster {}  {:.3}  {}", i + 1, cluster.score, cluster.title);
        if let Some(title) = &cluster.llm_title {
            let _ = writeln!(out, "  \"{title}\"");
        }
        for s in &cluster.symbols {
            let _ = writeln!(
                out,
                "  {:.3}  {:<9} {}  {}:{}-{}",
                s.score, s.kind, s.qualified_name, s.file_path, s.range.start.line, s.range.end.line
            );
            if explain && let Some(x) = &s.explain {
                let origin = match &x.origin {
                    ken_pipeline::ExplainOrigin::Seed { rank, lanes } => {
                        let mut parts = Vec::new();
                        for (lane, rank) in [("dense", lanes.dense), ("bm25", lanes.sparse), ("exact", lanes.exact)] {
                            if let Some(r) = rank {
                                parts.push(format!("{lane} {r}"));
                            }
                        }
                        format!("seed #{rank} ({})", parts.join(", "))
                    }
                    ken_pipeline::ExplainOrigin::Reached { from_name, relation, via, depth, .. } => {
                        let via = match via {
                            ken_pipeline::Via::Graph => "graph",
                            ken_pipeline::Via::Lsp => "lsp",
                        };
                        format!("{from_name} {relation} this ({via}, depth {depth})")
                    }
                };
                let f = &x.factors;
                let _ =
                    writeln!(out, "         {origin} · text {:.2} · centrality {:.2} · proximity {:.2}", f.text, f.centrality, f.proximity);
            }
        }
        out.push('\n');
    }
    let t = &response.timings;
    let _ = writeln!(
        out,
        "stages: seeds {:.1} ms · expansion {:.1} ms · clustering {:.1} ms · ranking {:.1} ms · total {:.1} ms",
        t.seeds_ms, t.expansion_ms, t.clustering_ms, t.ranking_ms, t.total_ms
    );
    out
}
