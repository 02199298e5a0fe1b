//! Timing with `std::time::Instant` (several repetitions, the median) and markdown tables.
//!
//! The jobs of one comparison run round-robin: repetition `i` of every job before repetition
//! `i + 1` of any, so that a burst of load on the machine touches all of them alike.

use std::time::Instant;

/// One timed operation: `run` does `items` units of work (values, updates, ticks) per call.
pub struct Job<'a> {
    /// The units of work per call.
    pub items: usize,
    /// The work.
    pub run: Box<dyn FnMut() + 'a>,
}

impl<'a> Job<'a> {
    /// A job of `items` units.
    pub fn new(items: usize, run: impl FnMut() + 'a) -> Self {
        Self {
            items,
            run: Box::new(run),
        }
    }
}

/// Runs every job once to warm up, then `reps` rounds of every job; returns per job the median
/// nanoseconds per unit of work.
pub fn medians(reps: usize, jobs: &mut [Job<'_>]) -> Vec<f64> {
    for job in jobs.iter_mut() {
        (job.run)();
    }
    let mut samples = vec![Vec::with_capacity(reps); jobs.len()];
    for _ in 0..reps.max(1) {
        for (job, times) in jobs.iter_mut().zip(&mut samples) {
            let start = Instant::now();
            (job.run)();
            let elapsed = start.elapsed().as_nanos() as f64;
            times.push(elapsed / job.items.max(1) as f64);
        }
    }
    samples.into_iter().map(median).collect()
}

/// The median of `values` (the upper one of an even count); 0 for none.
pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

/// A markdown table: the first column left-aligned, the others right-aligned.
#[derive(Debug, Clone, Default)]
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column titles.
    pub fn new(header: &[&str]) -> Self {
        Self {
            header: header.iter().map(|h| (*h).to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row (as many cells as columns).
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// The table in markdown.
    pub fn markdown(&self) -> String {
        let line = |cells: &[String]| format!("| {} |\n", cells.join(" | "));
        let mut out = line(&self.header);
        let rule: Vec<String> = (0..self.header.len())
            .map(|i| if i == 0 { "---" } else { "--:" }.to_string())
            .collect();
        out.push_str(&line(&rule));
        for row in &self.rows {
            out.push_str(&line(row));
        }
        out
    }
}

/// `n` with thousands separators: `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `x / base` as `0.85×`.
pub fn ratio(x: f64, base: f64) -> String {
    format!("{:.2}×", x / base)
}

/// A duration in nanoseconds, to three significant figures or so.
pub fn nanos(ns: f64) -> String {
    if ns >= 100.0 {
        thousands(ns.round() as u64)
    } else {
        format!("{ns:.1}")
    }
}

/// A duration in microseconds, from nanoseconds.
pub fn micros(ns: f64) -> String {
    let us = ns / 1000.0;
    if us >= 100.0 {
        format!("{us:.0}")
    } else {
        format!("{us:.1}")
    }
}

/// `yes` or `no`.
pub fn verdict(holds: bool) -> &'static str {
    if holds { "holds" } else { "does not hold" }
}
