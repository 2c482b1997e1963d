//! The default local models, fetched as a user's machine would (PyPI here).

use ken_embed::{ModelSpec, Resolver};

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn int8_onnx_and_f32_candle_agree_and_make_sense() {
    // The tests' own cache in the build directory (see crates/ken/tests/support).
    let resolver = Resolver {
        cache_dir: std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/test-cache/models"),
        explicit_dir: None,
        ..Resolver::default()
    };
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

#[test]
fn unknown_model_names_say_what_exists() {
    let err = ModelSpec::parse("bert-huge").unwrap_err();
    assert_eq!(err, "unknown model `bert-huge`: use minilm-int8 (default), minilm (f32), openai:MODEL, or a model directory");
}
