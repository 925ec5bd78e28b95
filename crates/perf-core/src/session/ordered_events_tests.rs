// SPDX-License-Identifier: GPL-2.0-only
//! perf's ordering rules on hand-made timestamps.

use super::*;

/// Queues `times` (one byte each, the byte its position), returning what
/// each flush delivered as (time, position).
struct Q {
    oe: OrderedEvents,
    n: usize,
}

impl Q {
    fn new(cap: usize) -> Q {
        Q {
            oe: OrderedEvents::new(cap),
            n: 0,
        }
    }

    /// Queues; a record without a timestamp comes back at once.
    fn queue(&mut self, times: &[u64]) -> Vec<(u64, usize)> {
        let mut now = Vec::new();
        for &t in times {
            let rec = [self.n as u8; 40];
            match self.oe.queue(t, &rec, 0, 0, self.n as u64) {
                Queue::Queued => {}
                Queue::Now => now.push((t, self.n)),
                Queue::Full => panic!("full"),
            }
            self.n += 1;
        }
        now
    }

    fn flush(&mut self, how: Flush) -> Vec<(u64, usize)> {
        let mut out = Vec::new();
        let _ = self
            .oe
            .flush::<()>(how, |q, rec| {
                assert_eq!(rec, &[q.offset as u8; 40], "the record's own bytes");
                out.push((q.time, q.offset as usize));
                Ok(ControlFlow::Continue(()))
            })
            .unwrap();
        out
    }
}

impl Q {
    fn add(&mut self, t: u64) {
        assert!(self.queue(&[t]).is_empty());
    }

    /// A flush that pauses after every `every` records, resumed until it
    /// is done.
    fn flush_pausing(&mut self, how: Flush, every: usize) -> Vec<(u64, usize)> {
        let mut out = Vec::new();
        let mut step = |q: &Queued, _: &[u8]| {
            out.push((q.time, q.offset as usize));
            Ok::<_, ()>(if out.len() % every == 0 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            })
        };
        let mut flow = self.oe.flush(how, &mut step).unwrap();
        while flow.is_break() {
            flow = self.oe.resume(&mut step).unwrap();
            if self.oe.paused.is_none() && flow.is_break() {
                break;
            }
        }
        out
    }
}

fn times(v: &[(u64, usize)]) -> Vec<u64> {
    v.iter().map(|&(t, _)| t).collect()
}

#[test]
fn two_round_window() {
    let mut q = Q::new(1 << 20);
    // Round 1: next_flush is 0, nothing is delivered; it becomes max = 4.
    q.queue(&[1, 2, 4, 3]);
    assert!(q.flush(Flush::Round).is_empty());
    // Round 2: deliver <= 4, then next_flush = 7.
    q.queue(&[5, 3, 7, 6]);
    assert_eq!(times(&q.flush(Flush::Round)), [1, 2, 3, 3, 4]);
    // Round 3: <= 7.
    q.queue(&[9, 8, 10]);
    assert_eq!(times(&q.flush(Flush::Round)), [5, 6, 7]);
    assert_eq!(times(&q.flush(Flush::Final)), [8, 9, 10]);
    assert_eq!(q.oe.unordered, 0);
}

#[test]
fn equal_times_keep_queue_order_and_untimed_records_come_at_once() {
    let mut q = Q::new(1 << 20);
    assert_eq!(q.queue(&[5, 0, 5, u64::MAX, 3, 5]), [(0, 1), (u64::MAX, 3)]);
    assert_eq!(q.flush(Flush::Final), [(3, 4), (5, 0), (5, 2), (5, 5)]);
}

#[test]
fn an_empty_round_keeps_next_flush() {
    let mut q = Q::new(1 << 20);
    q.queue(&[10, 20]);
    assert!(q.flush(Flush::Round).is_empty()); // next_flush = 20
    assert_eq!(times(&q.flush(Flush::Round)), [10, 20]); // next_flush = max = 20
    assert!(q.flush(Flush::Round).is_empty()); // empty: next_flush stays 20
                                               // The queue emptied, so the max restarts from the next record.
    q.queue(&[15, 30]);
    assert_eq!(times(&q.flush(Flush::Round)), [15]);
    q.queue(&[25]);
    assert_eq!(times(&q.flush(Flush::Round)), [25, 30]);
}

#[test]
fn late_records_are_counted_and_still_delivered() {
    let mut q = Q::new(1 << 20);
    q.queue(&[10, 20]);
    q.flush(Flush::Round);
    assert_eq!(times(&q.flush(Flush::Round)), [10, 20]);
    q.queue(&[15, 30]);
    assert_eq!(q.oe.unordered, 1);
    assert_eq!(times(&q.flush(Flush::Final)), [15, 30]);
}

#[test]
fn the_cap_flushes_the_older_half() {
    // Room for about 10 records of 40 bytes plus their entries.
    let entry = std::mem::size_of::<Queued>() + 40;
    let mut oe = OrderedEvents::new(1 << 16);
    oe.cap = 10 * entry;
    let mut full_at = None;
    for t in 1..=20u64 {
        if oe.queue(t * 10, &[0; 40], 0, 0, t) == Queue::Full {
            full_at = Some(t);
            break;
        }
    }
    assert_eq!(full_at, Some(11));
    let mut got = Vec::new();
    let _ = oe
        .flush::<()>(Flush::Half, |q, _| {
            got.push(q.time);
            Ok(ControlFlow::Continue(()))
        })
        .unwrap();
    // first 10, last 100: flush up to 10 + 90 / 2 = 55.
    assert_eq!(got, [10, 20, 30, 40, 50]);
    assert_eq!(oe.half_flushes, 1);
    assert_eq!(oe.queue(110, &[0; 40], 0, 0, 11), Queue::Queued);
    assert!(oe.peak_bytes <= 10 * entry);
}

#[test]
fn a_failed_delivery_keeps_the_rest() {
    let mut oe = OrderedEvents::new(1 << 20);
    for t in [1u64, 2, 3] {
        oe.queue(t, &[t as u8], 0, 0, t);
    }
    let mut seen = Vec::new();
    let r = oe.flush(Flush::Final, |q, _| {
        seen.push(q.time);
        if q.time == 2 {
            Err("stop")
        } else {
            Ok(ControlFlow::Continue(()))
        }
    });
    assert_eq!(r, Err("stop"));
    assert_eq!(seen, [1, 2]);
    let mut rest = Vec::new();
    let _ = oe
        .flush::<()>(Flush::Final, |q, rec| {
            rest.push((q.time, rec.to_vec()));
            Ok(ControlFlow::Continue(()))
        })
        .unwrap();
    assert_eq!(rest, [(2, vec![2]), (3, vec![3])]);
}

#[test]
fn equal_times_keep_queue_order_in_a_big_queue() {
    // Enough records, in a mixed order, for an unstable sort to reorder
    // equal keys.
    let mut q = Q::new(1 << 20);
    let times: Vec<u64> = (0..400u64).map(|i| 1 + (i * 7919) % 5).collect();
    q.queue(&times);
    let got = q.flush(Flush::Final);
    let mut want: Vec<(u64, usize)> = times.iter().copied().zip(0..).collect();
    want.sort_by_key(|&(t, _)| t);
    assert_eq!(got, want);
}

/// A flush that pauses after every `every`-th record, resumed until done,
/// delivers what the unpaused flush does, in the same order.
#[test]
fn a_paused_flush_resumes_where_it_stopped() {
    for every in 1..5 {
        let mut paused = Q::new(1 << 20);
        let mut plain = Q::new(1 << 20);
        let mut got = Vec::new();
        let mut want = Vec::new();
        for round in [
            [5u64, 3, 9, 1, 7],
            [12, 10, 11, 15, 13],
            [20, 18, 19, 16, 17],
        ] {
            for t in round {
                paused.add(t);
                plain.add(t);
            }
            for how in [Flush::Round, Flush::Half] {
                want.extend(plain.flush(how));
                got.extend(paused.flush_pausing(how, every));
            }
        }
        want.extend(plain.flush(Flush::Final));
        got.extend(paused.flush_pausing(Flush::Final, every));
        assert_eq!(got, want, "pausing every {every}");
    }
}

/// Delivered records are skipped over, not moved at each flush: the arena
/// is compacted once their bytes outweigh the queued ones, and every
/// record keeps its own bytes (checked by `Q::flush`) through compactions
/// of interleaved rounds.
#[test]
fn the_arena_is_compacted_once_delivered_bytes_outweigh_queued_ones() {
    let mut q = Q::new(1 << 20);
    let mut got = Vec::new();
    let mut compactions = 0;
    for round in 0..30u64 {
        for k in [3u64, 1, 4, 0, 2, 9, 7, 5, 8, 6] {
            q.add(round * 50 + k * 10 + 1);
        }
        let before = q.oe.arena.len();
        got.extend(q.flush(Flush::Round));
        let live = q.oe.arena.len() - q.oe.dead;
        assert!(
            q.oe.dead <= live,
            "round {round}: {} dead, {live} queued",
            q.oe.dead
        );
        compactions += usize::from(q.oe.arena.len() < before);
    }
    got.extend(q.flush(Flush::Final));
    assert_eq!(got.len(), 300);
    assert!(times(&got).windows(2).all(|w| w[0] <= w[1]));
    assert!(
        compactions > 0 && compactions < 30,
        "{compactions} compactions"
    );
}
