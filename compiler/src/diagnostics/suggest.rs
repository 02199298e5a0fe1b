//! "Did you mean ...?" suggestions for misspelt names.

/// The candidate closest to `name` by edit distance, if it is close enough to be a likely typo.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|candidate| (edit_distance(name, candidate), candidate))
        .filter(|&(distance, _)| distance <= limit)
        .min_by_key(|&(distance, candidate)| (distance, candidate))
        .map(|(_, candidate)| candidate)
}

/// A note "did you mean `x`?" when a candidate is close to `name`.
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    closest(name, candidates).map(|c| format!("did you mean `{c}`?"))
}

/// Optimal-string-alignment distance (Levenshtein plus adjacent transpositions),
/// case-insensitive: a swapped pair or a case slip are the commonest typos.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let width = b.len() + 1;
    let mut d: Vec<usize> = (0..(a.len() + 1) * width)
        .map(|k| if k < width { k } else { 0 })
        .collect();
    for i in 1..=a.len() {
        d[i * width] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        assert_eq!(closest("Itme", ["Item", "Character"]), Some("Item"));
        assert_eq!(closest("PLAYER", ["Player"]), Some("Player"));
        assert_eq!(closest("anim", ["animation_frame", "angle"]), None);
        assert_eq!(closest("x", ["y", "vx"]), Some("vx"));
        assert_eq!(closest("Zzzzzz", ["Item"]), None);
    }
}
