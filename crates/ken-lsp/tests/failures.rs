//! Failure injection: a fake server (`fake_lsp.py`) that hangs, crashes,
//! errors or writes garbage, and a server that is not installed. Each test
//! snapshots what every request returned, then the server's status.

mod common;

use common::{Fixture, init_logging, spec};
use expect_test::{Expect, expect};
use ken_lsp::{LspBridge, LspConfig, LspError, ServerSpec, SymbolPosition};
use std::fmt::Write;
use std::time::{Duration, Instant};

fn fake(name: &str, language: &str, mode: &str) -> ServerSpec {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fake_lsp.py");
    spec(name, &[language], "python3", &[script, mode])
}

fn config(servers: Vec<ServerSpec>) -> LspConfig {
    LspConfig { request_timeout: Duration::from_secs(5), startup_timeout: Duration::from_secs(10), servers, ..LspConfig::default() }
}

const FIXTURE: &str = "
//- /a.py
$0def f():
    pass
";

#[derive(Clone, Copy)]
enum Step {
    References,
    Calls,
    Hover,
    /// Lets the breaker cool down.
    Sleep(u64),
}

/// Runs `steps` against one fake server in `mode` and snapshots each result
/// and the final status.
async fn check(mode: &str, tweak: impl FnOnce(&mut LspConfig), steps: &[Step], expect: Expect) {
    init_logging();
    let fx = Fixture::new(FIXTURE);
    let mut config = config(vec![fake("fake", "python", mode)]);
    tweak(&mut config);
    let bridge = LspBridge::new(fx.root(), config);
    let at = fx.def("python", "f");
    let mut out = String::new();
    for (i, step) in steps.iter().enumerate() {
        let n = i + 1;
        let line = match *step {
            Step::References => render(
                "references",
                bridge.references(&at).await.map(|a| {
                    let locs: Vec<String> = a.value.iter().map(|l| l.to_string()).collect();
                    (format!("[{}]", locs.join(", ")), a.cached, a.fallback)
                }),
            ),
            Step::Calls => render(
                "incoming_calls",
                bridge.incoming_calls(&at).await.map(|a| {
                    let calls: Vec<String> = a.value.iter().map(|c| format!("{} from {}", c.name, c.from.len())).collect();
                    (format!("[{}]", calls.join(", ")), a.cached, a.fallback)
                }),
            ),
            Step::Hover => render("hover", bridge.hover(&at).await.map(|a| (format!("{:?}", a.value), a.cached, a.fallback))),
            Step::Sleep(ms) => {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                format!("sleep {ms} ms")
            }
        };
        writeln!(out, "{n}. {line}").unwrap();
    }
    writeln!(out, "{}", status(&bridge)).unwrap();
    bridge.shutdown().await;
    expect.assert_eq(&out);
}

fn render(what: &str, result: Result<(String, bool, Option<String>), LspError>) -> String {
    match result {
        Ok((value, cached, fallback)) => {
            let mut s = format!("{what}: {value}");
            if cached {
                s.push_str(" (cached)");
            }
            if let Some(note) = fallback {
                write!(s, " ({note})").unwrap();
            }
            s
        }
        Err(e) => format!("{what}: error: {e}"),
    }
}

fn status(bridge: &LspBridge) -> String {
    bridge
        .status()
        .iter()
        .map(|s| {
            format!(
                "status {}: {} restarts={} requests={} failures={} timeouts={} cache_hits={}",
                s.name, s.state, s.restarts, s.requests, s.failures, s.timeouts, s.cache_hits
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

use Step::*;

#[tokio::test]
async fn a_healthy_fake_answers_and_caches() {
    check(
        "ok",
        |_| {},
        &[References, References, Calls, Hover],
        expect![[r#"
            1. references: [a.py:1:5]
            2. references: [a.py:1:5] (cached)
            3. incoming_calls: [a.py from 1] (callHierarchy unsupported by fake; used references)
            4. hover: Some("fake hover")
            status fake: ready restarts=0 requests=4 failures=0 timeouts=0 cache_hits=1
        "#]],
    )
    .await;
}

#[tokio::test]
async fn an_empty_call_hierarchy_falls_back_to_references() {
    check(
        "empty-prepare",
        |_| {},
        &[Calls],
        expect![[r#"
        1. incoming_calls: [a.py from 1] (callHierarchy found no item at the symbol in fake; used references)
        status fake: ready restarts=0 requests=2 failures=0 timeouts=0 cache_hits=0
    "#]],
    )
    .await;
}

#[tokio::test]
async fn crashes_restart_the_server_until_max_restarts_opens_the_breaker() {
    check(
        "crash",
        |c| {
            c.max_restarts = 2;
            c.breaker_threshold = 100;
        },
        &[References, References, References],
        expect![[r#"
            1. references: error: fake crashed: the process exited (exit status: 3); stderr: fake: crashing on purpose; the next request restarts it, up to max_restarts times in a row
            2. references: error: fake crashed: the process exited (exit status: 3); stderr: fake: crashing on purpose; the next request restarts it, up to max_restarts times in a row
            3. references: error: fake failed repeatedly, so requests to it are paused (circuit breaker open); it gets a trial request in 30 s
            status fake: breaker_open restarts=1 requests=2 failures=2 timeouts=0 cache_hits=0
        "#]],
    )
    .await;
}

#[tokio::test]
async fn a_restarted_server_answers() {
    let marker = tempfile::tempdir().unwrap();
    let mode = format!("crash-once:{}", marker.path().join("crashed").display());
    check(&mode, |_| {}, &[References, References], expect![[r#"
        1. references: error: fake crashed: the process exited (exit status: 3); stderr: fake: crashing on purpose; the next request restarts it, up to max_restarts times in a row
        2. references: [a.py:1:5]
        status fake: ready restarts=1 requests=2 failures=1 timeouts=0 cache_hits=0
    "#]]).await;
}

#[tokio::test]
async fn errors_open_the_breaker_and_a_successful_trial_closes_it() {
    check(
        "error:3",
        |c| c.breaker_cooldown = Duration::from_millis(300),
        &[References, Hover, References, References, Sleep(400), References, Hover],
        expect![[r#"
            1. references: error: fake answered textDocument/references with an error: fake internal error (code -32603)
            2. hover: error: fake answered textDocument/hover with an error: fake internal error (code -32603)
            3. references: error: fake answered textDocument/references with an error: fake internal error (code -32603)
            4. references: error: fake failed repeatedly, so requests to it are paused (circuit breaker open); it gets a trial request in 1 s
            5. sleep 400 ms
            6. references: [a.py:1:5]
            7. hover: Some("fake hover")
            status fake: ready restarts=0 requests=5 failures=3 timeouts=0 cache_hits=0
        "#]],
    )
    .await;
}

#[tokio::test]
async fn a_failed_trial_reopens_the_breaker() {
    check(
        "error",
        |c| c.breaker_cooldown = Duration::from_millis(300),
        &[References, References, References, References, Sleep(400), References, References],
        expect![[r#"
            1. references: error: fake answered textDocument/references with an error: fake internal error (code -32603)
            2. references: error: fake answered textDocument/references with an error: fake internal error (code -32603)
            3. references: error: fake answered textDocument/references with an error: fake internal error (code -32603)
            4. references: error: fake failed repeatedly, so requests to it are paused (circuit breaker open); it gets a trial request in 1 s
            5. sleep 400 ms
            6. references: error: fake answered textDocument/references with an error: fake internal error (code -32603)
            7. references: error: fake failed repeatedly, so requests to it are paused (circuit breaker open); it gets a trial request in 1 s
            status fake: breaker_open restarts=0 requests=4 failures=4 timeouts=0 cache_hits=0
        "#]],
    )
    .await;
}

#[tokio::test]
async fn garbage_between_answers_is_skipped() {
    check(
        "garbage",
        |_| {},
        &[References, Hover],
        expect![[r#"
        1. references: [a.py:1:5]
        2. hover: Some("fake hover")
        status fake: ready restarts=0 requests=2 failures=0 timeouts=0 cache_hits=0
    "#]],
    )
    .await;
}

#[tokio::test]
async fn a_broken_frame_counts_as_a_crash() {
    check("bad-header", |_| {}, &[References], expect![[r#"
        1. references: error: fake crashed: protocol error: bad Content-Length "lots"; the next request restarts it, up to max_restarts times in a row
        status fake: crashed restarts=0 requests=1 failures=1 timeouts=0 cache_hits=0
    "#]]).await;
    check("huge-header", |_| {}, &[References], expect![[r#"
        1. references: error: fake crashed: protocol error: a 1000000000000-byte message exceeds the 67108864-byte limit; the next request restarts it, up to max_restarts times in a row
        status fake: crashed restarts=0 requests=1 failures=1 timeouts=0 cache_hits=0
    "#]]).await;
}

#[tokio::test]
async fn a_server_that_never_initializes_times_out() {
    check(
        "hang-init",
        |c| c.startup_timeout = Duration::from_millis(500),
        &[References],
        expect![[r#"
            1. references: error: fake did not answer initialize within 500 ms; if it is still loading the project, call warm() first or raise the timeout
            status fake: crashed restarts=0 requests=0 failures=1 timeouts=1 cache_hits=0
        "#]],
    )
    .await;
}

/// A hung server costs its own requests `request_timeout` and nothing more:
/// a server for another language answers meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_server_times_out_without_blocking_other_languages() {
    init_logging();
    let fx = Fixture::new(
        "
//- /a.py
$0def f():
    pass
//- /b.go
$1func g() {}
",
    );
    let mut config = config(vec![fake("hung", "python", "hang"), fake("healthy", "go", "ok")]);
    // Long enough that the healthy answer must come first however busy the
    // machine is: the order proves it did not wait, no clock is read.
    config.request_timeout = Duration::from_millis(8000);
    let bridge = LspBridge::new(fx.root(), config);
    let hung_at = fx.def("python", "f");
    let healthy_at = fx.call("go", "g");
    bridge.warm("python", &hung_at.path).await.unwrap();
    bridge.warm("go", &healthy_at.path).await.unwrap();

    let started = Instant::now();
    let hung = tokio::spawn({
        let bridge = bridge.clone();
        async move { bridge.references(&hung_at).await }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let healthy = bridge.references(&healthy_at).await.unwrap();
    assert!(!hung.is_finished(), "the healthy server waited for the hung one: {:?}", started.elapsed());
    let hung = hung.await.unwrap();
    // A lower bound only: load can delay a timeout, never hasten it.
    assert!(started.elapsed() >= Duration::from_millis(7900), "the timeout fired early: {:?}", started.elapsed());
    let healthy: Vec<String> = healthy.value.iter().map(|l| l.to_string()).collect();
    let out = format!("healthy: {healthy:?}\nhung: {}\n{}\n", hung.unwrap_err(), status(&bridge));
    bridge.shutdown().await;
    expect![[r#"
        healthy: ["b.go:1:6"]
        hung: hung did not answer textDocument/references within 8000 ms; if it is still loading the project, call warm() first or raise the timeout
        status hung: ready restarts=0 requests=1 failures=1 timeouts=1 cache_hits=0
        status healthy: ready restarts=0 requests=1 failures=0 timeouts=0 cache_hits=0
    "#]].assert_eq(&out);
}

/// No server installed, or none configured: a quick, helpful error.
#[tokio::test]
async fn missing_servers_are_reported_fast() {
    let fx = Fixture::new(FIXTURE);
    let config = LspConfig {
        servers: vec![
            spec("ghost", &["python"], "ken-no-such-language-server", &[]),
            spec("ghost2", &["python"], "/nonexistent/ken-ls", &[]),
        ],
        ..LspConfig::default()
    };
    let bridge = LspBridge::new(fx.root(), config);
    let started = Instant::now();
    let python = bridge.references(&fx.def("python", "f")).await.unwrap_err();
    let kotlin = bridge.warm("kotlin", "a.py").await.unwrap_err();
    // Not the 60 s startup timeout: a missing executable fails on spawn. The
    // bound is generous so that a busy machine cannot fail it.
    assert!(started.elapsed() < Duration::from_secs(30), "took {:?}", started.elapsed());
    assert_eq!(bridge.server_for("python"), None);
    let missing_file = SymbolPosition::new("nope.py", "python", 1, 1, "f");
    let out = format!("{python}\n{kotlin}\n{}\n", status(&bridge));
    assert!(matches!(bridge.references(&missing_file).await, Err(LspError::NoServer { .. })));
    expect![[r#"
        no language server for python (tried ken-no-such-language-server, /nonexistent/ken-ls); install one, e.g. `npm i -g pyright` or `pip install python-lsp-server`
        no language server for kotlin (none configured); add a ServerSpec for it to LspConfig.servers
        status ghost: missing restarts=0 requests=0 failures=0 timeouts=0 cache_hits=0
        status ghost2: missing restarts=0 requests=0 failures=0 timeouts=0 cache_hits=0
    "#]].assert_eq(&out);
}

/// Asking about a file that does not exist is the caller's error, not the server's.
#[tokio::test]
async fn unreadable_files_are_io_errors_and_do_not_trip_the_breaker() {
    let fx = Fixture::new(FIXTURE);
    let bridge = LspBridge::new(fx.root(), config(vec![fake("fake", "python", "ok")]));
    let missing = SymbolPosition::new("nope.py", "python", 1, 1, "f");
    let mut out = String::new();
    for _ in 0..4 {
        let e = bridge.references(&missing).await.unwrap_err();
        let e = e.to_string().replace(&fx.root().display().to_string(), "$ROOT");
        writeln!(out, "{e}").unwrap();
    }
    writeln!(out, "{}", status(&bridge)).unwrap();
    bridge.shutdown().await;
    expect![[r#"
        cannot read nope.py under $ROOT: No such file or directory (os error 2); symbol paths must be relative to the bridge root
        cannot read nope.py under $ROOT: No such file or directory (os error 2); symbol paths must be relative to the bridge root
        cannot read nope.py under $ROOT: No such file or directory (os error 2); symbol paths must be relative to the bridge root
        cannot read nope.py under $ROOT: No such file or directory (os error 2); symbol paths must be relative to the bridge root
        status fake: not_started restarts=0 requests=0 failures=0 timeouts=0 cache_hits=0
    "#]]
    .assert_eq(&out);
}

/// `max_in_flight` is shared by all servers: with the only permit held by
/// a hung request, another server's request waits until that one times out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_in_flight_bounds_requests_across_servers() {
    init_logging();
    let fx = Fixture::new(
        "
//- /a.py
$0def f():
    pass
//- /b.go
$1func g() {}
",
    );
    let mut config = config(vec![fake("hung", "python", "hang"), fake("healthy", "go", "ok")]);
    config.request_timeout = Duration::from_millis(1000);
    config.max_in_flight = 1;
    let bridge = LspBridge::new(fx.root(), config);
    let (hung_at, healthy_at) = (fx.def("python", "f"), fx.call("go", "g"));
    bridge.warm("python", &hung_at.path).await.unwrap();
    bridge.warm("go", &healthy_at.path).await.unwrap();
    let hung = tokio::spawn({
        let bridge = bridge.clone();
        async move { bridge.references(&hung_at).await }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = Instant::now();
    let healthy = bridge.references(&healthy_at).await.unwrap();
    let waited = started.elapsed();
    let hung = hung.await.unwrap().unwrap_err();
    assert!(waited >= Duration::from_millis(600), "did not wait for the permit: {waited:?}");
    let out = format!("hung: {hung}\nthen: {}\n{}\n", healthy.value[0], status(&bridge));
    bridge.shutdown().await;
    expect![[r#"
        hung: hung did not answer textDocument/references within 1000 ms; if it is still loading the project, call warm() first or raise the timeout
        then: b.go:1:6
        status hung: ready restarts=0 requests=1 failures=1 timeouts=1 cache_hits=0
        status healthy: ready restarts=0 requests=1 failures=0 timeouts=0 cache_hits=0
    "#]].assert_eq(&out);
}
