//! A run killed in any phase leaves an index that the next run completes to
//! exactly what an uninterrupted run builds. The kill is a failpoint
//! (`KEN_FAILPOINT`): the process aborts right after a batch commits, as a
//! `kill -9` there would, so no test depends on timing.

mod support;

use expect_test::expect;
use support::{Repo, json, ken_command, stdout};

/// `files` Python modules, each importing and calling the one before, so
/// every phase (mining, linking, lexical points, embedding) has many batches.
fn chain_repo(files: usize) -> Repo {
    let repo = Repo::new("");
    for i in 0..files {
        let import = if i > 0 { format!("from pkg.mod_{p} import helper_{p}\n\n", p = i - 1) } else { String::new() };
        let call = if i > 0 { format!("helper_{}(self)", i - 1) } else { "0".to_string() };
        repo.write(
            &format!("pkg/mod_{i}.py"),
            format!(
                "{import}class Widget{i}:\n    \"\"\"Widget number {i} handles word{i}.\"\"\"\n\n    def run(self):\n        return {call}\n\n\ndef helper_{i}(w):\n    return {i}\n"
            ),
        );
    }
    repo
}

/// Everything a run leaves that must not depend on whether it was killed:
/// the index's counts, embedding progress and what searches answer.
fn observe(repo: &Repo, idx: &str, embed: bool, queries: &[&str]) -> String {
    let run = |args: &[&str]| {
        let mut cmd = ken_command(repo.path(), args);
        if !embed {
            cmd.env("KEN_NO_EMBED", "1");
        }
        cmd.output().expect("ken runs")
    };
    let status = json(&run(&["--index-dir", idx, "status", "--json"]));
    let mut out = format!("stats {}\nembeddings {}\n", status["stats"], status["embeddings"]);
    let graph = json(&run(&["--index-dir", idx, "graph", "callers", "pkg.mod_0.helper_0", "--depth", "3", "--json"]));
    out += &format!("callers {}\n", qualified_names(&graph).join(" "));
    for q in queries {
        let mode = if embed { "hybrid" } else { "lexical" };
        let v = json(&run(&["--index-dir", idx, "search", q, "--mode", mode, "--json", "-k", "5"]));
        // The top hit only: lower ranks hold ties, broken by ids, which
        // depend on the order files were written in.
        out += &format!("{q}: {}\n", v["hits"][0]["qualified_name"].as_str().unwrap_or("none"));
    }
    let path = std::path::Path::new(idx).join("index.sqlite");
    let check = |db: rusqlite::Connection| db.query_row("PRAGMA integrity_check", [], |r| r.get::<_, String>(0));
    let check = check(rusqlite::Connection::open(&path).unwrap()).or_else(|_| {
        // A read-only mount: no `-shm` can be made, so read the file as immutable.
        use rusqlite::OpenFlags;
        let uri = format!("file:{}?immutable=1", path.display());
        check(rusqlite::Connection::open_with_flags(uri, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI).unwrap())
    });
    out += &format!("integrity {}\n", check.unwrap());
    out
}

/// Every qualified name in a JSON answer, sorted: what it says, without
/// timings or paths that differ between runs.
fn qualified_names(v: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::Object(map) => {
                if let Some(serde_json::Value::String(name)) = map.get("qualified_name") {
                    out.push(name.clone());
                }
                stack.extend(map.values());
            }
            serde_json::Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    out.sort();
    out
}

/// `ken --index-dir IDX index -q` in `repo`, without embeddings unless `embed`.
fn index_command(repo: &Repo, idx: &str, embed: bool) -> std::process::Command {
    let mut cmd = ken_command(repo.path(), &["--index-dir", idx, "index", "-q"]);
    if !embed {
        cmd.env("KEN_NO_EMBED", "1");
    }
    cmd
}

/// Kills a run at `failpoint`, runs again, and compares with a clean run.
fn check_killed_at(failpoint: &str, files: usize, embed: bool) {
    let repo = chain_repo(files);
    let clean_dir = tempfile::tempdir().unwrap();
    let clean = clean_dir.path().to_str().unwrap();
    stdout(&index_command(&repo, clean, embed).output().unwrap());

    let killed_dir = tempfile::tempdir().unwrap();
    let killed = killed_dir.path().to_str().unwrap();
    let out = index_command(&repo, killed, embed).env("KEN_FAILPOINT", failpoint).output().unwrap();
    assert!(!out.status.success(), "the failpoint {failpoint} was never reached");
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("failpoint {failpoint}")), "{}", String::from_utf8_lossy(&out.stderr));
    stdout(&index_command(&repo, killed, embed).output().unwrap());

    // A word from files all over the run, so every batch is looked at.
    let mut queries: Vec<String> = (0..files).step_by(files / 7).map(|i| format!("word{i}")).collect();
    queries.extend([format!("word{}", files - 1), "helper_42 widget".to_string()]);
    let queries: Vec<&str> = queries.iter().map(String::as_str).collect();
    let want = observe(&repo, clean, embed, &queries);
    assert!(want.contains("integrity ok"), "{want}");
    assert_eq!(observe(&repo, killed, embed, &queries), want, "killed at {failpoint}, then resumed");
}

#[test]
fn killed_while_mining_resumes_to_the_same_index() {
    check_killed_at("index.mine_batch", 1100, false);
}

#[test]
fn killed_while_linking_resumes_to_the_same_index() {
    check_killed_at("index.link_batch", 1100, false);
}

#[test]
fn killed_while_writing_lexical_points_resumes_to_the_same_index() {
    check_killed_at("index.lexical_batch", 1100, false);
}

#[test]
fn killed_while_embedding_resumes_to_the_same_index() {
    check_killed_at("index.embed_batch", 150, true);
}

/// The observation itself, so a change in what it sees is a visible diff.
#[test]
fn a_small_chain_is_observed() {
    let repo = chain_repo(3);
    let dir = tempfile::tempdir().unwrap();
    let idx = dir.path().to_str().unwrap();
    stdout(&index_command(&repo, idx, false).output().unwrap());
    expect![[r#"
        stats {"files":3,"lines":31,"symbols":12,"references":4,"chunks":3,"files_with_parse_errors":0,"parse_errors":0}
        embeddings {"symbols":9,"symbols_embedded":0,"chunks":3,"chunks_embedded":0,"files_unsynced":0}
        callers pkg.mod_0.helper_0 pkg.mod_1.Widget1.run
        word2: pkg.mod_2.Widget2
        helper_1: pkg.mod_1.helper_1
        integrity ok
    "#]]
    .assert_eq(&observe(&repo, idx, false, &["word2", "helper_1"]));
}

/// Two `ken index` runs and a `ken serve` at once on one repository: the
/// index stays whole, a run that cannot write says what it waits for, the
/// server keeps answering, and the next run ends where a clean one does.
#[test]
fn concurrent_index_runs_and_a_server_never_corrupt_the_index() {
    use std::io::BufRead;
    let repo = chain_repo(600);
    let index = |dir: &std::path::Path| ken_command(dir, &["index", "-q"]).env("KEN_NO_EMBED", "1").output().unwrap();
    stdout(&index(repo.path()));
    let mut server = ken_command(repo.path(), &["serve", "--addr", "127.0.0.1:0"])
        .env("KEN_NO_EMBED", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(server.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let base = line.split_whitespace().find(|w| w.starts_with("http://")).expect("the server's address").to_string();
    std::thread::spawn(move || for _ in stderr.lines() {});

    // Every file changes, so both runs have real work to fight over.
    for i in 0..600 {
        let path = repo.path().join(format!("pkg/mod_{i}.py"));
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{text}\n\ndef extra_{i}():\n    return 'changed'\n")).unwrap();
    }
    let runs: Vec<_> = (0..2)
        .map(|_| {
            ken_command(repo.path(), &["index", "-q"])
                .env("KEN_NO_EMBED", "1")
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    for _ in 0..5 {
        let mut response = agent
            .post(&format!("{base}/api/v1/search"))
            .header("content-type", "application/json")
            .send(r#"{"query": "word7", "k": 3}"#)
            .expect("the server answers during the runs");
        assert_eq!(response.status().as_u16(), 200, "{}", response.body_mut().read_to_string().unwrap_or_default());
    }
    let outcomes: Vec<std::process::Output> = runs.into_iter().map(|r| r.wait_with_output().unwrap()).collect();
    assert!(outcomes.iter().any(|o| o.status.success()), "one run got the index");
    for o in outcomes.iter().filter(|o| !o.status.success()) {
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("another ken process is updating the index"), "a waiting run says why: {err}");
    }
    let _ = server.kill();
    let _ = server.wait();
    stdout(&index(repo.path()));

    let clean_dir = tempfile::tempdir().unwrap();
    let clean_idx = clean_dir.path().to_str().unwrap();
    stdout(&index_command(&repo, clean_idx, false).output().unwrap());
    let queries = ["word7", "extra_599", "word599"];
    let idx = repo.path().join(".kenning");
    let want = observe(&repo, clean_idx, false, &queries);
    assert!(want.contains("integrity ok") && want.contains("extra_599: pkg.mod_599.extra_599"), "{want}");
    assert_eq!(observe(&repo, idx.to_str().unwrap(), false, &queries), want);
}

/// Something mounted on a directory (`mount ARGS… DIR`), unmounted on drop.
/// Mounting needs root, as CI has; elsewhere `mount` gives `None` and the
/// test says it was skipped.
struct Mounted(std::path::PathBuf);

impl Mounted {
    fn mount(args: &[&str], dir: &std::path::Path) -> Option<Mounted> {
        run_mount(args, dir).then(|| Mounted(dir.to_path_buf()))
    }

    /// A tmpfs of `size` (`256k`, `64m`): a disk that can fill up.
    fn tmpfs(dir: &std::path::Path, size: &str) -> Option<Mounted> {
        Mounted::mount(&["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"], dir)
    }

    /// `mount -o remount,OPTIONS`: a new size, or read-only.
    fn remount(&self, options: &str) -> bool {
        run_mount(&["-o", &format!("remount,{options}")], &self.0)
    }
}

fn run_mount(args: &[&str], dir: &std::path::Path) -> bool {
    std::process::Command::new("mount").args(args).arg(dir).status().is_ok_and(|s| s.success())
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

/// The index on a disk that fills up: a clear error, an index that passes
/// `integrity_check`, and once there is room the next run ends where a
/// clean run does. Needs a tmpfs mount, so it runs as root (as CI does).
#[test]
fn a_full_disk_gives_a_clear_error_and_no_corruption() {
    let repo = chain_repo(300);
    let disk = tempfile::tempdir().unwrap();
    let Some(mounted) = Mounted::tmpfs(disk.path(), "256k") else {
        eprintln!("skipped: mounting a small tmpfs needs root");
        return;
    };
    let idx = disk.path().join("idx");
    let idx = idx.to_str().unwrap();
    let run = || index_command(&repo, idx, false).output().unwrap();
    let out = run();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the disk holding the index is full"), "{err}");
    let db = rusqlite::Connection::open(std::path::Path::new(idx).join("index.sqlite")).unwrap();
    let check: String = db.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(check, "ok");
    drop(db);

    assert!(mounted.remount("size=64m"), "the disk grows");
    stdout(&run());
    let clean_dir = tempfile::tempdir().unwrap();
    let clean = clean_dir.path().to_str().unwrap();
    stdout(&index_command(&repo, clean, false).output().unwrap());
    let queries = ["word7", "word299", "helper_42 widget"];
    assert_eq!(observe(&repo, idx, false, &queries), observe(&repo, clean, false, &queries));
}

/// An index directory that turns read-only (a read-only mount: root ignores
/// file modes): `ken index` says so and how to get out, the index stays
/// whole, and searches keep answering from it.
#[test]
fn a_read_only_index_gives_a_clear_error_and_stays_whole() {
    let repo = chain_repo(40);
    let disk = tempfile::tempdir().unwrap();
    let idx = disk.path().join("idx");
    let idx = idx.to_str().unwrap();
    stdout(&index_command(&repo, idx, false).output().unwrap());
    let Some(mounted) = Mounted::mount(&["--bind", idx], std::path::Path::new(idx)) else {
        eprintln!("skipped: a read-only bind mount needs root");
        return;
    };
    assert!(mounted.remount("bind,ro"));
    assert!(std::fs::write(std::path::Path::new(idx).join("probe"), "x").is_err(), "the mount is read-only");

    repo.write("pkg/mod_new.py", "def fresh_helper():\n    return 1\n");
    let out = index_command(&repo, idx, false).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("writable") && err.contains("--index-dir"), "{err}");

    let before = observe(&repo, idx, false, &["word7"]);
    assert!(before.contains("integrity ok") && before.contains("word7: pkg.mod_7.Widget7"), "{before}");
}

/// A disk that fills up while the vectors are written (the embedding phase:
/// SQLite's cache and Qdrant Edge's shard): a clear error, no abort, an
/// index that passes `integrity_check`, and once there is room the next run
/// ends where a clean run does. Needs a tmpfs mount, so it runs as root.
#[test]
fn a_disk_full_while_embedding_gives_a_clear_error_and_resumes() {
    let repo = chain_repo(150);
    let disk = tempfile::tempdir().unwrap();
    let Some(mounted) = Mounted::tmpfs(disk.path(), "64m") else {
        eprintln!("skipped: mounting a small tmpfs needs root");
        return;
    };
    let idx = disk.path().join("idx");
    let idx = idx.to_str().unwrap();
    // The lexical index fits; then the disk keeps only a little room.
    stdout(&index_command(&repo, idx, false).output().unwrap());
    let used_kib = {
        let out = std::process::Command::new("du").args(["-sk", idx]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).split_whitespace().next().unwrap().parse::<u64>().unwrap()
    };
    assert!(mounted.remount(&format!("size={}k", used_kib + 256)), "the disk shrinks");
    let out = index_command(&repo, idx, true).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "a clear error, not a crash: {err}");
    assert!(err.contains("full") || err.contains("No space left"), "{err}");
    let db = rusqlite::Connection::open(std::path::Path::new(idx).join("index.sqlite")).unwrap();
    let check: String = db.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(check, "ok");
    drop(db);

    assert!(mounted.remount("size=512m"), "the disk grows");
    stdout(&index_command(&repo, idx, true).output().unwrap());
    let clean_dir = tempfile::tempdir().unwrap();
    let clean = clean_dir.path().to_str().unwrap();
    stdout(&index_command(&repo, clean, true).output().unwrap());
    let queries = ["word7", "widget that handles word42"];
    assert_eq!(observe(&repo, idx, true, &queries), observe(&repo, clean, true, &queries));
}
