// SPDX-License-Identifier: GPL-2.0-only
//! A Rust workload for the symbol tests: generics, a trait object, a
//! closure and std collections, so perf shows demangled Rust names.
use std::collections::HashMap;
use std::hint::black_box;

trait Step {
    fn step(&self, x: u64) -> u64;
}

struct Mul(u64);

impl Step for Mul {
    #[inline(never)]
    fn step(&self, x: u64) -> u64 {
        (0..20_000u64).fold(x, |a, i| a.wrapping_mul(self.0).wrapping_add(i))
    }
}

#[inline(never)]
fn generic_sum<T: Into<u64> + Copy>(v: &[T]) -> u64 {
    v.iter().fold(0u64, |a, &x| a.wrapping_add(x.into()).rotate_left(3))
}

#[inline(never)]
fn table(n: u64) -> usize {
    let mut m = HashMap::new();
    for i in 0..n {
        *m.entry(i % 1013).or_insert(0u64) += i;
    }
    m.len()
}

fn main() {
    let steps: Vec<Box<dyn Step>> = vec![Box::new(Mul(3)), Box::new(Mul(7))];
    let data: Vec<u32> = (0..100_000).collect();
    let mut acc = 0u64;
    for r in 0..300u64 {
        for s in &steps {
            acc = acc.wrapping_add(black_box(s.step(r)));
        }
        acc = acc.wrapping_add(generic_sum(black_box(&data)));
        acc = acc.wrapping_add(table(black_box(20_000)) as u64);
    }
    println!("{acc}");
}
