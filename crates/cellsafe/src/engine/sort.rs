//! Released rows sorted by their order key within a memory budget, spilling sorted runs
//! to files when the budget is full and merging them at the end.
//!
//! Each row is kept as its key, its input row number and line, and its written bytes. The
//! runs are anonymous temporary files in the spill directory (unlinked at creation, so
//! nothing is left behind whatever happens to the process). Rows come out in increasing
//! (key, row): exactly the order [`crate::release`]'s in-memory sort gives.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::error::{EngineError, Error, Result};

/// Bytes of bookkeeping per row held in memory, besides its written bytes.
const ENTRY_BYTES: usize = std::mem::size_of::<Entry>();

#[derive(Debug, Clone, Copy)]
struct Entry {
    key: u64,
    row: u64,
    line: u64,
    start: usize,
    len: u32,
}

/// Receives sorted rows: each one's row, line and bytes.
pub(crate) type RowSink<'a> = dyn FnMut(u64, u64, &[u8]) -> std::io::Result<()> + 'a;

/// A row read back from a run: key, row, line, bytes.
struct RunRow {
    key: u64,
    row: u64,
    line: u64,
    bytes: Vec<u8>,
}

/// Rows sorted by key within a memory budget (see the module documentation).
pub(crate) struct Sorter {
    budget: usize,
    dir: PathBuf,
    entries: Vec<Entry>,
    arena: Vec<u8>,
    runs: Vec<File>,
    /// Bytes spilled, for the report.
    pub(crate) spilled: u64,
}

impl Sorter {
    /// A sorter holding at most about `budget` bytes, spilling to `dir`.
    pub(crate) fn new(budget: usize, dir: &Path) -> Sorter {
        Sorter {
            budget: budget.max(1 << 20),
            dir: dir.to_owned(),
            entries: Vec::new(),
            arena: Vec::new(),
            runs: Vec::new(),
            spilled: 0,
        }
    }

    /// Makes room for one more row of `len` bytes. A bounded sorter takes its whole
    /// budget once, at its first row (three quarters for the bytes, a quarter for the
    /// bookkeeping; pages are touched only as rows fill them), so that no buffer is ever
    /// copied into a larger one while both are held; when either is full it spills. An
    /// unbounded one (the in-memory engine) grows as it needs.
    fn reserve(&mut self, len: usize) -> Result<()> {
        if self.budget == usize::MAX {
            return Ok(());
        }
        if self.entries.capacity() == 0 {
            self.entries
                .reserve_exact((self.budget / 4 / ENTRY_BYTES).max(1));
            self.arena.reserve_exact(self.budget - self.budget / 4);
        }
        let entry_full = self.entries.len() == self.entries.capacity();
        let arena_full = self.arena.len() + len > self.arena.capacity();
        if !entry_full && !arena_full {
            return Ok(());
        }
        if self.entries.is_empty() {
            // a row larger than the whole buffer: taken alone
            self.arena.reserve_exact(len);
            return Ok(());
        }
        self.spill()?;
        self.reserve(len)
    }

    /// Adds a row.
    pub(crate) fn push(&mut self, key: u64, row: u64, line: u64, bytes: &[u8]) -> Result<()> {
        let len = u32::try_from(bytes.len()).map_err(|_| {
            self.error(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "a row over 4 GiB",
            ))
        })?;
        self.reserve(bytes.len())?;
        self.entries.push(Entry {
            key,
            row,
            line,
            start: self.arena.len(),
            len,
        });
        self.arena.extend_from_slice(bytes);
        Ok(())
    }

    fn error(&self, cause: std::io::Error) -> Error {
        EngineError::Spill {
            dir: self.dir.clone(),
            cause,
        }
        .into()
    }

    fn sort(&mut self) {
        use rayon::slice::ParallelSliceMut;
        self.entries.par_sort_unstable_by_key(|e| (e.key, e.row));
    }

    /// Writes the rows held as one sorted run.
    fn spill(&mut self) -> Result<()> {
        self.sort();
        let file = tempfile::tempfile_in(&self.dir).map_err(|e| self.error(e))?;
        let mut w = BufWriter::with_capacity(1 << 20, file);
        let mut written = 0u64;
        let result: std::io::Result<()> = (|| {
            for e in &self.entries {
                w.write_all(&e.key.to_le_bytes())?;
                w.write_all(&e.row.to_le_bytes())?;
                w.write_all(&e.line.to_le_bytes())?;
                w.write_all(&e.len.to_le_bytes())?;
                w.write_all(&self.arena[e.start..e.start + e.len as usize])?;
                written += 28 + e.len as u64;
            }
            w.flush()
        })();
        result.map_err(|e| self.error(e))?;
        let mut file = w.into_inner().map_err(|e| self.error(e.into_error()))?;
        file.seek(SeekFrom::Start(0)).map_err(|e| self.error(e))?;
        self.runs.push(file);
        self.spilled += written;
        self.entries.clear();
        self.arena.clear();
        Ok(())
    }

    /// Hands every row to `each` in increasing (key, row): its row, line and bytes.
    pub(crate) fn finish(mut self, each: &mut RowSink) -> Result<u64> {
        if self.runs.is_empty() {
            self.sort();
            for e in &self.entries {
                each(
                    e.row,
                    e.line,
                    &self.arena[e.start..e.start + e.len as usize],
                )
                .map_err(EngineError::Write)?;
            }
            return Ok(0);
        }
        if !self.entries.is_empty() {
            self.spill()?;
        }
        self.entries = Vec::new();
        self.arena = Vec::new();
        let dir = self.dir.clone();
        let error = |cause: std::io::Error| -> Error {
            EngineError::Spill {
                dir: dir.clone(),
                cause,
            }
            .into()
        };
        let mut readers: Vec<BufReader<File>> = std::mem::take(&mut self.runs)
            .into_iter()
            .map(|f| BufReader::with_capacity(1 << 20, f))
            .collect();
        let mut heads: Vec<Option<RunRow>> = Vec::new();
        let mut heap = BinaryHeap::new();
        for (i, r) in readers.iter_mut().enumerate() {
            let head = next(r).map_err(error)?;
            if let Some(h) = &head {
                heap.push(Reverse((h.key, h.row, i)));
            }
            heads.push(head);
        }
        while let Some(Reverse((_, _, i))) = heap.pop() {
            let head = heads[i].take().expect("a run's head is held");
            each(head.row, head.line, &head.bytes).map_err(EngineError::Write)?;
            heads[i] = next(&mut readers[i]).map_err(error)?;
            if let Some(h) = &heads[i] {
                heap.push(Reverse((h.key, h.row, i)));
            }
        }
        Ok(self.spilled)
    }
}

/// The next row of a run, or None at its end.
fn next(r: &mut impl Read) -> std::io::Result<Option<RunRow>> {
    let mut head = [0u8; 28];
    match r.read_exact(&mut head[..1]) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    r.read_exact(&mut head[1..])?;
    let word = |i: usize| u64::from_le_bytes(head[i..i + 8].try_into().expect("8 bytes"));
    let len = u32::from_le_bytes(head[24..28].try_into().expect("4 bytes")) as usize;
    let mut bytes = vec![0; len];
    r.read_exact(&mut bytes)?;
    Ok(Some(RunRow {
        key: word(0),
        row: word(8),
        line: word(16),
        bytes,
    }))
}

#[cfg(test)]
mod tests {
    use super::Sorter;
    use rand::{Rng, SeedableRng};

    /// Rows come out in (key, row) order whether they stayed in memory or were spilled to
    /// many runs, with their lines and bytes.
    #[test]
    fn spilled_and_in_memory_sorts_agree_with_a_plain_sort() {
        let dir = tempfile::tempdir().unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let rows: Vec<(u64, u64, Vec<u8>)> = (0..20_000u64)
            .map(|r| {
                let len = rng.gen_range(0..40);
                // few distinct keys: ties broken by the row
                (
                    rng.gen_range(0..5_000),
                    r,
                    (0..len).map(|_| rng.gen()).collect(),
                )
            })
            .collect();
        let mut expected = rows.clone();
        expected.sort_by_key(|(k, r, _)| (*k, *r));
        for budget in [usize::MAX, 1 << 20, 1] {
            let mut sorter = Sorter::new(budget, dir.path());
            if budget == 1 {
                // below the floor of 1 MiB: force runs by a tiny budget
                sorter.budget = 64 * 1024;
            }
            for (k, r, b) in &rows {
                sorter.push(*k, *r, r + 2, b).unwrap();
            }
            let runs = sorter.runs.len();
            let mut got = Vec::new();
            let spilled = sorter
                .finish(&mut |row, line, bytes| {
                    assert_eq!(line, row + 2);
                    got.push((row, bytes.to_vec()));
                    Ok(())
                })
                .unwrap();
            assert_eq!(got.len(), expected.len());
            for ((row, bytes), (_, r, b)) in got.iter().zip(&expected) {
                assert_eq!(row, r);
                assert!(bytes == b);
            }
            assert_eq!(spilled > 0, runs > 0, "budget {budget}");
            if budget == 1 {
                assert!(runs > 5, "{runs} runs");
            }
        }
        // the runs were anonymous files: nothing is left in the spill directory
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
