// SPDX-License-Identifier: GPL-2.0-only
//! perf's `ordered_events` (ordered-events.c): kernel records are queued
//! by timestamp and delivered in time order, with perf's rules:
//!
//! * a record without a timestamp (0 or -1) is not queued but delivered
//!   at once (`-ETIME`);
//! * records with equal timestamps keep the order they were queued in;
//! * FINISHED_ROUND flushes everything up to `next_flush`, then sets
//!   `next_flush` to the largest timestamp queued so far (the two-round
//!   window: a record of round n+2 is never older than the maximum of
//!   round n), unless the queue is empty, which leaves `next_flush` alone;
//!   a `next_flush` of 0 flushes nothing;
//! * when the queue holds more than its memory cap, the older half (by
//!   time, up to the midpoint of the first and the last queued timestamp)
//!   is flushed (`OE_FLUSH__HALF`);
//! * the end of the data flushes everything (`OE_FLUSH__FINAL`);
//! * a record older than the last one delivered is still queued and
//!   delivered at the next flush (counted in `unordered`).
//!
//! A flush can pause after any record (the columnar reader's batch is
//! full): [`OrderedEvents::resume`] then delivers the rest of it, with the
//! same limit, before anything else is queued.
//!
//! Records are copied into one arena (perf copies them too in pipe mode,
//! and here the file's buffer moves on). Delivered entries are skipped
//! over, not removed, and the arena is compacted once its delivered bytes
//! outweigh the queued ones, so memory stays within twice the cap and each
//! record is moved at most once on average.

use std::ops::ControlFlow;

/// The default memory cap of the queue: records plus their entries.
pub const DEFAULT_QUEUE_BYTES: usize = 64 << 20;

/// One queued record.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Queued {
    pub(crate) time: u64,
    start: usize,
    len: usize,
    /// The evsel (index into the evlist).
    pub(crate) evsel: usize,
    /// The reader (file) it came from.
    pub(crate) reader: usize,
    /// Its file offset.
    pub(crate) offset: u64,
}

/// How a flush is asked for (perf's `enum oe_flush`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flush {
    /// FINISHED_ROUND.
    Round,
    /// The memory cap was reached.
    Half,
    /// The end of the data.
    Final,
}

/// The queue.
#[derive(Debug)]
pub(crate) struct OrderedEvents {
    /// The queued records are `entries[head..]`; those before `head` are
    /// delivered.
    entries: Vec<Queued>,
    head: usize,
    arena: Vec<u8>,
    /// Bytes of `arena` whose records are delivered.
    dead: usize,
    spare: Vec<u8>,
    /// `entries` are in time order (new records often come in order).
    sorted: bool,
    next_flush: u64,
    max_timestamp: u64,
    /// perf's `oe->last`: the most recently queued record's time, or the
    /// newest one's after a flush; `None` when the queue emptied.
    last_time: Option<u64>,
    last_flush: u64,
    cap: usize,
    /// Records queued older than the last delivered one.
    pub(crate) unordered: u64,
    /// HALF flushes done because of the cap.
    pub(crate) half_flushes: u64,
    /// The most bytes queued at once.
    pub(crate) peak_bytes: usize,
    /// A flush paused before its end.
    paused: Option<Flush>,
}

/// What [`OrderedEvents::queue`] did.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Queue {
    /// Queued.
    Queued,
    /// No timestamp: deliver it now.
    Now,
    /// The cap is reached: flush HALF, then queue it again.
    Full,
}

impl OrderedEvents {
    pub(crate) fn new(cap: usize) -> OrderedEvents {
        OrderedEvents {
            entries: Vec::new(),
            head: 0,
            arena: Vec::new(),
            dead: 0,
            spare: Vec::new(),
            sorted: true,
            next_flush: 0,
            max_timestamp: 0,
            last_time: None,
            last_flush: 0,
            cap: cap.max(1 << 16),
            unordered: 0,
            half_flushes: 0,
            peak_bytes: 0,
            paused: None,
        }
    }

    /// The queued records.
    fn live(&self) -> &[Queued] {
        self.entries.get(self.head..).unwrap_or_default()
    }

    fn bytes(&self) -> usize {
        self.arena.len() - self.dead + std::mem::size_of_val(self.live())
    }

    /// perf's `ordered_events__queue` (without the flush it does on a full
    /// queue: the caller flushes and queues again).
    #[inline]
    pub(crate) fn queue(
        &mut self,
        time: u64,
        record: &[u8],
        evsel: usize,
        reader: usize,
        offset: u64,
    ) -> Queue {
        if time == 0 || time == u64::MAX {
            return Queue::Now;
        }
        if !self.live().is_empty()
            && self.bytes() + record.len() + std::mem::size_of::<Queued>() > self.cap
        {
            return Queue::Full;
        }
        if time < self.last_flush {
            self.unordered += 1;
        }
        match self.last_time {
            None => self.max_timestamp = time,
            Some(_) if time >= self.max_timestamp => self.max_timestamp = time,
            Some(_) => {}
        }
        if let Some(prev) = self.live().last() {
            self.sorted &= prev.time <= time;
        }
        self.last_time = Some(time);
        let start = self.arena.len();
        self.arena.extend_from_slice(record);
        self.entries.push(Queued {
            time,
            start,
            len: record.len(),
            evsel,
            reader,
            offset,
        });
        self.peak_bytes = self.peak_bytes.max(self.bytes());
        Queue::Queued
    }

    /// perf's `__ordered_events__flush`: delivers the records due, oldest
    /// first, through `deliver`; an error from it stops the flush (the
    /// records not delivered stay queued); `Break` from it pauses the
    /// flush after that record, for [`resume`](Self::resume).
    pub(crate) fn flush<E>(
        &mut self,
        how: Flush,
        deliver: impl FnMut(&Queued, &[u8]) -> Result<ControlFlow<()>, E>,
    ) -> Result<ControlFlow<()>, E> {
        if self.live().is_empty() {
            return Ok(ControlFlow::Continue(()));
        }
        match how {
            Flush::Final => self.next_flush = u64::MAX,
            Flush::Half => {
                self.sort();
                let first = self.live().first().map_or(0, |q| q.time);
                let last = self.last_time.unwrap_or(first);
                self.next_flush = first + last.saturating_sub(first) / 2;
                self.half_flushes += 1;
            }
            Flush::Round => {}
        }
        self.deliver_due(how, deliver)
    }

    /// Goes on with a paused flush (nothing to do without one).
    pub(crate) fn resume<E>(
        &mut self,
        deliver: impl FnMut(&Queued, &[u8]) -> Result<ControlFlow<()>, E>,
    ) -> Result<ControlFlow<()>, E> {
        match self.paused.take() {
            Some(how) => self.deliver_due(how, deliver),
            None => Ok(ControlFlow::Continue(())),
        }
    }

    fn sort(&mut self) {
        if !self.sorted {
            // Stable: equal times keep the order they were queued in.
            let head = self.head.min(self.entries.len());
            if let Some(live) = self.entries.get_mut(head..) {
                live.sort_by_key(|q| q.time);
            }
            self.sorted = true;
        }
    }

    /// Delivers the records up to `next_flush`.
    fn deliver_due<E>(
        &mut self,
        how: Flush,
        mut deliver: impl FnMut(&Queued, &[u8]) -> Result<ControlFlow<()>, E>,
    ) -> Result<ControlFlow<()>, E> {
        self.sort();
        let limit = self.next_flush;
        let mut done = 0;
        let mut result = Ok(ControlFlow::Continue(()));
        if limit != 0 {
            for q in self.entries.get(self.head..).unwrap_or_default() {
                if q.time > limit {
                    break;
                }
                let rec = self.arena.get(q.start..q.start + q.len).unwrap_or_default();
                let delivered = deliver(q, rec);
                if delivered.is_ok() {
                    self.last_flush = q.time;
                    done += 1;
                }
                match delivered {
                    Ok(ControlFlow::Continue(())) => {}
                    other => {
                        result = other;
                        break;
                    }
                }
            }
        }
        self.drop_front(done);
        let due_left = limit != 0 && self.live().first().is_some_and(|q| q.time <= limit);
        if matches!(result, Ok(ControlFlow::Break(()))) && due_left {
            self.paused = Some(how);
            return result;
        }
        if self.live().is_empty() {
            self.last_time = None;
        } else if self.last_time.is_some_and(|t| t <= limit) {
            self.last_time = self.live().last().map(|q| q.time);
        }
        if result.is_ok() && how == Flush::Round {
            self.next_flush = self.max_timestamp;
        }
        result
    }

    /// Forgets the first `n` queued entries; compacts the arena once the
    /// delivered bytes outweigh the queued ones (or the queue is empty).
    /// Compacting at every flush moved the whole queue each time a batch of
    /// the columnar reader paused: 21 % of `read_columns` on a 1 M-sample
    /// file recorded with `-m 16M` (cpu-clock profile, memmove), whose
    /// queue holds two rounds of up to 16 MiB a CPU.
    fn drop_front(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        let end = (self.head + n).min(self.entries.len());
        self.dead += self
            .entries
            .get(self.head..end)
            .map_or(0, |d| d.iter().map(|q| q.len).sum());
        self.head = end;
        if self.head == self.entries.len() {
            self.entries.clear();
            self.arena.clear();
            (self.head, self.dead) = (0, 0);
            return;
        }
        if self.dead < self.arena.len() - self.dead {
            return;
        }
        self.entries.drain(..self.head);
        self.head = 0;
        self.dead = 0;
        self.spare.clear();
        for q in &mut self.entries {
            let start = self.spare.len();
            self.spare
                .extend_from_slice(self.arena.get(q.start..q.start + q.len).unwrap_or_default());
            q.start = start;
        }
        std::mem::swap(&mut self.arena, &mut self.spare);
    }
}

#[cfg(test)]
#[path = "ordered_events_tests.rs"]
mod tests;
