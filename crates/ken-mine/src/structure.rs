//! Documents, configuration and plain text, mined by their structure: no
//! grammar and no references. Sections under headings (Markdown,
//! reStructuredText, AsciiDoc) and units under top-level keys, tables,
//! jobs, services, stages and targets (YAML, TOML, JSON, INI, Dockerfile,
//! Makefile) become symbols of kind `doc` or `config`, named by their
//! heading or key path (`README.md > Install > From source`,
//! `.github/workflows/ci.yml > jobs.test`). Each unit's own lines (up to
//! the next heading) are chunked within the budget; lines before the first
//! heading, and any other text, are line windows named after the file.

use crate::naming::{naming, qualify};
use ken_core::{Chunk, ChunkBudget, Family, FileAnalysis, Language, Span, Symbol, SymbolKind};

/// A heading or key that opens a unit: its first 0-based row, nesting level
/// (1 is the top) and title, and where its text starts (after an underline).
#[derive(Clone, Debug)]
struct Heading {
    row: usize,
    level: usize,
    title: String,
    /// The row holding the title (an rST overline comes before it).
    title_row: usize,
    /// The first row of the section's text.
    body_row: usize,
}

impl Heading {
    /// A heading on one line, its text on the next.
    fn line(row: usize, level: usize, title: String) -> Heading {
        Heading { row, level, title, title_row: row, body_row: row + 1 }
    }
}

pub(crate) fn mine(path: &str, language: Language, source: &str, budget: &ChunkBudget) -> FileAnalysis {
    let lines: Vec<&str> = source.split_inclusive('\n').collect();
    let naming = naming(language, path, None);
    let headings = match language {
        Language::Markdown => markdown(&lines),
        Language::Rst => rst(&lines),
        Language::AsciiDoc => asciidoc(&lines),
        Language::Yaml => yaml(&lines),
        Language::Toml => toml(&lines),
        Language::Json => json(&lines),
        Language::Ini => ini(&lines),
        Language::Dockerfile => dockerfile(&lines),
        Language::Make => makefile(&lines),
        _ => Vec::new(),
    };
    let line_count = lines.len() as u32;
    let mut symbols = vec![crate::symbols::module_symbol(&naming, source, line_count)];
    let starts = line_starts(&lines);
    let kind = if language.family() == Family::Doc { SymbolKind::Doc } else { SymbolKind::Config };
    let joiner = if language.family() == Family::Doc { " > " } else { "." };
    // The symbol of each heading, and the open headings (level, symbol) above the current one.
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let mut own_ranges: Vec<(usize, usize, u32)> = Vec::new();
    for (i, h) in headings.iter().enumerate() {
        let end_row = headings.get(i + 1).map_or(lines.len(), |next| next.row).saturating_sub(1).max(h.row);
        while stack.last().is_some_and(|&(level, _)| level >= h.level) {
            stack.pop();
        }
        let parent = stack.last().map(|&(_, s)| s);
        let local_path = match parent {
            Some(p) => format!("{}{joiner}{}", symbols[p].local_path, h.title),
            None => h.title.clone(),
        };
        let index = symbols.len();
        symbols.push(Symbol {
            kind,
            name: h.title.clone(),
            qualified_name: qualify(&naming, &local_path),
            local_path,
            signature: lines[h.title_row].trim().chars().take(200).collect(),
            docstring: if kind == SymbolKind::Doc {
                ken_core::docstring::first_paragraph(lines.iter().take(end_row + 1).skip(h.body_row).copied()).map(|(text, _)| text)
            } else {
                None
            },
            span: span(&lines, &starts, h.row, end_row),
            name_line: h.title_row as u32 + 1,
            name_col: 1,
            parent: Some(parent.unwrap_or(0) as u32),
            return_type: None,
        });
        stack.push((h.level, index));
        own_ranges.push((h.row, end_row, index as u32));
    }
    let mut chunks = Vec::new();
    let first = headings.first().map_or(lines.len(), |h| h.row);
    if first > 0 {
        windows(&lines, &starts, 0, first - 1, None, budget, &mut chunks);
    }
    for (start, end, symbol) in own_ranges {
        windows(&lines, &starts, start, end, Some(symbol), budget, &mut chunks);
    }
    FileAnalysis { module: naming.module.clone(), symbols, chunks, lines: line_count, ..FileAnalysis::default() }
}

fn line_starts(lines: &[&str]) -> Vec<usize> {
    let mut starts = Vec::with_capacity(lines.len() + 1);
    let mut at = 0;
    for line in lines {
        starts.push(at);
        at += line.len();
    }
    starts.push(at);
    starts
}

fn span(lines: &[&str], starts: &[usize], first: usize, last: usize) -> Span {
    let last_text = lines.get(last).map_or("", |l| l.trim_end_matches(['\n', '\r']));
    Span {
        start_byte: starts[first] as u32,
        end_byte: (starts[last] + last_text.len()) as u32,
        start_line: first as u32 + 1,
        start_col: 1,
        end_line: last as u32 + 1,
        end_col: last_text.len() as u32 + 1,
    }
}

/// Rows `first..=last` as chunks of at most the budget's lines and
/// characters; consecutive windows of one unit share the overlap. Blank
/// windows are dropped.
fn windows(lines: &[&str], starts: &[usize], first: usize, last: usize, symbol: Option<u32>, budget: &ChunkBudget, out: &mut Vec<Chunk>) {
    let max_lines = budget.max_lines.max(1) as usize;
    let max_chars = budget.max_chars.max(1) as usize;
    let overlap = (budget.overlap_lines as usize).min(max_lines / 2);
    let mut start = first;
    while start <= last {
        let mut end = start;
        let mut chars = lines[start].len();
        while end < last && end + 1 - start < max_lines && chars + lines[end + 1].len() <= max_chars {
            end += 1;
            chars += lines[end].len();
        }
        if lines[start..=end].iter().any(|l| !l.trim().is_empty()) {
            let s = span(lines, starts, start, end);
            out.push(Chunk {
                start_line: s.start_line,
                end_line: s.end_line,
                start_byte: s.start_byte,
                end_byte: s.end_byte,
                symbol,
                class: None,
                method: None,
            });
        }
        if end >= last {
            break;
        }
        start = (end + 1).saturating_sub(overlap).max(start + 1);
    }
}

fn clean_title(t: &str) -> String {
    t.trim().chars().take(120).collect()
}

/// `<hN ...>Title</hN>` on one line: the level and the title without tags.
fn html_heading(line: &str) -> Option<(usize, String)> {
    let rest = line.strip_prefix("<h").or_else(|| line.strip_prefix("<H"))?;
    let level = rest.chars().next()?.to_digit(10)? as usize;
    if !(1..=6).contains(&level) || !rest[1..].starts_with(['>', ' ']) {
        return None;
    }
    let close = format!("</h{level}>");
    if !line.to_ascii_lowercase().trim_end().ends_with(&close) {
        return None;
    }
    let mut title = String::new();
    let mut in_tag = false;
    for c in line.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => title.push(c),
            _ => {}
        }
    }
    let title = title.trim().to_string();
    (!title.is_empty()).then_some((level, title))
}

/// The level of a line that only opens an HTML heading (`<h3 name="x">`).
fn html_heading_open(line: &str) -> Option<usize> {
    let rest = line.strip_prefix("<h").or_else(|| line.strip_prefix("<H"))?;
    let level = rest.chars().next()?.to_digit(10)? as usize;
    ((1..=6).contains(&level) && rest[1..].starts_with(['>', ' ']) && line.ends_with('>') && !line.contains("</")).then_some(level)
}

/// Markdown: ATX (`## Title`) and setext (underlined) headings, outside
/// fenced code and front matter.
fn markdown(lines: &[&str]) -> Vec<Heading> {
    let mut out: Vec<Heading> = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    let mut front_matter = lines.first().is_some_and(|l| l.trim_end() == "---");
    for (row, line) in lines.iter().enumerate() {
        let t = line.trim_end();
        if front_matter {
            if row > 0 && (t == "---" || t == "...") {
                front_matter = false;
            }
            continue;
        }
        let indent = t.len() - t.trim_start().len();
        let trimmed = t.trim_start();
        if indent <= 3
            && let Some(marker) = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')
        {
            let run = trimmed.chars().take_while(|c| *c == marker).count();
            if run >= 3 {
                match fence {
                    None => fence = Some((marker, run)),
                    Some((m, n)) if m == marker && run >= n && trimmed[run..].trim().is_empty() => fence = None,
                    Some(_) => {}
                }
                continue;
            }
        }
        if fence.is_some() || indent > 3 {
            continue;
        }
        // An HTML heading on its own line (`<h3 name="x">Title</h3>`), as FAQs write them.
        if let Some((level, title)) = html_heading(trimmed) {
            out.push(Heading::line(row, level, clean_title(&title)));
            continue;
        }
        // Or over a few lines: `<h3 name="x">`, the title, `</h3>`.
        if let Some(level) = html_heading_open(trimmed)
            && let Some(close) =
                (row + 1..lines.len().min(row + 5)).find(|&r| lines[r].trim().eq_ignore_ascii_case(&format!("</h{level}>")))
        {
            let title = lines[row + 1..close].iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
            if let Some((_, title)) = html_heading(&format!("<h{level}>{title}</h{level}>")) {
                out.push(Heading { row, level, title: clean_title(&title), title_row: row + 1, body_row: close + 1 });
            }
            continue;
        }
        let hashes = trimmed.chars().take_while(|c| *c == '#').count();
        if (1..=6).contains(&hashes) && trimmed[hashes..].chars().next().is_none_or(char::is_whitespace) {
            let title = trimmed[hashes..].trim().trim_end_matches('#').trim();
            if !title.is_empty() {
                out.push(Heading::line(row, hashes, clean_title(title)));
            }
            continue;
        }
        // Setext: a line of `=` or `-` under a line of text.
        if row > 0
            && !trimmed.is_empty()
            && (trimmed.chars().all(|c| c == '=') || (trimmed.len() >= 2 && trimmed.chars().all(|c| c == '-')))
        {
            let above = lines[row - 1].trim();
            let above_is_heading = out.last().is_some_and(|h| h.row == row - 1);
            if !above.is_empty() && !above_is_heading && !above.starts_with(['-', '*', '>', '|', '#']) {
                let level = if trimmed.starts_with('=') { 1 } else { 2 };
                out.push(Heading { row: row - 1, level, title: clean_title(above), title_row: row - 1, body_row: row + 1 });
            }
        }
    }
    out
}

/// reStructuredText: a title over an underline (and maybe an overline) of
/// one punctuation character; levels in the order the styles first appear.
fn rst(lines: &[&str]) -> Vec<Heading> {
    const ADORN: &str = "=-~^\"'`#*+:._";
    let adornment = |l: &str| -> Option<char> {
        let t = l.trim_end();
        let c = t.chars().next()?;
        (t.len() >= 3 && ADORN.contains(c) && t.chars().all(|x| x == c)).then_some(c)
    };
    let mut styles: Vec<(char, bool)> = Vec::new();
    let mut out = Vec::new();
    let mut row = 0;
    while row + 1 < lines.len() {
        let title = lines[row].trim_end();
        let plain = !title.is_empty() && !title.starts_with(char::is_whitespace) && adornment(title).is_none();
        if let (true, Some(c)) = (plain, adornment(lines[row + 1]))
            && lines[row + 1].trim_end().chars().count() >= title.trim().chars().count()
        {
            let over = row > 0 && adornment(lines[row - 1]) == Some(c);
            let style = (c, over);
            let level = match styles.iter().position(|s| *s == style) {
                Some(i) => i + 1,
                None => {
                    styles.push(style);
                    styles.len()
                }
            };
            out.push(Heading {
                row: if over { row - 1 } else { row },
                level,
                title: clean_title(title),
                title_row: row,
                body_row: row + 2,
            });
            row += 2;
            continue;
        }
        row += 1;
    }
    out
}

/// AsciiDoc: `= Title`, `== Section`, … outside `----` and `....` blocks.
fn asciidoc(lines: &[&str]) -> Vec<Heading> {
    let mut out = Vec::new();
    let mut block: Option<&str> = None;
    for (row, line) in lines.iter().enumerate() {
        let t = line.trim_end();
        if matches!(t, "----" | "...." | "````") {
            block = if block == Some(t) { None } else { block.or(Some(t)) };
            continue;
        }
        if block.is_some() {
            continue;
        }
        let eq = t.chars().take_while(|c| *c == '=').count();
        if (1..=6).contains(&eq) && t[eq..].starts_with(' ') && !t[eq..].trim().is_empty() {
            out.push(Heading::line(row, eq, clean_title(&t[eq..])));
        }
    }
    out
}

/// A `key:` at the start of a YAML line (quoted or plain); `None` for
/// comments, list items and document markers.
fn yaml_key(line: &str) -> Option<&str> {
    let t = line.trim_end();
    if t.is_empty() || t.starts_with(['#', '-', ' ', '\t', '%', '!', '&', '*', '|', '>']) || t == "..." {
        return None;
    }
    let key_end = if t.starts_with(['"', '\'']) {
        let quote = t.chars().next()?;
        t[1..].find(quote)? + 2
    } else {
        t.find(": ").or_else(|| t.ends_with(':').then(|| t.len() - 1))?
    };
    let rest = &t[key_end..];
    if !rest.starts_with(':') {
        return None;
    }
    let key = t[..key_end].trim().trim_matches(['"', '\'']);
    (!key.is_empty() && !key.contains(" #")).then_some(key)
}

/// YAML: top-level keys; under `jobs`, `services` and `workflows` (CI
/// pipelines, Compose files), their keys too.
fn yaml(lines: &[&str]) -> Vec<Heading> {
    let mut out = Vec::new();
    let mut nested_indent: Option<usize> = None;
    let mut in_group = false;
    for (row, line) in lines.iter().enumerate() {
        let indent = line.len() - line.trim_start().len();
        if indent == 0 {
            if let Some(key) = yaml_key(line) {
                out.push(Heading::line(row, 1, clean_title(key)));
                in_group = matches!(key, "jobs" | "services" | "workflows");
                nested_indent = None;
            }
            continue;
        }
        if !in_group || line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let want = *nested_indent.get_or_insert(indent);
        if indent == want
            && let Some(key) = yaml_key(line.trim_start())
        {
            out.push(Heading::line(row, 2, clean_title(key)));
        }
    }
    out
}

/// TOML: each `[table]` or `[[array]]`, and each key before the first table.
fn toml(lines: &[&str]) -> Vec<Heading> {
    let mut out = Vec::new();
    let mut in_table = false;
    for (row, line) in lines.iter().enumerate() {
        let t = line.trim();
        if t.starts_with('[') {
            let name = t.trim_start_matches('[').split(']').next().unwrap_or("").trim();
            if !name.is_empty() {
                out.push(Heading::line(row, 1, clean_title(name)));
                in_table = true;
            }
        } else if !in_table
            && !t.starts_with('#')
            && let Some((key, _)) = t.split_once('=')
        {
            let key = key.trim().trim_matches(['"', '\'']);
            if !key.is_empty() && line.starts_with(|c: char| !c.is_whitespace()) {
                out.push(Heading::line(row, 1, clean_title(key)));
            }
        }
    }
    out
}

/// JSON: the keys of the top-level object.
fn json(lines: &[&str]) -> Vec<Heading> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut root_is_object = None;
    let mut string: Option<String> = None;
    let mut escaped = false;
    let mut last_string: Option<(String, usize)> = None;
    for (row, line) in lines.iter().enumerate() {
        for c in line.chars() {
            if let Some(s) = string.as_mut() {
                if escaped {
                    escaped = false;
                    s.push(c);
                } else if c == '\\' {
                    escaped = true;
                } else if c == '"' {
                    last_string = string.take().map(|s| (s, row));
                } else {
                    s.push(c);
                }
                continue;
            }
            match c {
                '"' => string = Some(String::new()),
                '{' | '[' => {
                    root_is_object.get_or_insert(c == '{');
                    depth += 1;
                    last_string = None;
                }
                '}' | ']' => {
                    depth = depth.saturating_sub(1);
                    last_string = None;
                }
                ':' => {
                    if depth == 1
                        && root_is_object == Some(true)
                        && let Some((key, key_row)) = last_string.take()
                    {
                        out.push(Heading::line(key_row, 1, clean_title(&key)));
                    }
                }
                c if c.is_whitespace() => {}
                _ => last_string = None,
            }
        }
        if out.len() > 10_000 {
            break;
        }
    }
    out
}

/// INI and `.env`: `[sections]`, and each key before the first section.
fn ini(lines: &[&str]) -> Vec<Heading> {
    let mut out = Vec::new();
    let mut in_section = false;
    for (row, line) in lines.iter().enumerate() {
        let t = line.trim();
        if t.starts_with('[') && t.ends_with(']') && t.len() > 2 {
            out.push(Heading::line(row, 1, clean_title(&t[1..t.len() - 1])));
            in_section = true;
        } else if !in_section && !t.starts_with(['#', ';']) && line.starts_with(|c: char| !c.is_whitespace()) {
            let t = t.strip_prefix("export ").unwrap_or(t);
            if let Some((key, _)) = t.split_once(['=', ':']) {
                let key = key.trim();
                if !key.is_empty() && !key.contains(' ') {
                    out.push(Heading::line(row, 1, clean_title(key)));
                }
            }
        }
    }
    out
}

/// Dockerfile: each stage, from its `FROM` (named by `AS name`, else the image).
fn dockerfile(lines: &[&str]) -> Vec<Heading> {
    let mut out = Vec::new();
    for (row, line) in lines.iter().enumerate() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.first().is_some_and(|w| w.eq_ignore_ascii_case("FROM")) {
            let image = words.iter().skip(1).find(|w| !w.starts_with("--")).copied().unwrap_or("stage");
            let name = match words.iter().position(|w| w.eq_ignore_ascii_case("AS")) {
                Some(i) => words.get(i + 1).copied().unwrap_or(image),
                None => image,
            };
            out.push(Heading::line(row, 1, clean_title(name)));
        }
    }
    out
}

/// Makefile: each rule's targets (`build test: deps`), not variables,
/// recipes or special targets (`.PHONY`).
fn makefile(lines: &[&str]) -> Vec<Heading> {
    let mut out = Vec::new();
    for (row, line) in lines.iter().enumerate() {
        if line.starts_with(['\t', ' ', '#', '.']) {
            continue;
        }
        let Some(colon) = line.find(':') else { continue };
        let (targets, rest) = (&line[..colon], &line[colon + 1..]);
        if rest.starts_with('=') || targets.contains('=') || targets.trim().is_empty() {
            continue; // `x := y` is a variable
        }
        if targets.split_whitespace().all(|t| t.chars().all(|c| c.is_alphanumeric() || "_-./%$(){}".contains(c))) {
            out.push(Heading::line(row, 1, clean_title(targets)));
        }
    }
    out
}
