//! llama.cpp's OpenAI-compatible server (`python -m llama_cpp.server`, from
//! the PyPI package `llama-cpp-python[server]`), started for a test binary:
//! the real endpoint the LLM client is tested against. `scripts/test.sh`
//! installs it and names its python in `KEN_TEST_LLAMA_PYTHON`.

use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub struct LlamaServer {
    pid: i32,
    /// Up to `/v1`.
    pub base_url: String,
}

impl LlamaServer {
    /// Serves `model` (a GGUF) on a free local port; returns once it listens.
    pub fn start(model: &Path) -> LlamaServer {
        let python = std::env::var("KEN_TEST_LLAMA_PYTHON")
            .expect("KEN_TEST_LLAMA_PYTHON names a python with llama-cpp-python[server]; scripts/test.sh installs it");
        let port = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port();
        let mut command = Command::new(python);
        command
            .args(["-m", "llama_cpp.server", "--host", "127.0.0.1", "--port", &port.to_string(), "--n_ctx", "4096", "--n_threads", "2"])
            // By default a new request cuts the stream of the one running.
            .args(["--interrupt_requests", "False"])
            .arg("--model")
            .arg(model)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: prctl is async-signal-safe. The server is killed when the
        // thread that started it ends: a thread that lives as long as the
        // test process (a server kept in a static is never dropped).
        unsafe {
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut child = command.spawn().expect("llama_cpp.server starts");
            let _ = started_tx.send(child.id() as i32);
            let status = child.wait();
            eprintln!("llama_cpp.server ended: {status:?}");
            // Keep the thread (and with it the parent-death signal) until the process ends.
            loop {
                std::thread::park();
            }
        });
        let pid = started_rx.recv().expect("llama_cpp.server spawned");
        // The server listens once the model is loaded. The limit only ends a
        // wait for a server that will never come up; it is no speed check.
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            // SAFETY: signal 0 only asks whether the process exists.
            if unsafe { libc::kill(pid, 0) } != 0 {
                panic!("llama_cpp.server exited before listening");
            }
            assert!(started.elapsed() < Duration::from_secs(900), "llama_cpp.server never listened on port {port}");
            std::thread::sleep(Duration::from_millis(200));
        }
        LlamaServer { pid, base_url: format!("http://127.0.0.1:{port}/v1") }
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        // SAFETY: the pid is our child's, waited for by its thread.
        unsafe {
            libc::kill(self.pid, libc::SIGKILL);
        }
    }
}
