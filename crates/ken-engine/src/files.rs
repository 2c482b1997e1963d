//! Reading the indexed files themselves: a file's outline, and a grep over
//! the text as it was indexed (so its line numbers agree with every other
//! answer, whatever the disk holds since).

use crate::api::{FileOutline, GrepMatch, GrepRequest, GrepResponse, OutlineRequest};
use crate::{Engine, Error, ErrorKind};

const DEFAULT_GREP_LIMIT: usize = 100;
const MAX_LINE_CHARS: usize = 300;

impl Engine {
    pub fn outline(&self, request: &OutlineRequest) -> Result<FileOutline, Error> {
        let path = request.path.trim().trim_start_matches("./").to_string();
        let store = self.store()?;
        match store.outline(&path)? {
            Some(symbols) => Ok(FileOutline { path, symbols }),
            None => Err(Error::new(ErrorKind::NotFound, format!("`{path}` is not an indexed file"))),
        }
    }

    pub fn grep(&self, request: &GrepRequest) -> Result<GrepResponse, Error> {
        request.validate()?;
        let pattern = if request.literal { regex::escape(&request.pattern) } else { request.pattern.clone() };
        let regex = regex::RegexBuilder::new(&pattern)
            .case_insensitive(request.case_insensitive)
            .size_limit(1 << 22)
            .build()
            .map_err(|e| Error::invalid("pattern", format!("is not a regular expression: {e}")))?;
        let limit = request.limit.unwrap_or(DEFAULT_GREP_LIMIT);
        let under = request.path.as_deref().map(|p| p.trim().trim_start_matches("./").trim_end_matches('/').to_string());
        let dir = under.as_ref().map(|u| format!("{u}/"));
        let store = self.store()?;
        let mut paths: Vec<String> = store.file_paths()?.into_iter().map(|(_, p)| p).collect();
        paths.sort();
        let mut response = GrepResponse { pattern: request.pattern.clone(), matches: Vec::new(), files_searched: 0, truncated: false };
        for path in paths {
            if let (Some(under), Some(dir)) = (&under, &dir)
                && !(under.is_empty() || path == *under || path.starts_with(dir.as_str()))
            {
                continue;
            }
            let Some(text) = store.file_text(&path)? else { continue };
            response.files_searched += 1;
            for (i, line) in text.lines().enumerate() {
                if !regex.is_match(line) {
                    continue;
                }
                if response.matches.len() == limit {
                    response.truncated = true;
                    return Ok(response);
                }
                let shown: String = line.chars().take(MAX_LINE_CHARS).collect();
                response.matches.push(GrepMatch { path: path.clone(), line: i as u32 + 1, text: shown });
            }
        }
        Ok(response)
    }
}
