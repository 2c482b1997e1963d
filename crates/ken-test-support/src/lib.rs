//! Test helpers shared by every crate's tests (a dev-dependency only):
//! multi-file fixtures written in one string, and a seeded generator for
//! mutation and fuzz tests. No IO but [`write_files`], and [`llama`]: a
//! real OpenAI-compatible server process.

pub mod llama;

use std::path::Path;

/// The files of a fixture: each starts at a `//- path` line (a leading `/`
/// is dropped) and runs to the next; text before the first header is ignored.
///
/// ```
/// let files = ken_test_support::files("//- a.py\nx = 1\n//- /pkg/b.py\ny = 2\n");
/// assert_eq!(files, [("a.py".to_string(), "x = 1\n".to_string()), ("pkg/b.py".to_string(), "y = 2\n".to_string())]);
/// ```
pub fn files(fixture: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in fixture.lines() {
        if let Some(path) = line.trim_start().strip_prefix("//- ") {
            out.push((path.trim().trim_start_matches('/').to_string(), String::new()));
        } else if let Some((_, text)) = out.last_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    out
}

/// Writes `files` under `root`, making directories; a file whose body is
/// only whitespace is deleted instead (a fixture can remove what an earlier one wrote).
pub fn write_files(root: &Path, files: &[(String, String)]) {
    for (path, body) in files {
        let full = root.join(path);
        if body.trim().is_empty() {
            let _ = std::fs::remove_file(&full);
            continue;
        }
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("create {}: {e}", parent.display()));
        }
        std::fs::write(&full, body).unwrap_or_else(|e| panic!("write {}: {e}", full.display()));
    }
}

/// xorshift64: small, seeded and the same on every machine, so a failing
/// case is replayed from its seed.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixtures_split_at_headers() {
        let text = "ignored\n//- a.py\nx = 1\n\n//- /b/c.rs\n//- empty.txt\n";
        let got = files(text);
        assert_eq!(got, [("a.py".into(), "x = 1\n\n".into()), ("b/c.rs".into(), String::new()), ("empty.txt".into(), String::new())]);
    }

    #[test]
    fn the_generator_repeats_from_its_seed_and_stays_in_range() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        let draws: Vec<usize> = (0..100).map(|_| a.below(10)).collect();
        assert_eq!(draws, (0..100).map(|_| b.below(10)).collect::<Vec<_>>());
        assert!(draws.iter().all(|&d| d < 10));
        assert!(draws.iter().any(|&d| d != draws[0]), "it varies");
        assert_eq!(Rng::new(0).below(0), 0);
    }
}
