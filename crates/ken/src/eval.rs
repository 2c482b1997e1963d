//! `ken eval`: retrieval quality on the repository's own query sets, per
//! mode, without each lane, and for the ranking configurations given to
//! compare (`Engine::eval`). Runs in this process: the docstring set needs
//! a scratch index beside this one.

use anyhow::{Context as _, Result};
use clap::Args;
use ken_engine::Engine;
use ken_engine::api::{EvalReport, EvalRequest};
use plotters::prelude::*;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct EvalArgs {
    /// Queries per set (1 to 1000): the same sample on every run.
    #[arg(short = 'n', long, default_value_t = 50, value_name = "N")]
    queries: usize,
    /// A ranking configuration to run beside the defaults, as `key = value,
    /// …` over `[search.ranking]`'s settings: `--compare 'rrf_k = 30'
    /// --compare 'file_boost = 0.5, prose_weights = [3, 1, 1]'`.
    #[arg(long, value_name = "SETTINGS")]
    compare: Vec<String>,
    /// Also score callers and subclasses, with the language servers on PATH
    /// (pyright, typescript-language-server, gopls, clangd…) as the oracle.
    #[arg(long)]
    lsp: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Also draw the results as a PNG here: a panel per set, each system's
    /// MRR@10 and Recall@10 as bars.
    #[arg(long, value_name = "FILE.png")]
    plot: Option<PathBuf>,
}

pub fn run(cwd: &Path, index_dir: Option<PathBuf>, args: EvalArgs) -> Result<()> {
    let mut options = crate::read::engine_options(&crate::read::index_dir_of(cwd, index_dir), cwd)?;
    options.shard_wait = Some(crate::search::reader_wait());
    // Checked before the evaluation, which takes a while, not after it.
    if let Some(dir) = args.plot.as_deref().and_then(Path::parent).filter(|d| !d.as_os_str().is_empty() && !d.is_dir()) {
        anyhow::bail!("cannot draw the plot into {}: {} is not a directory", args.plot.as_deref().unwrap_or(dir).display(), dir.display());
    }
    // The language servers are driven from a runtime, started and stopped here.
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the async runtime")?;
    let _entered = runtime.enter();
    options.lsp = args.lsp;
    // An oracle waits for the project to load, where a search's expansion
    // falls back to the graph after a moment.
    options.config.lsp.request_timeout_ms = options.config.lsp.request_timeout_ms.max(ORACLE_TIMEOUT_MS);
    let engine = Engine::open(options)?;
    let report = engine.eval(&EvalRequest { queries: Some(args.queries), compare: args.compare, lsp: args.lsp });
    runtime.block_on(engine.shutdown());
    let report = report?;
    if let Some(path) = &args.plot {
        plot(&report, path).with_context(|| format!("cannot draw the plot into {}", path.display()))?;
    }
    crate::output::print_answer(args.json, &report, render, &report.notes)
}

/// How long `--lsp` waits for a language server's answer, at least.
const ORACLE_TIMEOUT_MS: u64 = 120_000;

const PLOT_WIDTH: u32 = 960;
const ROW_HEIGHT: u32 = 30;
/// A panel's caption and axis, besides its rows.
const PANEL_CHROME: u32 = 92;
const MRR_COLOUR: RGBColor = RGBColor(31, 90, 160);
const RECALL_COLOUR: RGBColor = RGBColor(160, 196, 232);

/// `--plot`: the report as a PNG.
pub fn plot(report: &EvalReport, path: &Path) -> Result<()> {
    let root = BitMapBackend::new(path, (PLOT_WIDTH, plot_height(report))).into_drawing_area();
    draw(report, &root)?;
    root.present().map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(())
}

fn plot_height(report: &EvalReport) -> u32 {
    report.sets.iter().map(panel_height).sum::<u32>().max(1)
}

fn panel_height(set: &ken_engine::api::EvalSet) -> u32 {
    PANEL_CHROME + ROW_HEIGHT * set.rows.len().max(1) as u32
}

/// A panel per set: each system a row, its Recall@10 as a light bar and
/// its MRR@10 as a dark one inside it, the first system on top.
fn draw<B: DrawingBackend>(report: &EvalReport, root: &DrawingArea<B, plotters::coord::Shift>) -> Result<()> {
    let fail = |e: &dyn std::fmt::Display| anyhow::anyhow!("{e}");
    register_font();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let label_width = report.sets.iter().flat_map(|s| &s.rows).map(|r| r.system.chars().count()).max().unwrap_or(8).min(48) as u32 * 7 + 12;
    let mut rest = root.clone();
    for set in &report.sets {
        let n = set.rows.len();
        // `0..k` has k + 1 segments (and a range of one plotters cannot
        // divide): the rows take the top n, the first row the highest.
        let top_segment = n.max(2);
        let segment = |row: usize| top_segment - row;
        let (area, below) = rest.split_vertically(panel_height(set));
        rest = below;
        let mut chart = ChartBuilder::on(&area)
            .caption(format!("{} ({} queries)", set.name, set.queries), ("sans-serif", 18))
            .margin(8)
            .x_label_area_size(40)
            .y_label_area_size(label_width)
            .build_cartesian_2d(0f64..1f64, (0..top_segment).into_segmented())
            .map_err(|e| fail(&e))?;
        let names: Vec<&str> = set.rows.iter().map(|r| r.system.as_str()).collect();
        chart
            .configure_mesh()
            .disable_y_mesh()
            .light_line_style(WHITE)
            .y_labels(n.max(1))
            .y_label_formatter(&|v| match v {
                SegmentValue::CenterOf(s) => {
                    top_segment.checked_sub(*s).and_then(|row| names.get(row)).map(|n| n.chars().take(48).collect()).unwrap_or_default()
                }
                _ => String::new(),
            })
            .x_desc("MRR@10 (dark) · Recall@10 (light)")
            .label_style(("sans-serif", 13))
            .draw()
            .map_err(|e| fail(&e))?;
        for (i, row) in set.rows.iter().enumerate() {
            let y = segment(i);
            let bar = |value: f64, colour: RGBColor, margin: u32| {
                let mut r =
                    Rectangle::new([(0.0, SegmentValue::Exact(y)), (value.clamp(0.0, 1.0), SegmentValue::Exact(y + 1))], colour.filled());
                r.set_margin(margin, margin, 0, 0);
                r
            };
            chart.draw_series([bar(row.recall_at_10, RECALL_COLOUR, 3), bar(row.mrr_at_10, MRR_COLOUR, 8)]).map_err(|e| fail(&e))?;
        }
    }
    Ok(())
}

/// Plotters finds a family by name among the fonts given to it.
fn register_font() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, epaint_default_fonts::UBUNTU_LIGHT);
    });
}

/// A table per set: each system's MRR@10, Recall@10 and latency.
pub fn render(report: &EvalReport) -> String {
    let mut out = String::new();
    for set in &report.sets {
        let _ = writeln!(out, "{} ({} queries)", set.name, set.queries);
        // Callers and subclasses are sets: how much of the answer is right too.
        let precise = set.rows.iter().any(|r| r.precision.is_some());
        let precision_head = if precise { format!(" {:>9}", "Precision") } else { String::new() };
        let _ = writeln!(out, "  {:<44} {:>7} {:>10}{precision_head} {:>8} {:>8}", "system", "MRR@10", "Recall@10", "p50 ms", "p95 ms");
        for row in &set.rows {
            let precision = row.precision.map(|p| format!(" {p:>9.3}")).unwrap_or_default();
            let _ = writeln!(
                out,
                "  {:<44} {:>7.3} {:>10.3}{precision} {:>8.1} {:>8.1}",
                row.system, row.mrr_at_10, row.recall_at_10, row.p50_ms, row.p95_ms
            );
        }
        out.push('\n');
    }
    let _ = writeln!(out, "{:.1} s in all", report.seconds);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ken_engine::api::{EvalRow, EvalSet};

    fn row(system: &str, mrr: f64, recall: f64) -> EvalRow {
        EvalRow { system: system.into(), mrr_at_10: mrr, recall_at_10: recall, precision: None, p50_ms: 1.0, p95_ms: 2.0 }
    }

    /// Per bar, top to bottom: the widest run of `colour` (pixels in a row).
    fn bar_widths(pixels: &[u8], width: u32, colour: RGBColor) -> Vec<usize> {
        let mut bars: Vec<usize> = Vec::new();
        let mut inside = false;
        for line in pixels.chunks(width as usize * 3) {
            let count = line.chunks(3).filter(|p| p == &[colour.0, colour.1, colour.2]).count();
            match (count > 0, inside) {
                (true, false) => bars.push(count),
                (true, true) => *bars.last_mut().expect("a bar") = count.max(*bars.last().expect("a bar")),
                _ => {}
            }
            inside = count > 0;
        }
        bars
    }

    #[test]
    fn each_systems_bars_are_drawn_to_scale_under_its_name() {
        let report = EvalReport {
            sets: vec![EvalSet {
                name: "identifier".into(),
                queries: 50,
                rows: vec![row("hybrid", 0.8, 1.0), row("lexical", 0.4, 0.75)],
                misses: vec![],
            }],
            notes: vec![],
            seconds: 1.0,
        };
        let (width, height) = (PLOT_WIDTH, plot_height(&report));
        let mut pixels = vec![0u8; (width * height * 3) as usize];
        {
            let root = BitMapBackend::with_buffer(&mut pixels, (width, height)).into_drawing_area();
            draw(&report, &root).unwrap();
            root.present().unwrap();
        }
        let mrr = bar_widths(&pixels, width, MRR_COLOUR);
        let recall = bar_widths(&pixels, width, RECALL_COLOUR);
        assert_eq!((mrr.len(), recall.len()), (2, 2), "a bar of each per system: {mrr:?} {recall:?}");
        let ratio = |bars: &[usize]| bars[1] as f64 / bars[0] as f64;
        assert!((ratio(&mrr) - 0.5).abs() < 0.02, "MRR to scale: {mrr:?}");
        assert!((ratio(&recall) - 0.75).abs() < 0.02, "Recall to scale: {recall:?}");
        // The names are written left of the bars, in the built-in font.
        let ink =
            pixels.chunks(width as usize * 3).flat_map(|line| line[..60 * 3].chunks(3)).filter(|p| p.iter().all(|&c| c < 128)).count();
        assert!(ink > 40, "system names drawn: {ink} dark pixels");

        let file = tempfile::tempdir().unwrap();
        let png = file.path().join("eval.png");
        plot(&report, &png).unwrap();
        let bytes = std::fs::read(&png).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        let dimension = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
        assert_eq!((dimension(16), dimension(20)), (width, height), "IHDR");
    }
}
