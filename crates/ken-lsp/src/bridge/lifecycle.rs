//! Server lifecycle: which server answers a language, admission under the
//! in-flight bound, the circuit breaker, crashes, and start-up (initialize).

use super::*;

impl Inner {
    pub(super) fn resolve(&self, language: &str) -> Result<usize, LspError> {
        let mut tried = Vec::new();
        for (idx, slot) in self.slots.iter().enumerate() {
            if slot.spec.serves(language) {
                if slot.program.is_some() {
                    return Ok(idx);
                }
                tried.push(slot.spec.command.clone());
            }
        }
        Err(LspError::NoServer { language: language.to_owned(), tried })
    }

    pub(super) fn admit<'a>(&self, slot: &'a Slot) -> Result<Admission<'a>, LspError> {
        let mut st = lock(&slot.state);
        let Some(until) = st.open_until else {
            return Ok(Admission { slot, trial: None });
        };
        let now = Instant::now();
        if now < until || st.trial.is_some() {
            let left = until.saturating_duration_since(now);
            return Err(LspError::BreakerOpen {
                server: slot.spec.name.clone(),
                retry_in_secs: left.as_secs() + u64::from(left.subsec_nanos() > 0),
            });
        }
        st.trials += 1;
        let id = st.trials;
        st.trial = Some(id);
        debug!(server = %slot.spec.name, "circuit breaker half-open: trial request");
        Ok(Admission { slot, trial: Some(id) })
    }

    pub(super) fn succeeded(&self, slot: &Slot) {
        let mut st = lock(&slot.state);
        if st.open_until.is_some() {
            debug!(server = %slot.spec.name, "circuit breaker closed");
        }
        st.failures_in_row = 0;
        st.crashes = 0;
        st.open_until = None;
        st.trial = None;
    }

    /// Counts a failure; opens the breaker after too many in a row or a failed trial.
    pub(super) fn failed(&self, slot: &Slot, error: &LspError) {
        slot.failures.fetch_add(1, Ordering::Relaxed);
        if matches!(error, LspError::Timeout { .. }) {
            slot.timeouts.fetch_add(1, Ordering::Relaxed);
        }
        if matches!(error, LspError::Io(_) | LspError::NoServer { .. } | LspError::BreakerOpen { .. }) {
            return;
        }
        let mut st = lock(&slot.state);
        st.failures_in_row += 1;
        if st.trial.is_some() || st.failures_in_row >= self.config.breaker_threshold {
            self.open_breaker(slot, &mut st);
        }
    }

    pub(super) fn open_breaker(&self, slot: &Slot, st: &mut SlotState) {
        warn!(
            server = %slot.spec.name,
            "circuit breaker open for {} s after {} failures in a row, {} crashes",
            self.config.breaker_cooldown.as_secs_f64(),
            st.failures_in_row,
            st.crashes,
        );
        st.open_until = Some(Instant::now() + self.config.breaker_cooldown);
        st.trial = None;
    }

    /// The process of `generation` died (or never came up).
    pub(super) fn crashed(&self, idx: usize, generation: u64) {
        let slot = &self.slots[idx];
        let dead = {
            let mut st = lock(&slot.state);
            if st.generation != generation {
                return;
            }
            st.phase = Phase::Crashed;
            st.crashes += 1;
            if st.crashes >= self.config.max_restarts {
                self.open_breaker(slot, &mut st);
            }
            st.conn.take()
        };
        drop(dead);
    }

    pub(super) fn live_conn(slot: &Slot) -> Option<Arc<Conn>> {
        let st = lock(&slot.state);
        st.conn.as_ref().filter(|c| !c.shared().is_dead()).cloned()
    }

    /// The running server of slot `idx`, started (or restarted) if needed.
    pub(super) async fn ensure_conn(self: &Arc<Self>, idx: usize) -> Result<Arc<Conn>, LspError> {
        let slot = &self.slots[idx];
        if let Some(conn) = Self::live_conn(slot) {
            return Ok(conn);
        }
        let _serial = slot.start.lock().await;
        if let Some(conn) = Self::live_conn(slot) {
            return Ok(conn);
        }
        let server = slot.spec.name.clone();
        let Some(program) = slot.program.clone() else {
            return Err(LspError::NoServer { language: slot.spec.languages.join("/"), tried: vec![slot.spec.command.clone()] });
        };
        let generation = {
            let mut st = lock(&slot.state);
            st.generation += 1;
            if st.phase == Phase::Crashed {
                st.restarts += 1;
            }
            st.phase = Phase::Starting;
            st.conn = None;
            st.generation
        };
        let mut starting = Starting { slot, generation, done: false };
        let weak: Weak<Inner> = Arc::downgrade(self);
        let on_dead: rpc::OnDead = Box::new(move |_detail| {
            if let Some(inner) = weak.upgrade() {
                inner.crashed(idx, generation);
            }
        });
        debug!(%server, "starting {}", program.display());
        let proc = match rpc::spawn(&slot.spec, &program, &self.canonical_root, on_dead) {
            Ok(proc) => proc,
            Err(e) => {
                starting.done = true;
                self.crashed(idx, generation);
                return Err(LspError::Crashed { server, detail: format!("could not start `{}`: {e}", program.display()) });
            }
        };
        let budget = self.config.startup_timeout;
        let result = tokio::time::timeout(budget, proc.initialize(&slot.spec)).await;
        starting.done = true;
        let error = match result {
            Ok(Ok((encoding, caps))) => {
                debug!(%server, ?encoding, "initialized");
                let conn = Arc::new(Conn::new(proc, encoding, caps));
                let mut st = lock(&slot.state);
                if st.generation == generation && !conn.shared().is_dead() {
                    st.conn = Some(conn.clone());
                    st.phase = Phase::Ready;
                }
                return Ok(conn);
            }
            // Already counted by the death notice.
            Ok(Err(CallError::Crashed(detail))) => {
                return Err(LspError::Crashed { server, detail });
            }
            Ok(Err(CallError::Rpc { code, message })) => {
                LspError::Server { server, method: "initialize".to_owned(), detail: format!("{message} (code {code})") }
            }
            Err(_) => LspError::Timeout { server, method: "initialize".to_owned(), ms: millis(budget) },
        };
        proc.kill();
        self.crashed(idx, generation);
        Err(error)
    }
}
