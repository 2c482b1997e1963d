//! Requests: one operation through the cache, the LSP calls behind it,
//! and the conversion of answers into Kenning's paths and positions.

use super::*;

impl Inner {
    pub(super) async fn run<T: Clone + Send + Sync + 'static>(
        self: &Arc<Self>,
        op: Op,
        at: &SymbolPosition,
    ) -> Result<Answer<T>, LspError> {
        let idx = self.resolve(&at.language)?;
        let slot = &self.slots[idx];
        let abs = self.canonical_root.join(&at.path);
        let key = CacheKey { op, path: at.path.clone(), line: at.line, col: at.col };
        let mtime = tokio::fs::metadata(&abs).await.ok().and_then(|m| m.modified().ok());
        if let Some(hit) = self.cache_get::<T>(&key, mtime) {
            slot.cache_hits.fetch_add(1, Ordering::Relaxed);
            return Ok(hit);
        }
        let (text, mtime) = read_source(&abs, &at.path, &self.root).await?;

        let admission = self.admit(slot)?;
        let conn = self.ensure_conn(idx).await.inspect_err(|e| self.failed(slot, e))?;
        conn.sync_doc(&abs, &language_id(&at.language, &abs), &text, mtime).await;
        let (line0, byte) = anchor(&text, at.line, at.col, &at.name);
        let character = nth_line(&text, line0).map_or(byte as u32, |l| byte_to_units(l, byte, conn.encoding));
        let files = Files { inner: self, encoding: conn.encoding, texts: FxHashMap::default() };
        let mut ctx = Ctx { slot, uri: path_to_uri(&abs), position: json!({ "line": line0, "character": character }), conn, files };
        ctx.files.texts.insert(abs.clone(), Some(text));

        let (value, fallback): (Arc<dyn Any + Send + Sync>, Option<String>) = match op {
            Op::References => (Arc::new(self.references(&mut ctx).await?), None),
            Op::Definition => (Arc::new(self.definition(&mut ctx).await?), None),
            Op::Implementations => (Arc::new(self.implementations(&mut ctx).await?), None),
            Op::Hover => (Arc::new(self.hover(&mut ctx).await?), None),
            Op::IncomingCalls => {
                let (calls, fallback) = self.incoming_calls(&mut ctx, at).await?;
                (Arc::new(calls), fallback)
            }
        };
        drop(admission);
        let server = slot.spec.name.clone();
        let Some(typed) = value.downcast_ref::<T>().cloned() else {
            return Err(LspError::Io(format!("internal error: {op:?} produced an unexpected type")));
        };
        self.cache_put(key, CacheEntry { mtime, stored: Instant::now(), server: server.clone(), fallback: fallback.clone(), value });
        Ok(Answer { value: typed, server, cached: false, fallback })
    }

    pub(super) fn cache_get<T: Clone + 'static>(&self, key: &CacheKey, mtime: Option<SystemTime>) -> Option<Answer<T>> {
        let cache = lock(&self.cache);
        let entry = cache.get(key)?;
        if entry.mtime != mtime || mtime.is_none() || entry.stored.elapsed() >= self.config.cache_ttl {
            return None;
        }
        Some(Answer {
            value: entry.value.downcast_ref::<T>()?.clone(),
            server: entry.server.clone(),
            cached: true,
            fallback: entry.fallback.clone(),
        })
    }

    pub(super) fn cache_put(&self, key: CacheKey, entry: CacheEntry) {
        let mut cache = lock(&self.cache);
        if cache.len() >= MAX_CACHE_ENTRIES {
            let ttl = self.config.cache_ttl;
            cache.retain(|_, e| e.stored.elapsed() < ttl);
            if cache.len() >= MAX_CACHE_ENTRIES {
                cache.clear();
            }
        }
        cache.insert(key, entry);
    }

    /// One request: a permit, the send, the answer, all within `request_timeout`.
    pub(super) async fn request(&self, ctx: &Ctx<'_>, method: &str, params: Value) -> Result<Value, Failed> {
        let slot = ctx.slot;
        let server = &slot.spec.name;
        let budget = self.config.request_timeout;
        let deadline = tokio::time::Instant::now() + budget;
        let timeout = || LspError::Timeout { server: server.clone(), method: method.to_owned(), ms: millis(budget) };
        slot.requests.fetch_add(1, Ordering::Relaxed);
        let result = async {
            let Ok(permit) = tokio::time::timeout_at(deadline, self.permits.acquire()).await else {
                return Err(Failed::from(timeout()));
            };
            let shared = ctx.conn.shared();
            let (id, rx) = shared.start_request(method, params).map_err(|e| self.call_error(server, method, e))?;
            let reply = tokio::time::timeout_at(deadline, rx).await;
            drop(permit);
            match reply {
                Err(_) => {
                    shared.cancel(id);
                    Err(Failed::from(timeout()))
                }
                Ok(Err(_)) => Err(self.call_error(server, method, shared.dead_error())),
                Ok(Ok(reply)) => reply.map_err(|e| self.call_error(server, method, e)),
            }
        }
        .await;
        match &result {
            Ok(_) => self.succeeded(slot),
            // "Not supported" is an answer, and callers fall back on it.
            Err(Failed { code: Some(METHOD_NOT_FOUND), error }) => debug!(%server, "{error}"),
            // "Try again" is a healthy server's answer: no breaker.
            Err(Failed { code: Some(CONTENT_MODIFIED | REQUEST_CANCELLED), error }) => {
                slot.failures.fetch_add(1, Ordering::Relaxed);
                debug!(%server, "{error}");
            }
            Err(Failed { error, .. }) => self.failed(slot, error),
        }
        result
    }

    pub(super) fn call_error(&self, server: &str, method: &str, e: CallError) -> Failed {
        match e {
            CallError::Rpc { code, message } => Failed {
                code: Some(code),
                error: LspError::Server {
                    server: server.to_owned(),
                    method: method.to_owned(),
                    detail: format!("{message} (code {code})"),
                },
            },
            CallError::Crashed(detail) => Failed::from(LspError::Crashed { server: server.to_owned(), detail }),
        }
    }

    pub(super) fn position_params(ctx: &Ctx<'_>) -> Value {
        json!({ "textDocument": { "uri": ctx.uri }, "position": ctx.position })
    }

    pub(super) async fn references(&self, ctx: &mut Ctx<'_>) -> Result<Vec<Location>, LspError> {
        let mut params = Self::position_params(ctx);
        params["context"] = json!({ "includeDeclaration": false });
        let reply = self.request(ctx, "textDocument/references", params).await.map_err(|f| f.error)?;
        Ok(locations(ctx, as_array(&reply)))
    }

    pub(super) async fn definition(&self, ctx: &mut Ctx<'_>) -> Result<Vec<Location>, LspError> {
        let params = Self::position_params(ctx);
        let reply = self.request(ctx, "textDocument/definition", params).await.map_err(|f| f.error)?;
        // Location | Location[] | LocationLink[] | null
        if reply.is_object() { Ok(locations(ctx, std::slice::from_ref(&reply))) } else { Ok(locations(ctx, as_array(&reply))) }
    }

    pub(super) async fn implementations(&self, ctx: &mut Ctx<'_>) -> Result<Vec<Location>, LspError> {
        const METHOD: &str = "textDocument/implementation";
        let unsupported = || LspError::Unsupported { server: ctx.slot.spec.name.clone(), method: METHOD.to_owned() };
        if !capable(&ctx.conn.caps, "implementationProvider") {
            return Err(unsupported());
        }
        let params = Self::position_params(ctx);
        let reply = match self.request(ctx, METHOD, params).await {
            Ok(reply) => reply,
            Err(Failed { code: Some(METHOD_NOT_FOUND), .. }) => return Err(unsupported()),
            Err(f) => return Err(f.error),
        };
        // Location | Location[] | LocationLink[] | null, as for definitions.
        if reply.is_object() { Ok(locations(ctx, std::slice::from_ref(&reply))) } else { Ok(locations(ctx, as_array(&reply))) }
    }

    pub(super) async fn hover(&self, ctx: &mut Ctx<'_>) -> Result<Option<String>, LspError> {
        let params = Self::position_params(ctx);
        let reply = self.request(ctx, "textDocument/hover", params).await.map_err(|f| f.error)?;
        let Some(contents) = reply.get("contents") else {
            return Ok(None);
        };
        let text = match serde_json::from_value::<lsp_types::HoverContents>(contents.clone()) {
            Ok(lsp_types::HoverContents::Markup(m)) => m.value,
            Ok(lsp_types::HoverContents::Scalar(s)) => marked(s),
            Ok(lsp_types::HoverContents::Array(items)) => items.into_iter().map(marked).collect::<Vec<_>>().join("\n\n"),
            Err(e) => {
                debug!(server = %ctx.slot.spec.name, "unreadable hover contents: {e}");
                return Ok(None);
            }
        };
        let text = text.trim().to_owned();
        Ok((!text.is_empty()).then_some(text))
    }

    pub(super) async fn incoming_calls(&self, ctx: &mut Ctx<'_>, at: &SymbolPosition) -> Result<(Vec<CallSite>, Option<String>), LspError> {
        let server = ctx.slot.spec.name.clone();
        if !capable(&ctx.conn.caps, "callHierarchyProvider") {
            let note = format!("callHierarchy unsupported by {server}; used references");
            return self.calls_from_references(ctx, at, note).await;
        }
        let params = Self::position_params(ctx);
        let items = match self.request(ctx, "textDocument/prepareCallHierarchy", params).await {
            Ok(Value::Array(items)) if !items.is_empty() => items,
            Ok(_) => {
                let note = format!("callHierarchy found no item at the symbol in {server}; used references");
                return self.calls_from_references(ctx, at, note).await;
            }
            Err(Failed { code: Some(METHOD_NOT_FOUND), .. }) => {
                let note = format!("callHierarchy unsupported by {server}; used references");
                return self.calls_from_references(ctx, at, note).await;
            }
            Err(f) => return Err(f.error),
        };
        let mut sites = Vec::new();
        // Several items mean overloads or ambiguity; a few are plenty.
        for item in items.into_iter().take(4) {
            let reply = match self.request(ctx, "callHierarchy/incomingCalls", json!({ "item": item })).await {
                Ok(reply) => reply,
                Err(Failed { code: Some(METHOD_NOT_FOUND), .. }) => {
                    let note = format!("callHierarchy/incomingCalls unsupported by {server}; used references");
                    return self.calls_from_references(ctx, at, note).await;
                }
                Err(f) => return Err(f.error),
            };
            for call in as_array(&reply) {
                if let Some(site) = ctx.files.call_site(call) {
                    sites.push(site);
                }
            }
        }
        sites.sort();
        sites.dedup();
        Ok((sites, None))
    }

    /// Call hierarchy by hand: references, each attributed to the innermost
    /// function or method around it (from `documentSymbol`), else to its file.
    pub(super) async fn calls_from_references(
        &self,
        ctx: &mut Ctx<'_>,
        at: &SymbolPosition,
        note: String,
    ) -> Result<(Vec<CallSite>, Option<String>), LspError> {
        let refs = self.references(ctx).await?;
        let mut by_file: BTreeMap<String, Vec<Location>> = BTreeMap::new();
        for r in refs {
            by_file.entry(r.path.clone()).or_default().push(r);
        }
        let mut sites: BTreeMap<(Location, String), CallSite> = BTreeMap::new();
        for (path, refs) in by_file {
            let symbols = self.enclosing_candidates(ctx, &path, &at.language).await;
            for r in refs {
                let pos = (r.start_line, r.start_col);
                let enclosing = symbols
                    .iter()
                    .filter(|s| s.range.0 <= pos && pos < s.range.1)
                    .min_by_key(|s| (s.range.1.0 - s.range.0.0, s.range.1.1.wrapping_sub(s.range.0.1)));
                let (name, kind, location) = match enclosing {
                    Some(s) if (s.location.start_line, s.location.start_col) == pos => continue, // the definition itself
                    Some(s) => (s.name.clone(), Some(s.kind.clone()), s.location.clone()),
                    None => {
                        let start = Location { path: path.clone(), start_line: 1, start_col: 1, end_line: 1, end_col: 1 };
                        (path.clone(), Some("file".to_owned()), start)
                    }
                };
                sites
                    .entry((location.clone(), name.clone()))
                    .or_insert_with(|| CallSite { name, kind, location, from: Vec::new() })
                    .from
                    .push(r);
            }
        }
        Ok((sites.into_values().collect(), Some(note)))
    }

    /// Functions, methods, constructors and classes of one file, in Kenning
    /// coordinates; empty when the server cannot say.
    pub(super) async fn enclosing_candidates(&self, ctx: &mut Ctx<'_>, path: &str, language: &str) -> Vec<Symbol> {
        if !capable(&ctx.conn.caps, "documentSymbolProvider") {
            return Vec::new();
        }
        let abs = self.canonical_root.join(path);
        if Path::new(path).is_absolute() {
            return Vec::new(); // outside the project: not ours to open
        }
        let Ok((text, mtime)) = read_source(&abs, path, &self.root).await else {
            return Vec::new();
        };
        ctx.conn.sync_doc(&abs, &language_id(language, &abs), &text, mtime).await;
        ctx.files.texts.insert(abs.clone(), Some(text));
        let uri = path_to_uri(&abs);
        let params = json!({ "textDocument": { "uri": uri } });
        let Ok(reply) = self.request(ctx, "textDocument/documentSymbol", params).await else {
            return Vec::new();
        };
        let mut out = Vec::new();
        ctx.files.symbols(&abs, &uri, as_array(&reply), &mut out);
        out
    }
}

pub(super) struct Symbol {
    name: String,
    kind: String,
    /// Whole extent, (line, col) pairs, end exclusive.
    range: ((u32, u32), (u32, u32)),
    /// The name.
    location: Location,
}

/// Files read while converting one answer, and the encoding to convert with.
pub(super) struct Files<'a> {
    inner: &'a Inner,
    encoding: Encoding,
    texts: FxHashMap<PathBuf, Option<String>>,
}

impl Files<'_> {
    pub(super) fn location(&mut self, uri: &str, range: &Value) -> Option<Location> {
        let range: lsp_types::Range = serde_json::from_value(range.clone()).ok()?;
        let Some(abs) = uri_to_path(uri) else {
            debug!("skipping a location outside the file system: {uri}");
            return None;
        };
        let (start_line, start_col) = self.point(&abs, range.start);
        let (end_line, end_col) = self.point(&abs, range.end);
        Some(Location { path: self.inner.display_path(&abs), start_line, start_col, end_line, end_col })
    }

    pub(super) fn point(&mut self, abs: &Path, pos: lsp_types::Position) -> (u32, u32) {
        let line = pos.line + 1;
        if self.encoding == Encoding::Utf8 {
            return (line, pos.character + 1);
        }
        let text =
            self.texts.entry(abs.to_owned()).or_insert_with(|| std::fs::read(abs).ok().map(|b| String::from_utf8_lossy(&b).into_owned()));
        // Unreadable: assume ASCII, where all encodings agree.
        let byte = match text.as_deref().and_then(|t| nth_line(t, pos.line as usize)) {
            Some(l) => units_to_byte(l, pos.character, self.encoding),
            None => pos.character as usize,
        };
        (line, byte as u32 + 1)
    }

    pub(super) fn call_site(&mut self, call: &Value) -> Option<CallSite> {
        let from = call.get("from")?;
        let uri = from.get("uri")?.as_str()?;
        let location = self.location(uri, from.get("selectionRange")?)?;
        let from_ranges = call.get("fromRanges").map(as_array).unwrap_or_default();
        let mut sites: Vec<Location> = from_ranges.iter().filter_map(|r| self.location(uri, r)).collect();
        sites.sort();
        Some(CallSite {
            name: from.get("name")?.as_str()?.to_owned(),
            kind: from.get("kind").and_then(Value::as_u64).and_then(symbol_kind).map(str::to_owned),
            location,
            from: sites,
        })
    }

    /// Flattens `DocumentSymbol[]` or `SymbolInformation[]`, keeping the
    /// kinds that can contain a call.
    pub(super) fn symbols(&mut self, abs: &Path, uri: &str, items: &[Value], out: &mut Vec<Symbol>) {
        for item in items {
            let name = item.get("name").and_then(Value::as_str).unwrap_or_default();
            let kind = item.get("kind").and_then(Value::as_u64).unwrap_or(0);
            let (range, selection) = match item.get("location") {
                Some(loc) => {
                    let range = loc.get("range");
                    let uri = loc.get("uri").and_then(Value::as_str).unwrap_or(uri);
                    (range.and_then(|r| self.location(uri, r)), None)
                }
                None => {
                    (item.get("range").and_then(|r| self.location(uri, r)), item.get("selectionRange").and_then(|r| self.location(uri, r)))
                }
            };
            // 5 class, 6 method, 9 constructor, 12 function.
            if let (Some(range), true) = (range, matches!(kind, 5 | 6 | 9 | 12)) {
                let location = selection.unwrap_or_else(|| self.name_location(abs, &range, name));
                out.push(Symbol {
                    name: name.to_owned(),
                    kind: symbol_kind(kind).unwrap_or("function").to_owned(),
                    range: ((range.start_line, range.start_col), (range.end_line, range.end_col)),
                    location,
                });
            }
            if let Some(children) = item.get("children").and_then(Value::as_array) {
                self.symbols(abs, uri, children, out);
            }
        }
    }

    /// `SymbolInformation` has only the whole range; find the name in it.
    pub(super) fn name_location(&mut self, abs: &Path, range: &Location, name: &str) -> Location {
        let text = self.texts.get(abs).and_then(|t| t.as_deref()).unwrap_or("");
        let (line0, byte) = anchor(text, range.start_line, range.start_col, name);
        let (line, col) = (line0 as u32 + 1, byte as u32 + 1);
        let found = nth_line(text, line0).is_some_and(|l| l.get(byte..).is_some_and(|rest| rest.starts_with(name)));
        let end_col = if found { col + name.len() as u32 } else { col };
        Location { path: range.path.clone(), start_line: line, start_col: col, end_line: line, end_col }
    }
}

impl Inner {
    pub(super) fn display_path(&self, abs: &Path) -> String {
        for root in [&self.root, &self.canonical_root] {
            if let Ok(rel) = abs.strip_prefix(root) {
                return rel.to_string_lossy().replace('\\', "/");
            }
        }
        abs.to_string_lossy().into_owned()
    }
}

pub(super) async fn read_source(abs: &Path, shown: &str, root: &Path) -> Result<(String, Option<SystemTime>), LspError> {
    let unreadable = |e: std::io::Error| {
        LspError::Io(format!("cannot read {shown} under {}: {e}; symbol paths must be relative to the bridge root", root.display()))
    };
    let meta = tokio::fs::metadata(abs).await.map_err(unreadable)?;
    let bytes = tokio::fs::read(abs).await.map_err(unreadable)?;
    Ok((String::from_utf8_lossy(&bytes).into_owned(), meta.modified().ok()))
}

/// `Location`s or `LocationLink`s, converted, sorted and de-duplicated.
pub(super) fn locations(ctx: &mut Ctx<'_>, items: &[Value]) -> Vec<Location> {
    let mut out: Vec<Location> = items
        .iter()
        .filter_map(|item| match item.get("targetUri") {
            Some(uri) => {
                let range = item.get("targetSelectionRange").or_else(|| item.get("targetRange"))?;
                ctx.files.location(uri.as_str()?, range)
            }
            None => ctx.files.location(item.get("uri")?.as_str()?, item.get("range")?),
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

pub(super) fn as_array(v: &Value) -> &[Value] {
    v.as_array().map(Vec::as_slice).unwrap_or_default()
}

/// A provider capability is `true` or an options object.
pub(super) fn capable(caps: &Value, name: &str) -> bool {
    match caps.get(name) {
        Some(Value::Bool(b)) => *b,
        Some(Value::Object(_)) => true,
        _ => false,
    }
}

pub(super) fn marked(s: lsp_types::MarkedString) -> String {
    match s {
        lsp_types::MarkedString::String(s) => s,
        lsp_types::MarkedString::LanguageString(ls) => {
            format!("```{}\n{}\n```", ls.language, ls.value)
        }
    }
}

pub(super) fn symbol_kind(kind: u64) -> Option<&'static str> {
    const KINDS: [&str; 26] = [
        "file",
        "module",
        "namespace",
        "package",
        "class",
        "method",
        "property",
        "field",
        "constructor",
        "enum",
        "interface",
        "function",
        "variable",
        "constant",
        "string",
        "number",
        "boolean",
        "array",
        "object",
        "key",
        "null",
        "enum_member",
        "struct",
        "event",
        "operator",
        "type_parameter",
    ];
    KINDS.get(usize::try_from(kind).ok()?.checked_sub(1)?).copied()
}

pub(super) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
