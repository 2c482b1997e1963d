//! Prints the texts ken embeds for an index, one JSON string per line:
//! `dump_texts INDEX_DIR [LIMIT]`. Benchmarks embed these real texts.

use ken_store::Store;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let store = Store::open_read_only(std::path::Path::new(args.get(1).ok_or("usage: dump_texts INDEX_DIR [LIMIT]")?))?;
    let limit: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(usize::MAX);
    let mut n = 0;
    for file in store.file_paths()? {
        for unit in store.units_of_file(file.0)? {
            if n == limit {
                return Ok(());
            }
            println!("{}", serde_json::to_string(&ken_search::embed_text(&unit))?);
            n += 1;
        }
    }
    Ok(())
}
