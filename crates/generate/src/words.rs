//! Text for generated records: a built-in list of 38,842 English words drawn with a
//! Zipf-like distribution, so that a few words are very common and most are rare, as in
//! a real catalogue's titles (see `data/WORDS-LICENSE` for the list's origin).

use rand::Rng;

const WORDS: &str = include_str!("../data/words.txt");

/// A Zipf sampler over the word list: the word of rank r is drawn with weight 1/r^s.
pub(crate) struct Words {
    words: Vec<&'static str>,
    // Invariant: strictly increasing, last element 1.0.
    cumulative: Vec<f64>,
}

impl Words {
    pub(crate) fn new() -> Words {
        let words: Vec<&'static str> = WORDS.lines().filter(|w| !w.is_empty()).collect();
        // s slightly above 1, as measured for English text.
        let s = 1.07;
        let weights: Vec<f64> = (1..=words.len()).map(|rank| 1.0 / (rank as f64).powf(s)).collect();
        let total: f64 = weights.iter().sum();
        let mut acc = 0.0;
        let mut cumulative: Vec<f64> = weights
            .iter()
            .map(|w| {
                acc += w / total;
                acc
            })
            .collect();
        if let Some(last) = cumulative.last_mut() {
            *last = 1.0;
        }
        Words { words, cumulative }
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.words.len()
    }

    /// One word, Zipf-distributed.
    pub(crate) fn word(&self, rng: &mut impl Rng) -> &'static str {
        let u: f64 = rng.r#gen();
        let idx = self.cumulative.partition_point(|&c| c < u);
        self.words[idx.min(self.words.len() - 1)]
    }

    /// A word drawn uniformly, for names, where Zipf would repeat too much.
    pub(crate) fn uniform(&self, rng: &mut impl Rng) -> &'static str {
        self.words[rng.gen_range(0..self.words.len())]
    }

    /// `n` words joined by spaces.
    pub(crate) fn phrase(&self, rng: &mut impl Rng, n: usize) -> String {
        let mut out = String::new();
        for idx in 0..n {
            if idx > 0 {
                out.push(' ');
            }
            out.push_str(self.word(rng));
        }
        out
    }
}

/// `word` with its first letter upper-cased.
pub(crate) fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn list_is_large_and_draws_are_zipf_like() {
        let words = Words::new();
        assert!(words.len() >= 10_000);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let mut counts = std::collections::HashMap::new();
        for _ in 0..200_000 {
            *counts.entry(words.word(&mut rng)).or_insert(0u32) += 1;
        }
        let mut freq: Vec<u32> = counts.values().copied().collect();
        freq.sort_unstable_by(|a, b| b.cmp(a));
        // The most common word is far more common than the hundredth, which is far more
        // common than the thousandth: roughly 1/r.
        assert!(freq[0] > 50 * freq[99] / 10, "{} vs {}", freq[0], freq[99]);
        assert!(freq[99] > 5 * freq[999] / 2, "{} vs {}", freq[99], freq[999]);
        assert!(counts.len() > 5_000, "most of the list is used: {}", counts.len());
        assert_eq!(capitalize("ökonomie"), "Ökonomie");
    }
}
