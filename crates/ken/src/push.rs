//! `ken push URL` (a repository's CI, after `ken index`): sends the hub
//! what changed since its last push; `ken hub token|revoke`: the hub's
//! tokens. The push is one request: the hub applies all of it or none.

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use ken_engine::hub::{Access, Hub, PushSummary, RepoManifest};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Args)]
pub struct PushArgs {
    /// The hub's address, e.g. https://ken.example.com (`ken serve --hub`).
    pub url: String,
    /// The repository's name on the hub (default: its directory's name).
    #[arg(long)]
    pub repo: Option<String>,
    /// A push token (`ken hub token NAME --access push`); default KEN_HUB_TOKEN.
    #[arg(long, env = "KEN_HUB_TOKEN", hide_env_values = true)]
    pub token: String,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Subcommand)]
pub enum HubCommand {
    /// Make a token and print its secret (shown once; the hub keeps its hash).
    Token {
        name: String,
        /// read: search and read; push: also push repositories.
        #[arg(long, value_enum, default_value = "read")]
        access: AccessArg,
        /// The hub's directory (as given to `ken serve --hub`).
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
    },
    /// Revoke a token by name.
    Revoke {
        name: String,
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum AccessArg {
    Read,
    Push,
}

pub fn hub(command: HubCommand) -> Result<()> {
    match command {
        HubCommand::Token { name, access, dir } => {
            let hub = Hub::open(&dir, ken_pipeline::PipelineConfig::default())?;
            let access = match access {
                AccessArg::Read => Access::Read,
                AccessArg::Push => Access::Push,
            };
            println!("{}", hub.add_token(&name, access)?);
            eprintln!("token `{name}` made; keep the secret above: the hub keeps only its hash");
        }
        HubCommand::Revoke { name, dir } => {
            let hub = Hub::open(&dir, ken_pipeline::PipelineConfig::default())?;
            if !hub.revoke_token(&name)? {
                bail!("no token named `{name}`");
            }
            eprintln!("token `{name}` revoked");
        }
    }
    Ok(())
}

/// The push body, handed to the socket in pieces (as a large upload goes).
/// The failpoint `push.upload` aborts the client halfway through: a CI job
/// killed mid-upload, which the hub must survive.
struct Upload {
    body: Vec<u8>,
    sent: usize,
}

impl std::io::Read for Upload {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let half = self.body.len() / 2;
        if self.sent > 0 && self.sent >= half && self.sent < self.body.len() {
            ken_core::failpoint("push.upload");
        }
        let end = if self.sent < half { half } else { self.body.len() };
        let n = buf.len().min(end - self.sent).min(1 << 16);
        buf[..n].copy_from_slice(&self.body[self.sent..self.sent + n]);
        self.sent += n;
        Ok(n)
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder().http_status_as_error(false).timeout_global(Some(std::time::Duration::from_secs(3600))).build().into()
}

/// The hub's JSON error as one line, or the status.
fn hub_error(status: u16, body: &str) -> anyhow::Error {
    let message = serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().map(str::to_string))
        .unwrap_or_else(|| body.chars().take(300).collect());
    anyhow::anyhow!("the hub answered {status}: {message}")
}

pub fn push(cwd: &Path, index_dir: Option<PathBuf>, args: PushArgs) -> Result<()> {
    let started = Instant::now();
    let options = crate::read::engine_options(&crate::read::index_dir_of(cwd, index_dir), cwd)?;
    let engine = ken_engine::Engine::open(options)?;
    let repo = match &args.repo {
        Some(name) => name.clone(),
        None => engine.root().file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
    };
    ken_engine::hub::check_repo_name(&repo).map_err(|e| anyhow::anyhow!("{e}; pass --repo"))?;
    let base = args.url.trim_end_matches('/');
    let agent = agent();
    let bearer = format!("Bearer {}", args.token);
    // A push against a version another push replaced meanwhile is refused
    // (409): diff against the new one and send again.
    for _attempt in 0..3 {
        let mut response = agent
            .get(&format!("{base}/api/v1/repos/{repo}/manifest"))
            .header("authorization", &bearer)
            .call()
            .with_context(|| format!("cannot reach the hub at {base}"))?;
        let status = response.status().as_u16();
        let body = response.body_mut().read_to_string()?;
        if status != 200 {
            return Err(hub_error(status, &body));
        }
        let manifest: RepoManifest = serde_json::from_str(&body).context("the hub's manifest")?;
        let request = engine.push_request(&manifest)?;
        let json = serde_json::to_vec(&request)?;
        let compressed = zstd::encode_all(&json[..], 3)?;
        let bytes_sent = compressed.len();
        let mut response = agent
            .post(&format!("{base}/api/v1/repos/{repo}/push"))
            .header("authorization", &bearer)
            .header("content-type", "application/json")
            .header("content-encoding", "zstd")
            .send(ureq::SendBody::from_owned_reader(Upload { body: compressed, sent: 0 }))
            .with_context(|| format!("cannot reach the hub at {base}"))?;
        let status = response.status().as_u16();
        let body = response.body_mut().read_to_string()?;
        if status == 409 && body.contains("the hub holds version") {
            continue;
        }
        if status != 200 {
            return Err(hub_error(status, &body));
        }
        let summary: PushSummary = serde_json::from_str(&body).context("the hub's answer")?;
        let seconds = started.elapsed().as_secs_f64();
        if args.json {
            let mut value = serde_json::to_value(&summary)?;
            value["bytes_sent"] = bytes_sent.into();
            value["client_seconds"] = seconds.into();
            println!("{value}");
        } else {
            println!(
                "pushed {repo} version {}: {} files written, {} deleted, {} vectors ({} KiB sent); the hub holds {} files; {seconds:.2}s",
                summary.version,
                summary.files_written,
                summary.files_deleted,
                summary.vectors_received,
                bytes_sent / 1024,
                summary.files
            );
        }
        return Ok(());
    }
    bail!("other pushes of {repo} kept replacing the hub's version; try again")
}
