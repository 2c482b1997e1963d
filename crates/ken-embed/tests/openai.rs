//! The OpenAI-compatible client against a loopback endpoint that misbehaves
//! on purpose (failure injection: a real server cannot fail on demand).
//! Each vector encodes its input's length, so order mistakes show.

use expect_test::expect;
use ken_embed::{Embedder, OpenAiEmbedder, OpenAiOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

#[derive(Clone, Copy)]
enum Behaviour {
    /// 503 on every other request, then a correct answer in reversed order.
    FlakyReversed,
    /// One embedding fewer than inputs.
    Short,
    /// 400 with a message.
    BadRequest,
}

/// Serves `/v1/embeddings`; returns the base URL and the request counter.
fn serve(behaviour: Behaviour) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let mut stream = stream.unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap() == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap();
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let request: serde_json::Value = serde_json::from_slice(&body).unwrap();
            let inputs: Vec<String> = serde_json::from_value(request["input"].clone()).unwrap();
            let n = seen.fetch_add(1, Ordering::SeqCst);
            let item = |i: usize| serde_json::json!({"index": i, "embedding": [inputs[i].len() as f32, 1.0]});
            let (status, payload) = match behaviour {
                Behaviour::FlakyReversed if n % 2 == 1 => (503, serde_json::json!({"error": "overloaded"})),
                Behaviour::FlakyReversed => (200, serde_json::json!({"data": (0..inputs.len()).rev().map(item).collect::<Vec<_>>()})),
                Behaviour::Short => (200, serde_json::json!({"data": (0..inputs.len().saturating_sub(1)).map(item).collect::<Vec<_>>()})),
                Behaviour::BadRequest => (400, serde_json::json!({"error": {"message": "model not found"}})),
            };
            let text = payload.to_string();
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
                text.len()
            );
        }
    });
    (url, count)
}

fn options(url: String) -> OpenAiOptions {
    OpenAiOptions {
        base_url: url,
        model: "test-model".into(),
        api_key: Some("k".into()),
        batch_size: 2,
        retries: 3,
        timeout: Duration::from_secs(5),
        backoff: Duration::from_millis(10),
    }
}

#[test]
fn retries_and_restores_input_order() {
    let (url, count) = serve(Behaviour::FlakyReversed);
    let embedder = OpenAiEmbedder::connect(options(url)).unwrap();
    assert_eq!(embedder.dim(), 2);
    let vectors = embedder.embed_documents(&["a", "bbb", "cc", "dddd", "e"]).unwrap();
    // Normalised [len, 1]: the first component orders like the input lengths.
    let lengths: Vec<String> = vectors.iter().map(|v| format!("{:.3}", v[0] / v[1])).collect();
    expect![[r#"["1.000", "3.000", "2.000", "4.000", "1.000"]"#]].assert_eq(&format!("{lengths:?}"));
    // Probe + 3 batches of 2, each batch answered after one 503.
    assert_eq!(count.load(Ordering::SeqCst), 7);
}

#[test]
fn a_missing_embedding_or_a_client_error_is_reported() {
    let (url, _) = serve(Behaviour::Short);
    let err = OpenAiEmbedder::connect(options(url.clone())).err().unwrap().to_string().replace(&url, "$URL");
    expect!["embedding endpoint $URL/embeddings: sent 1 inputs, got 0 embeddings back"].assert_eq(&err);
    let (url, count) = serve(Behaviour::BadRequest);
    let err = OpenAiEmbedder::connect(options(url.clone())).err().unwrap().to_string().replace(&url, "$URL");
    expect![[r#"embedding endpoint $URL/embeddings: HTTP 400: {"error":{"message":"model not found"}}"#]].assert_eq(&err);
    // A client error is not retried.
    assert_eq!(count.load(Ordering::SeqCst), 1);
}
