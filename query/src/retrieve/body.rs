//! Body scores: how much of the question a method's own text (signature, doc and body) holds,
//! with near pairs of question words and a message the question repeats counted extra.

use super::*;
use rustc_hash::FxHashMap;

/// Neighbouring question words count as near in code when at most this many words apart.
const PAIR_WINDOW: usize = 3;
/// What a near pair adds to a body's score, times the rarer word's idf.
const PAIR_BONUS: f32 = 0.5;
/// Weight of a reported message's words (on top of their plain counts) in a body score.
const MESSAGE_BONUS: f32 = 1.0;

/// The question's terms as body scores read them: by stem, by stem id in the preloaded
/// bodies, and the word pairs as term indices.
#[derive(Default)]
pub(super) struct BodyTerms {
    by_stem: FxHashMap<String, usize>,
    /// Set once the view's body stems are loaded (they appear during a question at most once).
    by_id: Option<FxHashMap<u32, usize>>,
    pairs: Vec<(usize, usize)>,
    /// Each term's idf.
    idf: Vec<f32>,
}

/// The question's word pairs as indices into its terms (both words must be terms).
fn pair_terms(q: &Question, index: &FxHashMap<String, usize>) -> Vec<(usize, usize)> {
    q.pairs
        .iter()
        .filter_map(|(a, b)| {
            let a = *index.get(crate::terms::stem(a).as_str())?;
            let b = *index.get(crate::terms::stem(b).as_str())?;
            (a != b).then_some((a, b))
        })
        .collect()
}

impl Retriever<'_, '_> {
    /// How much of the question a method's own text (signature, doc and body) holds.
    pub fn body_score(&self, i: SymIdx, q: &Question) -> Result<f32, QueryError> {
        if let Some(&s) = self.memo_for(q).body.get(&i) {
            return Ok(s);
        }
        let v = self.view;
        let (start, end) = v.span(i);
        // The text is read only when stems were not preloaded or the question quotes something.
        let text = std::cell::OnceCell::new();
        let text_of = || -> Result<&String, QueryError> {
            if let Some(t) = text.get() {
                return Ok(t);
            }
            let read = v.text(v.path(i), start, end)?;
            Ok(text.get_or_init(|| read))
        };
        // Counts of the question's stems only, and whether each pair of neighbouring question
        // words stands close together (a message, a comment, a `missingNode`).
        let stems = v.body_stems(i);
        let terms = self.body_terms(q, stems.is_some());
        let (index, pairs) = (&terms.by_stem, &terms.pairs);
        let mut tf = vec![0u32; q.terms.len()];
        let mut last = vec![usize::MAX; q.terms.len()];
        let mut near = vec![false; pairs.len()];
        let mut pos = 0usize;
        let mut count = |k: Option<usize>| {
            pos += 1;
            let Some(k) = k else { return };
            tf[k] += 1;
            last[k] = pos;
            for (p, &(a, b)) in pairs.iter().enumerate() {
                let other = if k == a {
                    b
                } else if k == b {
                    a
                } else {
                    continue;
                };
                if last[other] != usize::MAX && pos - last[other] <= PAIR_WINDOW {
                    near[p] = true;
                }
            }
        };
        match (stems, &terms.by_id) {
            (Some(stems), Some(by_id)) => {
                // The same stems in the same order as below, as ids.
                for id in stems {
                    count(by_id.get(id).copied());
                }
            }
            _ => {
                for_each_stem(text_of()?, |s| count(index.get(s).copied()));
                if let Some(doc) = v.doc(i) {
                    for_each_stem(doc, |s| count(index.get(s).copied()));
                }
            }
        }
        let mut score = 0.0;
        for (k, t) in q.terms.iter().enumerate() {
            if tf[k] > 0 {
                score += t.weight * terms.idf[k] * (1.0 + (tf[k] as f32).ln());
            }
        }
        for (p, &(a, b)) in pairs.iter().enumerate() {
            if near[p] {
                let idf = terms.idf[a].min(terms.idf[b]);
                score += PAIR_BONUS * idf;
            }
        }
        // A bundle message is the method's message as much as a literal is.
        if let Some((b, _)) = self.memo_for(q).bundled.get(&i) {
            score += b * MESSAGE_BONUS;
        }
        if let Some((message, at)) = self.message_score(q, i) {
            let mut m = self.memo_for(q);
            m.focus.entry(i).or_insert(at);
            score += message;
        }
        if !q.literals.is_empty() {
            let text = text_of()?;
            let lower = text.to_lowercase();
            for lit in &q.literals {
                if lit.len() >= 2 && lower.contains(&lit.to_lowercase()) {
                    score += 2.0;
                }
            }
            // Reading a constant that holds one counts as spelling it.
            if v.kind(i).is_callable() {
                let read = self.literal_readers(q)?.get(&i).copied().unwrap_or(0);
                score += 2.0 * read as f32;
            }
        }
        let lines = (end - start + 1) as f32;
        let s = score / (1.0 + 0.15 * lines.ln().max(0.0));
        self.memo_for(q).body.insert(i, s);
        Ok(s)
    }

    /// The question's [`BodyTerms`], with their stem ids once the view has body stems.
    fn body_terms(&self, q: &Question, with_ids: bool) -> std::rc::Rc<BodyTerms> {
        if let Some(t) = &self.memo_for(q).body_terms
            && (t.by_id.is_some() || !with_ids)
        {
            return t.clone();
        }
        let by_stem: FxHashMap<String, usize> = q
            .terms
            .iter()
            .enumerate()
            .map(|(k, t)| (t.stem.clone(), k))
            .collect();
        let v = self.view;
        let by_id = with_ids.then(|| {
            by_stem
                .iter()
                .filter_map(|(s, &k)| Some((v.stem_id(s)?, k)))
                .collect()
        });
        let pairs = pair_terms(q, &by_stem);
        let idf = q.terms.iter().map(|t| self.idf(q, &t.stem)).collect();
        let t = std::rc::Rc::new(BodyTerms {
            by_stem,
            by_id,
            pairs,
            idf,
        });
        self.memo_for(q).body_terms = Some(t.clone());
        t
    }

    /// The words of the message the question reports, found in a row in one of the string
    /// literals on `i`'s lines: their idf, summed, and the line of that literal.
    fn message_score(&self, q: &Question, i: SymIdx) -> Option<(f32, u32)> {
        if q.message.len() < message::MESSAGE_RUN {
            return None;
        }
        let sequence = {
            let mut m = self.memo_for(q);
            m.sequence
                .get_or_insert_with(|| q.message.iter().map(|w| crate::terms::stem(w)).collect())
                .clone()
        };
        let mut best: (&[String], u32) = (&[], 0);
        for lit in self.view.literals_of(i) {
            let stems = message::literal_stems(&lit.text);
            let run = message::longest_run(&sequence, &stems);
            if run.len() > best.0.len() {
                best = (run, lit.line);
            }
        }
        if best.0.len() < message::MESSAGE_RUN {
            return None;
        }
        let score = best.0.iter().map(|s| self.idf(q, s)).sum::<f32>() * MESSAGE_BONUS;
        Some((score, best.1))
    }

    /// Where the methods the question's message leads to write it, by method (see
    /// [`Memo::focus`]); complete once the question is ranked.
    pub fn focus_lines(&self, q: &Question) -> HashMap<SymIdx, u32> {
        self.memo_for(q).focus.clone()
    }

    /// The bundle entry whose message method `i` writes, when the question repeats one.
    pub fn bundle_hit(&self, q: &Question, i: SymIdx) -> Option<BundleHit> {
        self.memo_for(q).bundled.get(&i).map(|(_, h)| h.clone())
    }
}
