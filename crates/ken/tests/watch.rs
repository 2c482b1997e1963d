//! `ken watch` end to end: a real watcher process over a real repository,
//! changed the ways people change code (saves, branch switches, directory
//! renames and deletions, bursts of writes). Each test waits until the
//! index, read through `ken symbols` while the watcher holds it, is what the
//! tree says; the wait is a guard against a hang, not a time budget.

mod support;

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use support::{Repo, Server, ken_command};

/// Long enough for a loaded CI machine; a watcher that misses a change never gets there.
const HANG_GUARD: Duration = Duration::from_secs(300);

struct Watcher {
    child: Child,
    events: mpsc::Receiver<Value>,
}

impl Watcher {
    fn start(repo: &Repo, extra: &[&str]) -> Watcher {
        let mut args = vec!["watch", "--json"];
        args.extend_from_slice(extra);
        let mut child = ken_command(repo.path(), &args).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("ken watch starts");
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, events) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                let _ = tx.send(serde_json::from_str::<Value>(&line).expect("JSON lines"));
            }
        });
        let watcher = Watcher { child, events };
        // The first pass indexes what is there; from then on, changes are caught.
        watcher.next("searchable");
        watcher
    }

    fn next(&self, kind: &str) -> Value {
        let deadline = Instant::now() + HANG_GUARD;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let event = self.events.recv_timeout(left).unwrap_or_else(|_| panic!("no `{kind}` event from ken watch"));
            assert_ne!(event["event"], "failed", "{event}");
            if event["event"] == kind {
                return event;
            }
        }
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Every symbol the index holds, one `path name` line each, sorted.
fn symbols(repo: &Repo) -> String {
    let out = repo.ken(&["symbols", "--rank", "-k", "0", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let mut lines: Vec<String> =
        rows.iter().map(|r| format!("{} {}", r["path"].as_str().unwrap(), r["qualified_name"].as_str().unwrap())).collect();
    lines.sort();
    lines.join("\n")
}

/// Waits until the index holds exactly `want`.
fn settles_to(repo: &Repo, want: &str) {
    let deadline = Instant::now() + HANG_GUARD;
    let mut now = symbols(repo);
    while now != want {
        assert!(Instant::now() < deadline, "the index never became\n{want}\nit holds\n{now}");
        std::thread::sleep(Duration::from_millis(100));
        now = symbols(repo);
    }
}

fn git(repo: &Repo, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(repo.path())
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn function(name: &str) -> String {
    format!("def {name}():\n    return 1\n")
}

#[test]
fn saved_edits_become_searchable() {
    let repo = Repo::new("//- app/core.py\ndef load():\n    return 1\n");
    let watcher = Watcher::start(&repo, &["--no-embed"]);
    settles_to(&repo, "app/core.py app.core.load");
    repo.write("app/extra.py", function("save_all"));
    repo.write("app/core.py", "def load_fast():\n    return 2\n");
    settles_to(&repo, "app/core.py app.core.load_fast\napp/extra.py app.extra.save_all");
    // A new directory, with files written into it at once.
    std::fs::create_dir_all(repo.path().join("app/deep/er")).unwrap();
    repo.write("app/deep/er/leaf.py", function("leaf"));
    settles_to(&repo, "app/core.py app.core.load_fast\napp/deep/er/leaf.py app.deep.er.leaf.leaf\napp/extra.py app.extra.save_all");
    drop(watcher);
}

#[test]
fn a_branch_switch_is_followed_both_ways() {
    let repo = Repo::new("//- src/a.py\ndef alpha():\n    return 1\n//- src/b.py\ndef beta():\n    return 1\n");
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "main"]);
    git(&repo, &["checkout", "-qb", "feature"]);
    std::fs::remove_file(repo.path().join("src/b.py")).unwrap();
    repo.write("src/a.py", function("alpha_two"));
    repo.write("src/new/c.py", function("gamma"));
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "feature"]);
    git(&repo, &["checkout", "-q", "main"]);
    let main = "src/a.py a.alpha\nsrc/b.py b.beta";
    let feature = "src/a.py a.alpha_two\nsrc/new/c.py new.c.gamma";
    let _watcher = Watcher::start(&repo, &["--no-embed"]);
    settles_to(&repo, main);
    git(&repo, &["checkout", "-q", "feature"]);
    settles_to(&repo, feature);
    git(&repo, &["checkout", "-q", "main"]);
    settles_to(&repo, main);
    // Back again: the directory main deleted is made anew and watched again.
    git(&repo, &["checkout", "-q", "feature"]);
    settles_to(&repo, feature);
    repo.write("src/new/d.py", function("delta"));
    settles_to(&repo, &format!("{feature}\nsrc/new/d.py new.d.delta"));
}

#[test]
fn renamed_and_deleted_directories_leave_nothing_stale() {
    let repo = Repo::new("");
    for i in 0..30 {
        repo.write(&format!("pkg/sub/m{i:02}.py"), function(&format!("f{i:02}")));
    }
    let listing = |dir: &str, range: std::ops::Range<usize>| {
        let module = dir.replace('/', ".");
        range.map(|i| format!("{dir}/m{i:02}.py {module}.m{i:02}.f{i:02}")).collect::<Vec<_>>().join("\n")
    };
    let _watcher = Watcher::start(&repo, &["--no-embed"]);
    settles_to(&repo, &listing("pkg/sub", 0..30));
    std::fs::rename(repo.path().join("pkg"), repo.path().join("lib")).unwrap();
    settles_to(&repo, &listing("lib/sub", 0..30));
    // The renamed directory is still watched: a file written there counts.
    repo.write("lib/sub/m30.py", function("f30"));
    settles_to(&repo, &listing("lib/sub", 0..31));
    std::fs::remove_dir_all(repo.path().join("lib/sub")).unwrap();
    settles_to(&repo, "");
}

#[test]
fn a_burst_of_writes_loses_no_update() {
    let repo = Repo::new("//- keep.py\ndef keep():\n    return 1\n");
    let _watcher = Watcher::start(&repo, &["--no-embed"]);
    // Every file written, then every file rewritten, as fast as the disk takes it.
    for round in ["first", "second"] {
        for i in 0..100 {
            repo.write(&format!("burst/b{i:03}.py"), function(&format!("{round}_{i:03}")));
        }
        let mut want: Vec<String> = vec!["keep.py keep.keep".into()];
        for i in 0..100 {
            want.push(format!("burst/b{i:03}.py burst.b{i:03}.{round}_{i:03}"));
        }
        want.sort();
        settles_to(&repo, &want.join("\n"));
    }
}

#[test]
fn changes_are_embedded_after_they_are_searchable() {
    let repo = Repo::new("//- shop/cart.py\ndef total(items):\n    return sum(items)\n");
    let watcher = Watcher::start(&repo, &[]);
    repo.write(
        "shop/refund.py",
        "def give_money_back(order):\n    \"\"\"Return the customer's money for a cancelled order.\"\"\"\n    return order.paid\n",
    );
    let searchable = watcher.next("searchable");
    assert_eq!(searchable["changes"]["added"], 1, "{searchable}");
    let embedded = watcher.next("embedded");
    assert!(embedded["points"].as_u64().unwrap() >= 1, "{embedded}");
    let out = repo.ken(&["search", "reimburse a customer for a cancelled purchase", "--mode", "semantic", "-k", "1", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let hits: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = hits.to_string();
    assert!(text.contains("shop/refund.py"), "{text}");
}

#[test]
fn a_server_started_with_watch_answers_with_the_new_code() {
    let repo = Repo::new("//- api/routes.py\ndef index():\n    return 1\n");
    assert!(repo.ken(&["index", "-q"]).status.success());
    let server = Server::start(&repo, &["--watch"]);
    repo.write("api/health.py", function("health_check"));
    let deadline = Instant::now() + HANG_GUARD;
    loop {
        let (status, found) = server.get("/api/v1/symbols?name=health_check");
        assert_eq!(status, 200, "{found}");
        if found.as_array().is_some_and(|rows| rows.iter().any(|r| r["path"] == "api/health.py")) {
            break;
        }
        assert!(Instant::now() < deadline, "the server never saw api/health.py: {found}");
        std::thread::sleep(Duration::from_millis(100));
    }
}
