//! The default local models, fetched as a user's machine would (PyPI here).

use ken_embed::{ModelSpec, Resolver};

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The tests' own cache in the build directory (see crates/ken/tests/support).
fn test_resolver() -> Resolver {
    Resolver {
        cache_dir: std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/test-cache/models"),
        explicit_dir: None,
        ..Resolver::default()
    }
}

#[test]
fn int8_onnx_and_f32_candle_agree_and_make_sense() {
    let resolver = test_resolver();
    let int8 = resolver.load(&ModelSpec::MiniLmInt8).unwrap();
    let f32 = resolver.load(&ModelSpec::MiniLm).unwrap();
    assert_eq!((int8.dim(), f32.dim()), (384, 384));
    assert_ne!(int8.model_id(), f32.model_id());
    let texts = [
        "def read_config(path):\n    with open(path) as f:\n        return f.read()",
        "load the settings file from disk",
        "compute the total tax of an invoice",
        "",
    ];
    let a = int8.embed_documents(&texts).unwrap();
    let b = f32.embed_documents(&texts).unwrap();
    for (x, y) in a.iter().zip(&b) {
        assert!((cosine(x, x) - 1.0).abs() < 1e-3, "unit length");
        assert!(cosine(x, y) > 0.98, "int8 and f32 agree: {}", cosine(x, y));
    }
    // Batching and length grouping never change a text's vector.
    let alone = int8.embed_documents(&texts[1..2]).unwrap();
    assert!(cosine(&alone[0], &a[1]) > 0.9999);
    // A query lands nearer the code it describes.
    let q = int8.embed_query("read a configuration file").unwrap();
    assert!(cosine(&q, &a[0]) > cosine(&q, &a[2]));
}

/// A one-shot query runs on the unoptimised session; a server's, once
/// readied, on the optimised one: the same vector either way.
#[test]
fn a_quick_query_and_a_readied_one_agree() {
    let resolver = test_resolver();
    let int8 = resolver.load(&ModelSpec::MiniLmInt8).unwrap();
    let queries = ["read a configuration file", "Session.send", ""];
    let quick: Vec<Vec<f32>> = queries.iter().map(|q| int8.embed_query(q).unwrap()).collect();
    int8.ready_for_queries().unwrap();
    let readied: Vec<Vec<f32>> = queries.iter().map(|q| int8.embed_query(q).unwrap()).collect();
    let as_documents = int8.embed_documents(&queries).unwrap();
    for ((a, b), c) in quick.iter().zip(&readied).zip(&as_documents) {
        assert!(cosine(a, b) > 0.9999, "quick and readied agree: {}", cosine(a, b));
        assert!(cosine(b, c) > 0.9999, "a query embeds as the same text as a document: {}", cosine(b, c));
    }
}

#[test]
fn unknown_model_names_say_what_exists() {
    let err = ModelSpec::parse("bert-huge").unwrap_err();
    assert_eq!(
        err,
        "unknown model `bert-huge`: use minilm-int8 (default), minilm (f32), static (trained on code, built in), static-distilled (distilled from minilm-int8), openai:MODEL, or a model directory"
    );
}

/// Both static tables answer questions about code by meaning, with unit
/// vectors: the one trained on code and shipped in the binary, and the one
/// distilled from the int8 model into the tests' cache on first use.
#[test]
fn static_vectors_place_questions_near_the_code_they_describe() {
    let resolver = test_resolver();
    let bundled = resolver.load(&ModelSpec::Static).unwrap();
    assert_eq!(bundled.model_id(), "ken-static-code-v1");
    let distilled = resolver.load(&ModelSpec::StaticDistilled).unwrap();
    assert!(distilled.model_id().starts_with("static-v1-pca256(minilm-int8-onnx@"), "{}", distilled.model_id());
    let code = [
        "def parse_json(text):\n    return json.loads(text)",
        "class HttpRetry:\n    def backoff(self, attempt):\n        time.sleep(2 ** attempt)",
        "fn readFile(path: &Path) -> String {\n    fs::read_to_string(path).unwrap()\n}",
        "SELECT name FROM users WHERE age > 30",
    ];
    let questions = [
        "decode a json string",
        "wait before trying the request again",
        "read a whole file from disk into a string",
        "query the database for people",
    ];
    let answers = |model: &dyn ken_embed::Embedder| {
        assert_eq!(model.dim(), 256);
        let vectors = model.embed_documents(&code).unwrap();
        for v in &vectors {
            assert!((cosine(v, v) - 1.0).abs() < 1e-3, "unit length");
        }
        let nearest = |query: &str| {
            let q = model.embed_query(query).unwrap();
            let best = (0..code.len()).max_by(|&a, &b| cosine(&q, &vectors[a]).total_cmp(&cosine(&q, &vectors[b]))).unwrap();
            code[best].lines().next().unwrap().to_string()
        };
        questions.iter().map(|q| format!("{q} -> {}", nearest(q))).collect::<Vec<_>>().join("\n")
    };
    let expected = expect_test::expect![[r#"
        decode a json string -> def parse_json(text):
        wait before trying the request again -> class HttpRetry:
        read a whole file from disk into a string -> fn readFile(path: &Path) -> String {
        query the database for people -> SELECT name FROM users WHERE age > 30"#]];
    expected.assert_eq(&answers(bundled.as_ref()));
    expected.assert_eq(&answers(distilled.as_ref()));
}

/// The optimised copy of the ONNX model: written by the first load, the
/// same vectors as the model itself; a damaged copy is written again, and
/// a cache where none can be written leaves the model to answer.
#[test]
fn the_optimised_copy_is_written_once_and_embeds_as_the_model() {
    use ken_embed::{Embedder, LocalEmbedder, LocalOptions, Prefixes, Runtime};
    let resolver = test_resolver();
    let model = resolver.resolve(&ModelSpec::MiniLmInt8).unwrap();
    let lib = resolver.onnxruntime().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let load = |optimized_dir: Option<std::path::PathBuf>| {
        LocalEmbedder::load(LocalOptions {
            model_dir: model.dir.clone(),
            runtime: Runtime::Onnx,
            model_id: model.model_id.clone(),
            prefixes: Prefixes::default(),
            max_tokens: 256,
            batch_size: 8,
            threads: 1,
            onnxruntime: Some(lib.clone()),
            optimized_dir,
        })
        .unwrap()
    };
    let queries = ["read a configuration file", "Session.send"];
    let embed = |e: &LocalEmbedder| -> Vec<Vec<f32>> { queries.iter().map(|q| e.embed_query(q).unwrap()).collect() };
    let agree = |a: &[Vec<f32>], b: &[Vec<f32>], what: &str| {
        for (x, y) in a.iter().zip(b) {
            assert!(cosine(x, y) > 0.9999, "{what}: {}", cosine(x, y));
        }
    };
    let plain = embed(&load(None));

    let copy = scratch.path().join("optimized/minilm-onnx.so.1.22");
    // What a writer killed midway left (no process has that id: pids stay below 2^22).
    let abandoned = scratch.path().join("optimized/minilm-onnx.so.1.22.partial-4194305");
    std::fs::create_dir_all(&abandoned).unwrap();
    let first = load(Some(copy.clone()));
    assert!(!abandoned.exists(), "what a killed writer left is removed");
    assert!(copy.join("model.onnx").is_file() && copy.join("weights.bin").is_file(), "written on first load");
    agree(&plain, &embed(&first), "the copy embeds as the model");
    let documents = first.embed_documents(&queries).unwrap();
    agree(&plain, &documents, "its prepacked workers too");

    std::fs::write(copy.join("model.onnx"), b"not a model").unwrap();
    agree(&plain, &embed(&load(Some(copy.clone()))), "a damaged copy");
    assert!(std::fs::metadata(copy.join("model.onnx")).unwrap().len() > 1000, "is written again");

    let unwritable = scratch.path().join("a-file");
    std::fs::write(&unwritable, b"").unwrap();
    agree(&plain, &embed(&load(Some(unwritable.join("optimized")))), "no copy can be written");
}
