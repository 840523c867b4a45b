//! Building a view file: every table of [`super`] derived from the index in one pass over the
//! snapshot's symbols, chunks and method bodies, written into one byte buffer.

use super::*;

/// Little-endian writer with a deduplicating string blob.
struct Out {
    buf: Vec<u8>,
}

impl Out {
    fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    fn pad8(&mut self) {
        while !self.buf.len().is_multiple_of(8) {
            self.buf.push(0);
        }
    }
}

#[derive(Default)]
struct Strings {
    blob: Vec<u8>,
    seen: HashMap<String, u32>,
}

impl Strings {
    fn add(&mut self, s: &str) -> (u32, u32) {
        if let Some(&o) = self.seen.get(s) {
            return (o, s.len() as u32);
        }
        let o = self.blob.len() as u32;
        self.blob.extend_from_slice(s.as_bytes());
        self.seen.insert(s.to_string(), o);
        (o, s.len() as u32)
    }
}

/// `s` cut to at most `max` bytes on a character boundary.
fn clip_bytes(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut e = max;
    while !s.is_char_boundary(e) {
        e -= 1;
    }
    &s[..e]
}

/// Files whose chunks are read in one call while the tables are built.
const FILES_PER_READ: usize = 256;

/// Builds the tables of the snapshot `index` shows now.
pub fn build(index: &dyn IndexRead, key: &str) -> Result<Vec<u8>, QueryError> {
    let file_rows: HashMap<String, FileRow> = index
        .current_files()?
        .into_iter()
        .map(|(p, f)| (p.as_str().to_string(), f))
        .collect();
    let mut symbols = index.all_symbols()?;
    // Already in (path, line) order from the embedded index; made sure for any backend (stable).
    symbols.sort_by(|a, b| a.path.as_str().cmp(b.path.as_str()));
    let mut paths: Vec<String> = file_rows.keys().cloned().collect();
    for s in &symbols {
        if !file_rows.contains_key(s.path.as_str()) {
            paths.push(s.path.as_str().to_string());
        }
    }
    paths.sort();
    paths.dedup();
    let file_idx: HashMap<&str, usize> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| (p.as_str(), i))
        .collect();
    let n = symbols.len();
    let sym_file: Vec<usize> = symbols.iter().map(|s| file_idx[s.path.as_str()]).collect();
    // Symbols of a file are contiguous (all_symbols is ordered by path, then line).
    let mut file_range = vec![(0usize, 0usize); paths.len()];
    {
        let mut i = 0;
        while i < n {
            let f = sym_file[i];
            let mut j = i;
            while j < n && sym_file[j] == f {
                j += 1;
            }
            file_range[f] = (i, j);
            i = j;
        }
        // Files without symbols get an empty range at the right place.
        let mut next = 0;
        for r in file_range.iter_mut() {
            if r.1 == 0 && r.0 == 0 {
                *r = (next, next);
            }
            next = r.1;
        }
    }
    let mut by_id: HashMap<&str, usize> = HashMap::with_capacity(n);
    for (i, s) in symbols.iter().enumerate() {
        by_id.insert(s.symbol.id.0.as_str(), i);
    }
    let parent: Vec<Option<usize>> = symbols
        .iter()
        .map(|s| {
            s.symbol
                .parent
                .as_ref()
                .and_then(|p| by_id.get(p.0.as_str()).copied())
        })
        .collect();

    // Chunk spans.
    let mut chunk_spans: Vec<(u64, String, u32, u32, u32)> = Vec::new();
    // Read in batches: one round trip per batch on a server backend, bounded memory on any.
    let mut batch: HashMap<String, Vec<ChunkRow>> = HashMap::new();
    for (f, path) in paths.iter().enumerate() {
        if f % FILES_PER_READ == 0 {
            let names: Vec<&str> = paths[f..(f + FILES_PER_READ).min(paths.len())]
                .iter()
                .map(String::as_str)
                .collect();
            batch = index.chunks_of_many(&names)?;
        }
        let chunks = batch.remove(path.as_str()).unwrap_or_default();
        for c in &chunks {
            chunk_spans.push((
                fnv64(c.id.as_bytes()),
                c.id.clone(),
                f as u32,
                c.chunk.start_line,
                c.chunk.end_line,
            ));
        }
    }
    chunk_spans.sort_unstable();

    // Cards.
    let mut stem_ids: HashMap<String, u32> = HashMap::new();
    let mut stem_names: Vec<String> = Vec::new();
    let mut intern = |s: &str, stem_ids: &mut HashMap<String, u32>| -> u32 {
        if let Some(&k) = stem_ids.get(s) {
            return k;
        }
        let k = stem_names.len() as u32;
        stem_names.push(s.to_string());
        stem_ids.insert(s.to_string(), k);
        k
    };
    let mut post: Vec<(u32, u32, u8)> = Vec::new(); // (stem, symbol, fields)
    let mut name_len: Vec<usize> = vec![0; n];
    let mut name_stems: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (i, s) in symbols.iter().enumerate() {
        let sym = &s.symbol;
        let name = terms::identifier_stems(&sym.name);
        name_len[i] = name.len();
        let doc = sym.doc.as_deref().map(prose_stems).unwrap_or_default();
        // The words of a callable's parameter list as written (generic arguments included).
        let params = if sym.kind.is_type() {
            prose_stems(&sym.signature)
        } else {
            match (sym.signature.find('('), sym.signature.rfind(')')) {
                (Some(a), Some(b)) if a < b => prose_stems(&sym.signature[a + 1..b]),
                _ => Vec::new(),
            }
        };
        let mut fields: HashMap<u32, u8> = HashMap::new();
        for w in &name {
            let k = intern(w, &mut stem_ids);
            *fields.entry(k).or_default() |= CARD_NAME;
            name_stems[i].push(k);
        }
        for w in &doc {
            *fields.entry(intern(w, &mut stem_ids)).or_default() |= CARD_DOC;
        }
        for w in &params {
            *fields.entry(intern(w, &mut stem_ids)).or_default() |= CARD_PARAMS;
        }
        for (k, f) in fields {
            post.push((k, i as u32, f));
        }
    }
    for i in 0..n {
        if let Some(p) = parent[i]
            && symbols[p].symbol.kind.is_type()
            && !symbols[i].symbol.kind.is_type()
        {
            for &k in &name_stems[i] {
                post.push((k, p as u32, CARD_MEMBER));
            }
        }
    }
    post.sort_unstable();
    let mut merged: Vec<(u32, u32, u8)> = Vec::with_capacity(post.len());
    for (k, i, f) in post {
        match merged.last_mut() {
            Some(last) if last.0 == k && last.1 == i => last.2 |= f,
            _ => merged.push((k, i, f)),
        }
    }

    // Flags and parameter types.
    let mut flags = vec![0u8; n];
    let mut params_of: Vec<Vec<String>> = vec![Vec::new(); n];
    for (i, s) in symbols.iter().enumerate() {
        let sym = &s.symbol;
        if sym.is_static {
            flags[i] |= FLAG_STATIC;
        }
        if sym.kind.is_callable() {
            params_of[i] = sym.params.iter().map(|p| p.ty.clone()).collect();
            if sym.has_body {
                flags[i] |= FLAG_HAS_BODY;
            }
        }
    }

    // Serialise.
    let mut strings = Strings::default();
    let mut o = Out { buf: Vec::new() };
    o.buf.extend_from_slice(MAGIC);
    o.u32(FORMAT);
    o.u32(key.len() as u32);
    o.buf.extend_from_slice(key.as_bytes());
    o.pad8();
    let layout_at = o.buf.len();
    for _ in 0..LAYOUT_FIELDS {
        o.u64(0);
    }
    let mut l = Layout {
        n_files: paths.len(),
        n_syms: n,
        ..Layout::default()
    };

    l.files = o.buf.len();
    for (f, path) in paths.iter().enumerate() {
        let row = file_rows.get(path);
        let (po, pl) = strings.add(path);
        let (mo, ml) = strings.add(row.map(|r| r.module.as_str()).unwrap_or(""));
        o.u32(po);
        o.u32(pl);
        o.u32(mo);
        o.u32(ml);
        o.u32(row.map(|r| r.lines).unwrap_or(0));
        o.u8(prov_code(row.map(|r| r.provenance).unwrap_or_default()));
        o.u8(0);
        o.u16(0);
        o.u32(file_range[f].0 as u32);
        o.u32(file_range[f].1 as u32);
    }
    o.pad8();

    l.syms = o.buf.len();
    for (i, s) in symbols.iter().enumerate() {
        let sym = &s.symbol;
        let name = clip_bytes(&sym.name, u16::MAX as usize - 1);
        let (no, nl) = strings.add(name);
        let joined = params_of[i].join(",");
        let joined = clip_bytes(&joined, u16::MAX as usize - 1);
        let (pao, pal) = strings.add(joined);
        let (io, il) = strings.add(&sym.id.0);
        let notes: Vec<&str> = sym.annotations.iter().map(|a| annotation_name(a)).collect();
        let notes = notes.join(",");
        let (ao, al) = strings.add(clip_bytes(&notes, u16::MAX as usize - 1));
        let (doc_off, doc_len) = match &sym.doc {
            Some(d) => strings.add(clip_bytes(d, NONE as usize - 1)),
            None => (0, NONE),
        };
        o.u8(kind_code(sym.kind));
        o.u8(flags[i]);
        o.u16(name_len[i].min(u16::MAX as usize) as u16);
        o.u32(sym_file[i] as u32);
        o.u32(parent[i].map(|p| p as u32).unwrap_or(NONE));
        o.u32(sym.start_line);
        o.u32(sym.end_line);
        o.u32(no);
        o.u16(nl as u16);
        o.u16(pal as u16);
        o.u32(pao);
        o.u32(io);
        o.u32(il);
        o.u16(params_of[i].len().min(u16::MAX as usize) as u16);
        o.u16(al as u16);
        o.u32(doc_off);
        o.u32(doc_len);
        o.u32(ao);
    }
    o.pad8();

    // Lower-cased names.
    let mut lower: Vec<(String, u32)> = symbols
        .iter()
        .enumerate()
        .map(|(i, s)| (s.symbol.name.to_lowercase(), i as u32))
        .collect();
    lower.sort();
    let mut dict: Vec<(String, u32, u32)> = Vec::new();
    for (k, (name, _)) in lower.iter().enumerate() {
        match dict.last_mut() {
            Some(last) if &last.0 == name => last.2 += 1,
            _ => dict.push((name.clone(), k as u32, 1)),
        }
    }
    l.n_names = dict.len();
    l.names = o.buf.len();
    for (name, start, len) in &dict {
        let (so, sl) = strings.add(name);
        o.u32(so);
        o.u32(sl);
        o.u32(*start);
        o.u32(*len);
    }
    l.namelist = o.buf.len();
    for (_, i) in &lower {
        o.u32(*i);
    }
    o.pad8();

    l.ids = o.buf.len();
    let mut ids: Vec<(u64, u32)> = symbols
        .iter()
        .enumerate()
        .map(|(i, s)| (fnv64(s.symbol.id.0.as_bytes()), i as u32))
        .collect();
    ids.sort_unstable();
    for (h, i) in ids {
        o.u64(h);
        o.u32(i);
        o.u32(0);
    }

    // Card stems, sorted by text.
    let mut order: Vec<u32> = (0..stem_names.len() as u32).collect();
    order.sort_by(|a, b| stem_names[*a as usize].cmp(&stem_names[*b as usize]));
    let mut ranges: Vec<(usize, usize, u32)> = vec![(0, 0, 0); stem_names.len()];
    {
        let mut k = 0;
        while k < merged.len() {
            let s = merged[k].0;
            let mut j = k;
            let mut df = 0;
            while j < merged.len() && merged[j].0 == s {
                if merged[j].2 & (CARD_NAME | CARD_DOC | CARD_PARAMS) != 0 {
                    df += 1;
                }
                j += 1;
            }
            ranges[s as usize] = (k, j - k, df);
            k = j;
        }
    }
    l.n_stems = stem_names.len();
    l.stems = o.buf.len();
    for &s in &order {
        let (so, sl) = strings.add(&stem_names[s as usize]);
        let (start, len, df) = ranges[s as usize];
        o.u32(so);
        o.u32(sl);
        o.u32(start as u32);
        o.u32(len as u32);
        o.u32(df);
    }
    o.pad8();
    l.n_post = merged.len();
    l.post = o.buf.len();
    for (_, i, f) in &merged {
        o.u32((i << 4) | *f as u32);
    }
    o.pad8();

    l.n_chunks = chunk_spans.len();
    l.chunks = o.buf.len();
    for (h, id, f, s, e) in &chunk_spans {
        let (io, il) = strings.add(id);
        o.u64(*h);
        o.u32(io);
        o.u32(il);
        o.u32(*f);
        o.u32(*s);
        o.u32(*e);
        o.u32(0);
    }

    l.strings = o.buf.len();
    l.strings_len = strings.blob.len();
    o.buf.extend_from_slice(&strings.blob);
    l.end = o.buf.len();
    for (k, w) in l.to_words().iter().enumerate() {
        o.buf[layout_at + 8 * k..layout_at + 8 * k + 8].copy_from_slice(&w.to_le_bytes());
    }
    Ok(o.buf)
}
