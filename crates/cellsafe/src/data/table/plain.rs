//! The fast path for plain CSV: no quote character, no blank line (found as the fields are
//! split), and line ends all `\n` or `\r\n` (no carriage return elsewhere). Such input has
//! one record per line and one field per delimiter, so it is split directly instead of
//! going through the csv crate and the line scanner.
//!
//! The fast path either produces exactly the table the general reader would, or declines
//! (`None`) and the general reader runs, which also gives every error its message and
//! location: a ragged row, invalid UTF-8, a duplicate column name, an empty file, a field
//! or line past its limit.

use std::path::Path;

use super::{CsvFormat, Dictionary, Table};
use crate::input::{MAX_FIELD, MAX_LINE};

/// The table of `bytes`, or `None` when the input is not plain or has an error.
///
/// Line ends are taken as the first line's are. After LF, the records are split with a
/// lookout for quotes and carriage returns (no search of the whole text for each first):
/// a quote declines, and a carriage return (a text that mixes its line ends) starts over
/// as for CRLF, where every carriage return is checked to end a line and no quote to be
/// anywhere before the split. The text is not checked for UTF-8 as a whole either: it is
/// split at ASCII bytes, so it is UTF-8 exactly when its header and each distinct field
/// are, which the header's reading and the interner check.
pub(super) fn parse(bytes: &[u8], source: &Path, format: &CsvFormat) -> Option<Table> {
    parse_lines(bytes, source, format, false).map(|(table, _)| table)
}

/// A table read by [`parse`], with `distinct` its rows the text's distinct lines, in order
/// of first occurrence, and each line's row beside it (the table's rows otherwise, and
/// None).
pub(super) type Lines = (Table, Option<Vec<u32>>);

/// [`parse`]; with `distinct`, a line met before is not read again but given the row of
/// its first reading (a release shows few distinct lines), so that the table holds each
/// distinct line once, as its rows, and the second part names each line's row.
pub(super) fn parse_lines(
    bytes: &[u8],
    source: &Path,
    format: &CsvFormat,
    distinct: bool,
) -> Option<Lines> {
    let delimiter = format.delimiter;
    if bytes.is_empty()
        || !delimiter.is_ascii()
        || delimiter == b'\n'
        || delimiter == b'\r'
        || delimiter == format.quote
        // the csv crate opens a quoted field at a quote that starts a field, a line end
        // included: a split at line ends would not see it
        || format.quote == b'\n'
        || format.quote == b'\r'
    {
        return None;
    }
    let first_end = memchr::memchr(b'\n', bytes).unwrap_or(bytes.len());
    if bytes[..first_end].ends_with(b"\r") {
        return split(bytes, source, format, true, distinct);
    }
    match split_checked(bytes, source, format, distinct) {
        Ok(lines) => Some(lines),
        Err(Declined::CarriageReturn) => split(bytes, source, format, true, distinct),
        Err(Declined::NotPlain) => None,
    }
}

/// Why [`split_checked`] gave up.
enum Declined {
    /// A quote, an error, or anything else the general reader must see.
    NotPlain,
    /// A carriage return after a first line that ended without one.
    CarriageReturn,
}

/// [`split`] with LF line ends, looking out for quotes and carriage returns as it goes.
fn split_checked(
    bytes: &[u8],
    source: &Path,
    format: &CsvFormat,
    distinct: bool,
) -> Result<Lines, Declined> {
    let mut met = None;
    let lines = read(bytes, source, format, false, Some(&mut met), distinct);
    match (lines, met) {
        (_, Some(b'\r')) => Err(Declined::CarriageReturn),
        (Some(lines), None) => Ok(lines),
        _ => Err(Declined::NotPlain),
    }
}

/// [`read`] after a search of the whole text: a carriage return only as part of a CRLF
/// line end (`crlf`: line ends may be CRLF) and no quote anywhere.
fn split(
    bytes: &[u8],
    source: &Path,
    format: &CsvFormat,
    crlf: bool,
    distinct: bool,
) -> Option<Lines> {
    if memchr::memchr_iter(b'\r', bytes).any(|i| !crlf || bytes.get(i + 1) != Some(&b'\n')) {
        return None;
    }
    if memchr::memchr(format.quote, bytes).is_some() {
        return None;
    }
    read(bytes, source, format, crlf, None, distinct)
}

/// The table of `bytes`, split at each delimiter and line end (a carriage return before
/// a line end dropped when `crlf`), as [`parse_lines`] reads it. With `met`, the split
/// stops at a quote or carriage return, recorded there, and the table is None.
fn read(
    bytes: &[u8],
    source: &Path,
    format: &CsvFormat,
    crlf: bool,
    met: Option<&mut Option<u8>>,
    distinct: bool,
) -> Option<Lines> {
    let delimiter = format.delimiter;
    if bytes[0] == b'\n'
        || bytes.starts_with(b"\r\n")
        // the csv crate drops a byte-order mark that opens the input
        || bytes.starts_with("\u{feff}".as_bytes())
    {
        return None;
    }
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let body = if crlf {
        body.strip_suffix(b"\r").unwrap_or(body)
    } else {
        body
    };
    let (first, rest) = match memchr::memchr(b'\n', body) {
        Some(at) => (&body[..at], Some(&body[at + 1..])),
        None => (body, None),
    };
    let first = if crlf {
        first.strip_suffix(b"\r").unwrap_or(first)
    } else {
        first
    };
    let watched = met.is_some();
    if watched && first.iter().any(|&b| b == format.quote || b == b'\r') {
        return None;
    }
    let first = std::str::from_utf8(first).ok()?;
    let width = first.split(delimiter as char).count();
    let header: Vec<String> = if format.header {
        first
            .split(delimiter as char)
            .map(|s| s.trim_start_matches('\u{feff}').to_owned())
            .collect()
    } else {
        (1..=width).map(|i| i.to_string()).collect()
    };
    // a field or line past its limit: the general reader says where (it counts a name's
    // bytes before a byte-order mark is taken off)
    if first.len() > MAX_LINE || first.split(delimiter as char).any(|h| h.len() > MAX_FIELD) {
        return None;
    }
    if super::duplicate_name(&header).is_some() {
        return None;
    }
    // the records after the first (and the first too without a header), field by field:
    // one pass finds every delimiter and line end
    let (data, line) = match (format.header, rest) {
        (true, Some(rest)) => (rest, 2),
        (true, None) => (&b""[..], 2),
        (false, _) => (body, 1),
    };
    // room for the rows foreseen, so that the columns are not grown by doubling (each
    // time copied, and into memory the kernel zeroes afresh); read as distinct lines, the
    // columns grow as lines come that were not met before (room for every row would be
    // fresh memory, untouched but for a few lines)
    let rows = foreseen_rows(data, width);
    let room = if distinct { 0 } else { rows };
    let mut columns: Vec<Vec<u32>> = (0..width).map(|_| Vec::with_capacity(room)).collect();
    let mut interners: Vec<Interner> = (0..width).map(|_| Interner::new()).collect();
    let mut lines = Vec::with_capacity(room);
    let mut of_line = distinct.then(|| Vec::with_capacity(rows));
    if !data.is_empty() {
        let mut fields = Fields {
            width,
            crlf,
            delimiter,
            watch: watched.then_some((format.quote, b'\r')),
            met: None,
            columns: &mut columns,
            interners: &mut interners,
            lines: &mut lines,
            of_line: of_line.as_mut(),
            line,
        };
        // line by line while lines repeat, then field by field over the rest
        let at = fields.lines_repeated(data);
        let done = match at {
            Some(at) => match data.get(at..).filter(|r| !r.is_empty()) {
                Some(rest) => fields.fields(rest).is_some(),
                None => true,
            },
            None => false,
        };
        if let (Some(met), Some(byte)) = (met, fields.met) {
            *met = Some(byte);
            return None;
        }
        if !done {
            return None;
        }
    }
    let dictionaries = interners.into_iter().map(|i| i.dictionary).collect();
    let table = Table {
        source: source.to_owned(),
        header,
        columns,
        dictionaries,
        lines,
        schema: None,
        sql_types: None,
    };
    Some((table, of_line))
}

/// How many records `data` holds, foreseen from its first lines' mean length (an eighth
/// more, for lines longer further on); at most one per `width` bytes, the fewest a record
/// of that many fields takes.
fn foreseen_rows(data: &[u8], width: usize) -> usize {
    const SAMPLE: usize = 64;
    let most = data.len() / width.max(1) + 1;
    let ends = memchr::memchr_iter(b'\n', data).take(SAMPLE);
    let (n, last) = ends.fold((0usize, 0usize), |(n, _), at| (n + 1, at + 1));
    if n < SAMPLE {
        return n + 1;
    }
    let foreseen = data.len() / last.div_ceil(n).max(1);
    (foreseen + foreseen / 8 + 1).min(most)
}

/// How a search ([`each_match`]) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Split {
    /// Every match was passed on.
    All,
    /// The caller said to stop.
    Stopped,
    /// A watched byte, this one, is in the text.
    Met(u8),
}

/// Calls `found` with each position of byte `a` or `b` in `text`, in order, then with the
/// text's length (where its last field ends), until it says false. With `WATCH`, the
/// search ends, before any match of its block is passed on, where one of the two bytes of
/// `watch` is in the text. Where the processor has AVX2 (asked once, then cached by the
/// standard library), 32 bytes are compared at a time ([`each_match_avx2`]), else eight
/// ([`each_match_words`]): either way each block's matches are read off a mask, where a
/// search per match (`memchr2`) pays a call and a vector set-up for fields a few bytes
/// long.
#[inline(always)]
fn each_match<const WATCH: bool>(
    text: &[u8],
    a: u8,
    b: u8,
    watch: (u8, u8),
    found: impl FnMut(usize) -> bool,
) -> Split {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2, checked just above
        return unsafe { each_match_avx2::<WATCH>(text, a, b, watch, found) };
    }
    each_match_words::<WATCH>(text, a, b, watch, found)
}

/// [`each_match`] 32 bytes at a time, the last block (fewer than 32 bytes) through
/// [`each_match_words`].
///
/// # Safety
/// The processor must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn each_match_avx2<const WATCH: bool>(
    text: &[u8],
    a: u8,
    b: u8,
    watch: (u8, u8),
    mut found: impl FnMut(usize) -> bool,
) -> Split {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256,
        _mm256_set1_epi8,
    };
    let (va, vb) = (_mm256_set1_epi8(a as i8), _mm256_set1_epi8(b as i8));
    let (vc, vd) = (
        _mm256_set1_epi8(watch.0 as i8),
        _mm256_set1_epi8(watch.1 as i8),
    );
    let mut blocks = text.chunks_exact(32);
    let mut base = 0;
    for block in &mut blocks {
        // SAFETY: `block` holds 32 bytes; the load needs no alignment
        let v = unsafe { _mm256_loadu_si256(block.as_ptr().cast::<__m256i>()) };
        if WATCH {
            let met = _mm256_or_si256(_mm256_cmpeq_epi8(v, vc), _mm256_cmpeq_epi8(v, vd));
            let met = _mm256_movemask_epi8(met) as u32;
            if met != 0 {
                return Split::Met(block[met.trailing_zeros() as usize]);
            }
        }
        let hits = _mm256_or_si256(_mm256_cmpeq_epi8(v, va), _mm256_cmpeq_epi8(v, vb));
        let mut mask = _mm256_movemask_epi8(hits) as u32;
        while mask != 0 {
            if !found(base + mask.trailing_zeros() as usize) {
                return Split::Stopped;
            }
            mask &= mask - 1;
        }
        base += 32;
    }
    each_match_words::<WATCH>(blocks.remainder(), a, b, watch, |at| found(base + at))
}

/// [`each_match`] eight bytes at a time: each word's matches are marked by bit
/// arithmetic.
#[inline(always)]
fn each_match_words<const WATCH: bool>(
    text: &[u8],
    a: u8,
    b: u8,
    watch: (u8, u8),
    mut found: impl FnMut(usize) -> bool,
) -> Split {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let (a, b) = (ONES * u64::from(a), ONES * u64::from(b));
    let (c, d) = (ONES * u64::from(watch.0), ONES * u64::from(watch.1));
    // the first watched byte of `word` (of its bytes marked in `valid`), if any
    let met = |word: u64, valid: u64| {
        let mask = (zero_bytes(word ^ c) | zero_bytes(word ^ d)) & valid;
        (mask != 0).then(|| (word >> (mask.trailing_zeros() / 8 * 8)) as u8)
    };
    let mut words = text.chunks_exact(8);
    let mut base = 0;
    for word in &mut words {
        let word = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        if WATCH {
            if let Some(byte) = met(word, u64::MAX) {
                return Split::Met(byte);
            }
        }
        let mut mask = zero_bytes(word ^ a) | zero_bytes(word ^ b);
        while mask != 0 {
            if !found(base + mask.trailing_zeros() as usize / 8) {
                return Split::Stopped;
            }
            mask &= mask - 1;
        }
        base += 8;
    }
    let rest = words.remainder();
    let mut last = [0u8; 8];
    last[..rest.len()].copy_from_slice(rest);
    let word = u64::from_le_bytes(last);
    // the padding is not text
    let valid = (1u64 << (8 * rest.len())) - 1;
    if WATCH {
        // the high bit of each valid byte: what `zero_bytes` marks
        if let Some(byte) = met(word, valid & (ONES << 7)) {
            return Split::Met(byte);
        }
    }
    let mut mask = (zero_bytes(word ^ a) | zero_bytes(word ^ b)) & valid;
    while mask != 0 {
        if !found(base + mask.trailing_zeros() as usize / 8) {
            return Split::Stopped;
        }
        mask &= mask - 1;
    }
    if found(text.len()) {
        Split::All
    } else {
        Split::Stopped
    }
}

/// The high bit of each byte of `x` that is zero (exactly: no borrow runs between bytes).
#[inline]
fn zero_bytes(x: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    !(((x & LOW7).wrapping_add(LOW7)) | x | LOW7)
}

/// The table being read: its columns, their interners and each row's line.
struct Fields<'t> {
    width: usize,
    crlf: bool,
    delimiter: u8,
    /// Two bytes whose presence ends the split (a quote and a carriage return), recorded
    /// in `met`.
    watch: Option<(u8, u8)>,
    met: Option<u8>,
    columns: &'t mut Vec<Vec<u32>>,
    interners: &'t mut Vec<Interner>,
    lines: &'t mut Vec<u64>,
    /// With distinct lines read (see [`parse_lines`]), each line's row in `columns`: a
    /// line met again is not added there.
    of_line: Option<&'t mut Vec<u32>>,
    /// The line the next record starts on.
    line: u64,
}

impl Fields<'_> {
    /// Reads the records of `bytes` line by line, a line met before taking the codes it
    /// had then ([`Repeats`]), until the lines stop repeating; returns where it stopped
    /// (the text's length when it read every line), or None when the text is not plain.
    fn lines_repeated(&mut self, bytes: &[u8]) -> Option<usize> {
        let mut repeats = Repeats::new();
        let (mut at, mut plain) = (0usize, true);
        // the line ends found 32 bytes at a time (a search per line paid a call and a set-up
        // for lines of some 50 bytes)
        let all = each_match::<false>(
            bytes,
            b'\n',
            b'\n',
            (0, 0),
            #[inline(always)]
            |end| {
                if end - at > MAX_LINE {
                    plain = false;
                    return false;
                }
                let mut record = &bytes[at..end];
                if self.crlf {
                    record = record.strip_suffix(b"\r").unwrap_or(record);
                }
                match (repeats.find(record, bytes), self.of_line.as_mut()) {
                    // a line met before has the row it had then
                    (Some(first), Some(of_line)) => {
                        of_line.push(first as u32);
                        self.line += 1;
                    }
                    // or the codes
                    (Some(first), None) => {
                        for column in self.columns.iter_mut() {
                            let code = column[first];
                            column.push(code);
                        }
                        self.lines.push(self.line);
                        self.line += 1;
                    }
                    (None, _) => {
                        // the row it is read as (a line number per row)
                        let row = self.lines.len();
                        if self.fields(record).is_none() {
                            plain = false;
                            return false;
                        }
                        repeats.insert(at, record, row);
                    }
                }
                at = (end + 1).min(bytes.len());
                repeats.on
            },
        );
        match (plain, all) {
            (false, _) => None,
            (true, Split::All) => Some(bytes.len()),
            (true, _) => Some(at),
        }
    }

    /// Reads the records of `bytes` field by field, in one pass over its delimiters and
    /// line ends; None when the text is not plain, or has a byte watched for (recorded).
    fn fields(&mut self, bytes: &[u8]) -> Option<()> {
        let before = self.lines.len();
        let split = match self.watch {
            Some(watch) => self.split::<true>(bytes, watch),
            None => self.split::<false>(bytes, (0, 0)),
        };
        match split {
            Split::All => {
                // each line read is a row of its own
                if let Some(of_line) = self.of_line.as_mut() {
                    of_line.extend(before as u32..self.lines.len() as u32);
                }
                Some(())
            }
            Split::Stopped => None,
            Split::Met(byte) => {
                self.met = Some(byte);
                None
            }
        }
    }

    /// [`fields`](Self::fields), watching for `watch` with `WATCH`.
    #[inline(always)]
    fn split<const WATCH: bool>(&mut self, bytes: &[u8], watch: (u8, u8)) -> Split {
        let (mut start, mut column, mut record_start) = (0usize, 0usize, 0usize);
        // fields are split at ASCII bytes of valid UTF-8, so each is valid UTF-8 too
        each_match::<WATCH>(
            bytes,
            self.delimiter,
            b'\n',
            watch,
            #[inline(always)]
            |end| {
                if end - start > MAX_FIELD || end - record_start > MAX_LINE {
                    return false;
                }
                let record_ends = end == bytes.len() || bytes[end] == b'\n';
                let mut field = &bytes[start..end];
                if record_ends && self.crlf {
                    field = field.strip_suffix(b"\r").unwrap_or(field);
                }
                // a blank line, which the csv crate skips (found here rather than by a
                // search of the text for two line ends in a row, which costs a stop at
                // every line end)
                if record_ends && column == 0 && field.is_empty() {
                    return false;
                }
                let Some(interner) = self.interners.get_mut(column) else {
                    return false;
                };
                let Some(code) = interner.intern(field, self.line) else {
                    return false;
                };
                self.columns[column].push(code);
                column += 1;
                start = end + 1;
                if record_ends {
                    if column != self.width {
                        return false;
                    }
                    self.lines.push(self.line);
                    self.line += 1;
                    column = 0;
                    record_start = start;
                }
                true
            },
        )
    }
}

/// The lines met so far, found by their bytes, with the row each was first read as: a
/// line met again takes that row's codes without splitting or interning its fields. A
/// release shows few distinct lines (a few hundred in 30,162 rows of Adult generalized),
/// so the audit's reading of it is mostly such copies. When fewer than a tenth of the
/// first [`FIRST_TRIAL`] lines, or a quarter of the first [`TRIAL`], repeat one before (an
/// input table, whose rows differ), it stops looking, and the rest is read field by field:
/// on Adult's input (2 % of its first 512 lines repeated, 12 % of its first 4,096),
/// looking through a whole trial of 4,096 lines cost 0.2–0.3 ms more than it saved.
struct Repeats {
    seed: u64,
    /// `slots[i]`: 0 for an empty slot, else an index into `lines` plus one.
    slots: Vec<u32>,
    /// Each distinct line: where it starts in the text, its length, its hash, its row.
    lines: Vec<(usize, usize, u32, usize)>,
    /// Lines looked up, and found.
    seen: usize,
    found: usize,
    on: bool,
    /// The hash of the line last looked up and not found, and the empty slot where the
    /// search ended: where [`insert`](Self::insert) puts it, without hashing it again.
    missed: Option<(u32, usize)>,
}

/// Lines read before [`Repeats`] first decides whether looking them up pays, and before
/// it decides again.
const FIRST_TRIAL: usize = 512;
const TRIAL: usize = 4096;

impl Repeats {
    fn new() -> Self {
        Repeats {
            seed: fresh_seed(),
            slots: vec![0; 64],
            lines: Vec::new(),
            seen: 0,
            found: 0,
            on: true,
            missed: None,
        }
    }

    /// The row `record` (a line of `text`) was first read as, if it was.
    #[inline]
    fn find(&mut self, record: &[u8], text: &[u8]) -> Option<usize> {
        self.missed = None;
        if !self.on {
            return None;
        }
        self.seen += 1;
        // few repeats early, or not many by the end of the trial: a table of distinct rows
        if (self.seen == FIRST_TRIAL && self.found * 10 < FIRST_TRIAL)
            || (self.seen == TRIAL && self.found * 4 < TRIAL)
        {
            self.on = false;
            self.slots = Vec::new();
            self.lines = Vec::new();
            return None;
        }
        let hash = hash_all(record, self.seed) as u32;
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            match self.slots[i] {
                0 => {
                    self.missed = Some((hash, i));
                    return None;
                }
                slot => {
                    let (start, len, known, row) = self.lines[slot as usize - 1];
                    if known == hash && text.get(start..start + len) == Some(record) {
                        self.found += 1;
                        return Some(row);
                    }
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// Records `record`, which starts at `start` of the text and was just looked up and
    /// not found, as row `row`.
    fn insert(&mut self, start: usize, record: &[u8], row: usize) {
        let Some((hash, slot)) = self.missed.take() else {
            return;
        };
        self.lines.push((start, record.len(), hash, row));
        if self.lines.len() * 2 > self.slots.len() {
            self.slots = vec![0u32; self.slots.len() * 2];
            let mask = self.slots.len() - 1;
            for (n, &(_, _, hash, _)) in self.lines.iter().enumerate() {
                let mut i = hash as usize & mask;
                while self.slots[i] != 0 {
                    i = (i + 1) & mask;
                }
                self.slots[i] = n as u32 + 1;
            }
            return;
        }
        // nothing was placed since the search that ended there
        self.slots[slot] = self.lines.len() as u32;
    }
}

/// A seed drawn from the process's hash keys (random per process), so that a file cannot
/// be made of lines or fields that collide.
fn fresh_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish()
}

/// A hash of every byte of `bytes` under `seed`: eight at a time (the last eight
/// overlapping the word before), multiplied, then avalanched.
#[inline]
fn hash_all(bytes: &[u8], seed: u64) -> u64 {
    const K: u64 = 0xf135_7aea_2e62_a9c5;
    let n = bytes.len();
    let mut h = (n as u64 ^ seed).wrapping_mul(K);
    if n >= 8 {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            let word = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
            h = (h.rotate_left(26) ^ word).wrapping_mul(K);
        }
        if !words.remainder().is_empty() {
            let last = u64::from_le_bytes(bytes[n - 8..].try_into().unwrap_or([0; 8]));
            h = (h.rotate_left(26) ^ last).wrapping_mul(K);
        }
    } else {
        let mut last = [0u8; 8];
        last[..n].copy_from_slice(bytes);
        h = (h.rotate_left(26) ^ u64::from_le_bytes(last)).wrapping_mul(K);
    }
    h ^= h >> 32;
    h = h.wrapping_mul(K);
    h ^ (h >> 29)
}

/// The distinct fields of one column met so far, found by their bytes: an open-addressing
/// table of codes beside the column's dictionary, so that a field met again (the common
/// case) costs a hash and a comparison of two words, without allocating. The codes are
/// those [`Dictionary::intern`] gives, in order of first occurrence, and the dictionary
/// grows as that one does (what the table adds is a key and a slot or two per value).
struct Interner {
    /// Drawn per column, so that a file cannot be made of fields that collide.
    seed: u64,
    /// `slots[i]`: 0 for an empty slot, else a code plus one.
    slots: Vec<u32>,
    /// Each code's key.
    keys: Vec<Key>,
    dictionary: Dictionary,
}

/// What a field is found by: its hash, length and (for a field of at most 16 bytes) two
/// words holding every byte, so that equal keys of short fields are equal fields.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Key {
    words: (u64, u64),
    hash: u32,
    len: u32,
}

impl Interner {
    fn new() -> Self {
        Interner {
            seed: fresh_seed(),
            slots: vec![0; 16],
            keys: Vec::new(),
            dictionary: Dictionary::default(),
        }
    }

    /// The code of `field`, added (first met on `line`) if new; None if it is new and
    /// not UTF-8 (which a field split from UTF-8 text at ASCII bytes never is).
    #[inline(always)]
    fn intern(&mut self, field: &[u8], line: u64) -> Option<u32> {
        let key = key(field, self.seed);
        let mask = self.slots.len() - 1;
        let mut i = key.hash as usize & mask;
        loop {
            match self.slots[i] {
                0 => break,
                slot => {
                    let code = slot - 1;
                    if self.keys[code as usize] == key
                        && (key.len <= 16 || self.dictionary.value(code).as_bytes() == field)
                    {
                        return Some(code);
                    }
                }
            }
            i = (i + 1) & mask;
        }
        self.insert(field, line, key, i)
    }

    /// Adds `field`, new, with `key` in the empty slot `i` (out of line: most fields are
    /// met before).
    #[cold]
    #[inline(never)]
    fn insert(&mut self, field: &[u8], line: u64, key: Key, i: usize) -> Option<u32> {
        let code = self
            .dictionary
            .intern(std::str::from_utf8(field).ok()?, line);
        self.keys.push(key);
        self.slots[i] = code + 1;
        // at most half full
        if self.keys.len() * 2 > self.slots.len() {
            self.grow();
        }
        Some(code)
    }

    fn grow(&mut self) {
        let mut slots = vec![0u32; self.slots.len() * 2];
        let mask = slots.len() - 1;
        for (code, key) in self.keys.iter().enumerate() {
            let mut i = key.hash as usize & mask;
            while slots[i] != 0 {
                i = (i + 1) & mask;
            }
            slots[i] = code as u32 + 1;
        }
        self.slots = slots;
    }
}

/// The key of `bytes` under `seed`. Its words hold the first and last eight bytes (for a
/// field of 8 to 16 bytes, so every byte), the first and last four (4 to 7 bytes), or the
/// first, middle and last byte (1 to 3 bytes). The hash mixes every byte (a longer
/// field's middle eight at a time, its last such word overlapping the one before), then
/// avalanches, so that every byte can move a field to any slot; finding a longer field
/// compares its bytes.
#[inline(always)]
fn key(bytes: &[u8], seed: u64) -> Key {
    const K: u64 = 0xf135_7aea_2e62_a9c5;
    let n = bytes.len();
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or([0; 8]));
    let half = |at: usize| {
        u64::from(u32::from_le_bytes(
            bytes[at..at + 4].try_into().unwrap_or([0; 4]),
        ))
    };
    let words = match n {
        0 => (0, 0),
        1..=3 => (
            u64::from(bytes[0]) | u64::from(bytes[n / 2]) << 8 | u64::from(bytes[n - 1]) << 16,
            0,
        ),
        4..=7 => (half(0), half(n - 4)),
        _ => (word(0), word(n - 8)),
    };
    let mut h = (words.0 ^ seed).wrapping_mul(K);
    h = (h.rotate_left(26) ^ words.1 ^ (n as u64)).wrapping_mul(K);
    if n > 16 {
        // bytes 8 to n - 8, which the words leave out: eight at a time, the last word
        // ending where the last eight bytes begin
        let mut at = 8;
        loop {
            let last = at + 8 >= n - 8;
            h = (h.rotate_left(26) ^ word(if last { n - 16 } else { at })).wrapping_mul(K);
            if last {
                break;
            }
            at += 8;
        }
    }
    h ^= h >> 32;
    h = h.wrapping_mul(K);
    h ^= h >> 29;
    Key {
        words,
        hash: h as u32,
        // a field is at most MAX_FIELD bytes, so its length fits
        len: n as u32,
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use proptest::prelude::*;

    use super::super::{CsvFormat, Table};

    /// The general reader's answer, and the fast path's when it answers, agree.
    fn agree(bytes: &[u8], format: &CsvFormat) -> Result<(), TestCaseError> {
        let slow = Table::from_reader(bytes, Path::new("t.csv"), format);
        let fast = Table::from_bytes(bytes, Path::new("t.csv"), format);
        match (slow, fast) {
            (Ok(a), Ok(b)) => {
                prop_assert_eq!(a.header(), b.header());
                prop_assert_eq!(a.rows(), b.rows());
                for c in 0..a.header().len() {
                    prop_assert_eq!(a.codes(c), b.codes(c));
                    prop_assert_eq!(a.dictionary(c).values(), b.dictionary(c).values());
                    for code in 0..a.dictionary(c).len() as u32 {
                        prop_assert_eq!(
                            a.dictionary(c).first_line(code),
                            b.dictionary(c).first_line(code)
                        );
                    }
                }
                for r in 0..a.rows() {
                    prop_assert_eq!(a.line(r), b.line(r));
                }
            }
            (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
            (a, b) => prop_assert!(false, "general {:?} vs fast {:?}", a.is_ok(), b.is_ok()),
        }
        Ok(())
    }

    /// The dialect of the tests' texts: `;` between fields.
    fn semicolons() -> CsvFormat {
        CsvFormat {
            delimiter: b';',
            ..CsvFormat::default()
        }
    }

    /// Two texts of three columns with line ends `end`: `rows` lines that repeat from the
    /// start (1,050 distinct), and lines distinct for a whole trial that then repeat.
    fn repeating(end: &str, rows: usize) -> (String, String) {
        let mut often = format!("a;b;c{end}");
        for i in 0..rows {
            often += &format!("{};x{};{}{end}", i % 50, i % 7, i % 3);
        }
        let mut late = format!("a;b;c{end}");
        for i in 0..(super::TRIAL + 2_000) {
            let i = if i < super::TRIAL { i } else { i % 100 };
            late += &format!("{i};y;{}{end}", i % 9);
        }
        (often, late)
    }

    /// Repeated lines take their first reading's codes, whether lines repeat from the
    /// start (the lookup stays on) or only after the trial of distinct lines (it is off
    /// by then), with LF or CRLF line ends, a ragged repeat of a line cut short included.
    #[test]
    fn repeated_lines_read_alike() {
        let format = semicolons();
        for end in ["\n", "\r\n"] {
            let (often, late) = repeating(end, 10_000);
            agree(often.as_bytes(), &format).unwrap();
            agree(late.as_bytes(), &format).unwrap();
            let ragged = format!("{often}1;x1{end}1;x1;1{end}");
            agree(ragged.as_bytes(), &format).unwrap();
        }
    }

    /// A header name within its limit only once a byte-order mark is taken off it is past
    /// the limit for the general reader, which counts the mark: the fast path declines it
    /// too (it accepted names up to three bytes over).
    #[test]
    fn a_header_name_past_the_limit_with_its_byte_order_mark_is_refused() {
        use crate::input::MAX_FIELD;
        let format = CsvFormat::default();
        for len in MAX_FIELD - 4..=MAX_FIELD + 1 {
            let text = format!("a,\u{feff}{}\n1,2\n", "x".repeat(len));
            agree(text.as_bytes(), &format).unwrap();
        }
    }

    /// A quote byte that is a line end: the csv crate opens a quoted field at a line feed
    /// that starts a field, so the fast path, which splits at line ends, declines (it read
    /// these texts otherwise).
    #[test]
    fn a_quote_that_is_a_line_end_reads_as_the_general_reader_reads_it() {
        for quote in [b'\n', b'\r'] {
            let format = CsvFormat {
                quote,
                ..CsvFormat::default()
            };
            for text in [
                &b"x,y\na,\n"[..],
                b"x,y\na,\nb,c\n",
                b"x,y\na,\nb,c",
                b"x,y\na,b\n",
                b"x,\n1,2\n",
                b"x,y\r\na,\r\nb,c\r\n",
            ] {
                agree(text, &format).unwrap();
            }
        }
    }

    /// Blank lines, which the csv crate skips, in a table of one column (where a blank
    /// line would otherwise read as one empty field): after the header, between rows, at
    /// the end, with LF or CRLF ends, while lines repeat (looked up) and after the lookup
    /// stopped, with and without a header.
    #[test]
    fn blank_lines_read_alike_in_one_column() {
        for header in [true, false] {
            let format = CsvFormat {
                header,
                ..CsvFormat::default()
            };
            for end in ["\n", "\r\n"] {
                let mut repeated = format!("v{end}");
                for i in 0..600 {
                    repeated += &format!("{}{end}", i % 3);
                }
                let mut distinct = format!("v{end}");
                for i in 0..(super::TRIAL + 100) {
                    distinct += &format!("{i}{end}");
                }
                for body in [&repeated, &distinct] {
                    let cases = [
                        format!("{body}{end}"),
                        format!("{body}{end}7{end}"),
                        body.replacen(end, &format!("{end}{end}"), 1),
                        format!("{body}{end}{end}8"),
                    ];
                    for text in cases {
                        let slow = Table::from_reader(text.as_bytes(), Path::new("t.csv"), &format);
                        let fast = Table::from_bytes(text.as_bytes(), Path::new("t.csv"), &format);
                        let (slow, fast) = (slow.unwrap(), fast.unwrap());
                        assert_eq!(slow.rows(), fast.rows(), "{header} {end:?}");
                        assert_eq!(slow.codes(0), fast.codes(0));
                        assert!((0..slow.rows()).all(|r| slow.line(r) == fast.line(r)));
                        agree(text.as_bytes(), &format).unwrap();
                    }
                }
            }
        }
    }

    /// What the split watches for, met only far into a text of LF line ends (in a line
    /// repeated from the start, in one of distinct lines, in the last line): a carriage
    /// return ending a line (line ends mixed), one inside a field, a quote, a byte that is
    /// not UTF-8. Each text reads as the general reader reads it; the table of mixed line
    /// ends is read by the fast path too (as CRLF), not left to the general reader.
    #[test]
    fn a_quote_or_carriage_return_far_into_the_text_reads_alike() {
        let format = semicolons();
        let mut repeated = String::from("a;b;c\n");
        for i in 0..3_000 {
            repeated += &format!("{};x{};{}\n", i % 40, i % 7, i % 3);
        }
        let mut distinct = String::from("a;b;c\n");
        for i in 0..(super::TRIAL + 3_000) {
            distinct += &format!("{i};y{};{}\n", i % 11, i * 7);
        }
        for body in [&repeated, &distinct] {
            let n = body.len();
            let late = |piece: &str| format!("{}{piece}\n{}", &body[..n / 2], &body[n / 2..]);
            let texts = [
                late("1;2;3\r"),
                late("1;2\r;3"),
                late("1;\"2\";3"),
                format!("{body}1;2;3\r\n"),
                format!("{body}1;2;\"3\"\n"),
            ];
            for text in &texts {
                agree(text.as_bytes(), &format).unwrap();
            }
            let mut invalid = late("1;2;3").into_bytes();
            let at = invalid.len() - 3;
            invalid[at] = 0xff;
            agree(&invalid, &format).unwrap();
            assert!(super::parse(&invalid, Path::new("t.csv"), &format).is_none());
            // line ends mixed: read by the fast path, as CRLF
            let mixed = super::parse(texts[3].as_bytes(), Path::new("t.csv"), &format).unwrap();
            assert_eq!(mixed.rows(), body.lines().count());
            for text in &texts[2..] {
                let quoted = text.contains('"');
                assert_eq!(
                    super::parse(text.as_bytes(), Path::new("t.csv"), &format).is_none(),
                    quoted
                );
            }
            assert!(super::parse(texts[1].as_bytes(), Path::new("t.csv"), &format).is_none());
        }
    }

    /// Read as distinct lines, a text expands back, row by row, to the table read line by
    /// line: the same cell in every row and column, with LF or CRLF line ends, lines
    /// repeating from the start, after a trial of distinct ones (the lookup is off by
    /// then), or not at all; each distinct line is read once while the lookup is on.
    #[test]
    fn distinct_lines_expand_to_every_line() {
        let format = semicolons();
        for end in ["\n", "\r\n"] {
            let (often, late) = repeating(end, 5_000);
            // 105 distinct lines, repeating from the 106th: each read once
            let mut few = format!("a;b;c{end}");
            for i in 0..5_000 {
                few += &format!("{};x{};{}{end}", i % 5, i % 7, i % 3);
            }
            for text in [&often, &late, &few] {
                let every =
                    Table::from_bytes(text.as_bytes(), Path::new("t.csv"), &format).unwrap();
                let (distinct, of_row) =
                    super::parse_lines(text.as_bytes(), Path::new("t.csv"), &format, true).unwrap();
                let of_row = of_row.unwrap();
                assert_eq!(of_row.len(), every.rows());
                for (r, &d) in of_row.iter().enumerate() {
                    for c in 0..3 {
                        assert_eq!(distinct.value(d as usize, c), every.value(r, c));
                    }
                }
                assert!(
                    super::parse_lines(text.as_bytes(), Path::new("t.csv"), &format, false)
                        .unwrap()
                        .1
                        .is_none()
                );
            }
            let (distinct, _) =
                super::parse_lines(few.as_bytes(), Path::new("t.csv"), &format, true).unwrap();
            let mut lines: Vec<&str> = few.lines().skip(1).collect();
            lines.sort_unstable();
            lines.dedup();
            assert_eq!(lines.len(), 105);
            assert_eq!(distinct.rows(), lines.len());
        }
    }

    /// The rows foreseen for the columns' room: exact for a text of few lines, within an
    /// eighth over for lines alike, never more than one row per `width` bytes.
    #[test]
    fn rows_foreseen_from_the_first_lines() {
        assert_eq!(super::foreseen_rows(b"", 3), 1);
        assert_eq!(super::foreseen_rows(b"a;b;c\nd;e;f", 3), 2);
        let alike = "aa;bb;cc\n".repeat(1_000);
        let rows = super::foreseen_rows(alike.as_bytes(), 3);
        assert!((1_000..=1_126).contains(&rows), "{rows}");
        let short = "a\n".repeat(100) + &"a".repeat(100_000);
        let rows = super::foreseen_rows(short.as_bytes(), 1);
        assert!((50_100..=56_363).contains(&rows), "{rows}");
        assert_eq!(
            super::foreseen_rows(short.as_bytes(), 50),
            short.len() / 50 + 1
        );
    }

    /// Every byte of a field moves its hash: fields that differ in one byte, at any place
    /// and length, hash apart (a byte left out of the hash makes a whole column collide,
    /// and interning it quadratic).
    #[test]
    fn every_byte_moves_the_hash() {
        for seed in [0, 0x9e37_79b9_7f4a_7c15] {
            for len in 1..72usize {
                let base: Vec<u8> = (0..len).map(|i| b'a' + (i % 23) as u8).collect();
                for at in 0..len {
                    let mut other = base.clone();
                    other[at] ^= 0x10;
                    let (a, b) = (super::key(&base, seed), super::key(&other, seed));
                    assert_ne!(a.hash, b.hash, "length {len}, byte {at}");
                }
            }
        }
    }

    /// Fields alike but for their last bytes (times of day, counters) spread over the
    /// slots about as random ones would: 1,440 of them fill more than 1,000 of 4,096 slots
    /// (random ones, about 1,210); a hash whose last bytes reach only its high bits puts
    /// them in a few runs, which linear probing walks.
    #[test]
    fn alike_fields_spread_over_the_slots() {
        for seed in [0, 7] {
            for pattern in [
                "2024-03-15 {h:02}:{m:02}",
                "MRN-00{h:02}-{m:02}",
                "{h:08}{m:08}",
            ] {
                let mut slots = std::collections::HashSet::new();
                for h in 0..24 {
                    for m in 0..60 {
                        let field = pattern
                            .replace("{h:02}", &format!("{h:02}"))
                            .replace("{m:02}", &format!("{m:02}"))
                            .replace("{h:08}", &format!("{h:08}"))
                            .replace("{m:08}", &format!("{m:08}"));
                        slots.insert(super::key(field.as_bytes(), seed).hash & 4095);
                    }
                }
                assert!(slots.len() > 1000, "{pattern}: {} slots", slots.len());
            }
        }
    }

    /// Columns of many distinct values (the interner's table grows several times), of long
    /// values alike but for one byte in the middle (told apart by their bytes), and of
    /// values of every length up to 20 that differ in one byte, at every position (told
    /// apart by their key's words): read as the general reader reads them.
    #[test]
    fn many_and_alike_values_read_alike() {
        let mut text = String::from("n;long;short\n");
        for i in 0..20_000usize {
            let long = format!(
                "{}{}{}",
                "p".repeat(20),
                (b'a' + (i % 26) as u8) as char,
                "s".repeat(20)
            );
            let len = 1 + i % 20;
            let mut short = vec![b'x'; len];
            short[(i / 20) % len] = b'a' + (i / 400 % 26) as u8;
            let short = String::from_utf8(short).unwrap_or_default();
            text += &format!("{};{long};{short}\n", (i * 7919) % 6000);
        }
        let format = semicolons();
        let table = Table::from_bytes(text.as_bytes(), Path::new("t.csv"), &format).unwrap();
        assert_eq!(table.dictionary(0).len(), 6000);
        assert_eq!(table.dictionary(1).len(), 26);
        agree(text.as_bytes(), &format).unwrap();
    }

    /// A search for two bytes, given what to call with each match.
    type Search<'t> = dyn Fn(&mut dyn FnMut(usize) -> bool) -> bool + 't;

    proptest! {
        /// The block-at-a-time searches (the one the processor runs, eight bytes at a time,
        /// and 32 at a time where the processor has AVX2) find what a byte-by-byte one
        /// finds (then the text's length), with the bytes anywhere in a block, at the end
        /// of the text, and as padding would hold them (0); and stop where told to.
        #[test]
        fn matches_are_every_position_of_the_two_bytes(
            text in prop::collection::vec(prop::sample::select(vec![0u8, 1, b';', b'\n', b'a', 0x80, 0xff]), 0..120),
            a in prop::sample::select(vec![0u8, b';', b',']),
            b in prop::sample::select(vec![b'\n', 0u8, 0xff]),
            stop in 0usize..60,
        ) {
            let expected: Vec<usize> = (0..text.len())
                .filter(|&i| text[i] == a || text[i] == b)
                .chain([text.len()])
                .collect();
            let search = |each: &Search<'_>, limit: usize| {
                let mut found = Vec::new();
                let all = each(&mut |at| {
                    found.push(at);
                    found.len() < limit
                });
                (found, all)
            };
            let mut searches: Vec<(&str, Box<Search<'_>>)> = vec![
                ("dispatched", Box::new(|f| super::each_match::<false>(&text, a, b, (0, 0), f) == super::Split::All)),
                ("words", Box::new(|f| super::each_match_words::<false>(&text, a, b, (0, 0), f) == super::Split::All)),
            ];
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the processor has AVX2
                searches.push(("avx2", Box::new(|f| unsafe { super::each_match_avx2::<false>(&text, a, b, (0, 0), f) } == super::Split::All)));
            } else {
                eprintln!("matches_are_every_position_of_the_two_bytes: no AVX2 here, its search is not tested");
            }
            for (name, each) in &searches {
                let (found, all) = search(each.as_ref(), usize::MAX);
                prop_assert!(all, "{}", name);
                prop_assert_eq!(&found, &expected, "{}", name);
                // told to stop at the match `stop + 1`: it stops there, or finds them all
                let (found, all) = search(each.as_ref(), stop + 1);
                let n = (stop + 1).min(expected.len());
                prop_assert_eq!(&found[..], &expected[..n], "{}", name);
                prop_assert_eq!(all, stop + 1 > expected.len(), "{}", name);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

        /// Random inputs over an alphabet rich in what the fast path must decline: quotes,
        /// carriage returns, blank lines, a byte-order mark, invalid UTF-8, ragged rows.
        #[test]
        fn the_fast_path_reads_as_the_general_reader(
            pieces in prop::collection::vec(
                prop::sample::select(vec![
                    "a", "b", "7", ";", ",", ";", ",", "\n", "\n", "\"", "\r", "\u{feff}", "é", "\u{ff}",
                ]),
                0..60,
            ),
            invalid in any::<bool>(),
            header in any::<bool>(),
            semicolon in any::<bool>(),
        ) {
            let mut bytes = pieces.concat().into_bytes();
            if invalid && !bytes.is_empty() {
                let at = bytes.len() / 2;
                bytes[at] = 0xff;
            }
            let format = CsvFormat {
                delimiter: if semicolon { b';' } else { b',' },
                header,
                ..CsvFormat::default()
            };
            agree(&bytes, &format)?;
        }

        /// Plain tables, where the fast path answers: LF or CRLF line ends, with or without
        /// a last line end, now and then a ragged row (which it leaves to the general
        /// reader's error).
        #[test]
        fn plain_tables_read_alike(
            rows in prop::collection::vec(
                prop_oneof![
                    20 => prop::collection::vec("[a-c0-9é]{0,3}", 3),
                    1 => prop::collection::vec("[a-c0-9é]{0,3}", 2..5),
                ],
                1..40,
            ),
            trailing in any::<bool>(),
            crlf in any::<bool>(),
        ) {
            let end = if crlf { "\r\n" } else { "\n" };
            let mut text = format!("x;y;z{end}");
            for row in &rows {
                text += &row.join(";");
                text += end;
            }
            if !trailing {
                text.truncate(text.len() - end.len());
            }
            let format = semicolons();
            agree(text.as_bytes(), &format)?;
        }
    }
}
