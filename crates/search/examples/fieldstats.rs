fn main() {
    let dir = std::env::args().nth(1).unwrap();
    let index = tantivy::Index::open_in_dir(&dir).unwrap();
    let reader = index.reader().unwrap();
    let searcher = reader.searcher();
    let schema = index.schema();
    let mut rows = Vec::new();
    let mut all_tokens = 0u64;
    for (field, entry) in schema.fields() {
        if !entry.is_indexed() {
            continue;
        }
        let mut tokens = 0u64;
        let mut terms = 0u64;
        let mut postings_bytes = 0u64;
        for seg in searcher.segment_readers() {
            let inv = seg.inverted_index(field).unwrap();
            tokens += inv.total_num_tokens();
            terms += inv.terms().num_terms() as u64;
            postings_bytes += inv.total_num_tokens();
        }
        let _ = postings_bytes;
        all_tokens += tokens;
        rows.push((tokens, terms, entry.name().to_string()));
    }
    rows.sort();
    rows.reverse();
    let docs = searcher.num_docs();
    println!(
        "docs {docs} segments {} total tokens/doc {:.1}",
        searcher.segment_readers().len(),
        all_tokens as f64 / docs as f64
    );
    for (tokens, terms, name) in rows.iter().take(45) {
        println!("{:>10.1} tok/doc {:>10} terms  {}", *tokens as f64 / docs as f64, terms, name);
    }
}
