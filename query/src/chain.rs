//! Call chains for flow questions: from an entry method, follow the callees that matter to the
//! question (overload hand-offs, `doX` workers, methods whose text or name holds the question's
//! words), and, when the entry is deep inside a flow, climb its callers first.

use crate::QueryError;
use crate::graph::hierarchy::overriders;
use crate::graph::{CallGraph, EdgeKind};
use crate::question::{Question, TermOrigin};
use crate::retrieve::{Ranked, Retriever, UnitKey, accessor_lines, has_bean_prefix};
use crate::view::{SymIdx, prose_stems};
use crate::viewdata::FLAG_STATIC;
use indexer::graph::{CallSite, SITE_ARGUMENT, SITE_LOCAL, SITE_PARAM, SITE_RETURNED};
use indexer::model::{Provenance, SymbolId, SymbolKind};
use std::collections::HashMap;

mod start;
pub(crate) use start::fluent_target;

/// Longest chain returned.
pub const MAX_CHAIN: usize = 8;
/// Methods reached below a chain's start before the chain is picked from them.
const EXPLORED: usize = 24;
/// Deepest call followed below a chain's start.
const MAX_DEPTH: usize = 7;
/// Constants a method uses whose initializers are read for the types they create.
const MAX_CONSTANTS: usize = 4;
/// Strongest callees followed from one method.
const BRANCH: usize = 2;
const MAX_UP: usize = 3;
/// Best hits tried as chain starts when the question names none.
const SEEDS: usize = 10;
/// A call to a method whose name and arity more than this many other methods share (`run()`,
/// a visitor's `visit`) is not followed into overriders.
const MAX_IMPLEMENTATIONS: usize = 64;
/// Overriders of one call scored in full (the rest are ranked by relevance alone).
const IMPLEMENTATIONS_TRIED: usize = 2;
/// A callee more methods than this call (its resolved callers) is a helper
/// (`Validate.notNull`, `addInfo`), not a step of one flow.
const HELPER_CALLERS: usize = 50;
/// How sure a hop from a call into one overrider is, relative to the call.
const DISPATCH_CONFIDENCE: f32 = 0.8;
/// Relevance added to an overrider whose type the call's receiver names.
const RECEIVER_NAMED: f32 = 1.0;
/// Relevance added to an overrider whose type a method of the chain so far creates.
const CREATED_ON_PATH: f32 = 1.0;
/// Relevance added to an overrider whose type the product's code creates somewhere.
const CREATED: f32 = 0.3;
/// Weight of how much of the question a candidate chain's names explain ([`coverage`]) against
/// the summed relevance of its steps: the chain that explains the question wins, relevance
/// breaks ties (flow recall on bench/eval: tomcat10 .27 -> .34, collections4 .34 -> .52; the
/// same from 3 to 6).
const COVERAGE: f32 = 3.0;

struct Ctx<'r, 'v, 'a> {
    /// Lowest score of a callee worth following.
    threshold: f32,
    r: &'r Retriever<'v, 'a>,
    q: &'r Question,
    graph: &'r dyn CallGraph,
    top: HashMap<SymIdx, usize>,
    rel_cache: std::cell::RefCell<HashMap<SymIdx, f32>>,
    /// Per abstract method met so far, whether each type looked at leads to its type.
    overriders: std::cell::RefCell<HashMap<SymIdx, HashMap<SymIdx, bool>>>,
    /// Types found to be created (`new T(..)`) in the product's code, or not.
    created: std::cell::RefCell<HashMap<SymIdx, bool>>,
    /// Simple names of the types each method of a chain creates.
    creations: std::cell::RefCell<HashMap<SymIdx, Vec<String>>>,
    /// Callees found to be helpers everything calls, or not.
    helpers: std::cell::RefCell<HashMap<SymIdx, bool>>,
    max_rel: f32,
}

impl Ctx<'_, '_, '_> {
    /// Relevance of a method to the question, 0..~1.5.
    fn rel(&self, i: SymIdx) -> Result<f32, QueryError> {
        if let Some(&r) = self.rel_cache.borrow().get(&i) {
            return Ok(r);
        }
        let v = self.r.view;
        let mut s = self.r.body_score(i, self.q)? / self.max_rel.max(1e-3);
        // Words of the owning type's name count too (`FileAlterationMonitor.run`).
        if let Some(owner) = v.owner_name(i) {
            s += 0.15 * self.owner_hits(owner) as f32;
        }
        if let Some(&rank) = self.top.get(&i) {
            s += 0.4 / (1.0 + rank as f32 / 5.0);
        }
        self.rel_cache.borrow_mut().insert(i, s);
        Ok(s)
    }

    /// The stems of a method's name and its type's name.
    fn name_words(&self, i: SymIdx) -> Vec<String> {
        let v = self.r.view;
        let mut words = prose_stems(v.name(i));
        if let Some(owner) = v.owner_name(i) {
            words.extend(prose_stems(owner));
        }
        words.sort();
        words.dedup();
        words
    }

    /// Whether a stem is one of the question's own words.
    fn is_question_word(&self, stem: &str) -> bool {
        self.q.terms.iter().any(|t| {
            matches!(t.origin, TermOrigin::Word | TermOrigin::Translation) && t.stem == stem
        })
    }

    /// Question words in a type name.
    fn owner_hits(&self, owner: &str) -> usize {
        let owner_words = prose_stems(owner);
        self.q
            .terms
            .iter()
            .filter(|t| {
                matches!(t.origin, TermOrigin::Word | TermOrigin::Translation)
                    && owner_words.contains(&t.stem)
            })
            .count()
    }

    /// The overriders of `i` that `keep` accepts (see [`overriders`]); what was learnt of each
    /// candidate's type is kept for the next call on `i` (every seed's chain meets the same
    /// calls).
    fn overriders(&self, i: SymIdx, keep: impl Fn(SymIdx) -> bool) -> Option<Vec<SymIdx>> {
        let mut memo = self.overriders.borrow_mut();
        overriders(
            self.r.view,
            i,
            MAX_IMPLEMENTATIONS,
            keep,
            memo.entry(i).or_default(),
        )
    }

    /// Types a method creates (`new T(..)`, stored New edges), by simple name, and those
    /// created by the initializers of the constants it uses (`ESCAPE_JAVA.translate(input)` with
    /// `ESCAPE_JAVA = new AggregateTranslator(new LookupTranslator(..))`: the constant is the
    /// object it calls). A constructor's `super(..)` and `this(..)` count: the object made is of
    /// that type too.
    fn creates(&self, m: SymIdx) -> Result<std::cell::Ref<'_, Vec<String>>, QueryError> {
        if !self.creations.borrow().contains_key(&m) {
            let v = self.r.view;
            let mut names = self.created_by(v.id(m), None)?;
            let constants = crate::graph::reads::read_by(v, self.graph, m)?
                .into_iter()
                .map(|(f, _)| f)
                .filter(|&f| v.kind(f) == SymbolKind::Field && v.flags(f) & FLAG_STATIC != 0);
            for f in constants.take(MAX_CONSTANTS) {
                // A field's initializer runs in its type's initializer: the type's edges from
                // the field's lines.
                let Some(t) = v.owner_type(f) else { continue };
                names.extend(self.created_by(v.id(t), Some(v.span(f)))?);
            }
            self.creations.borrow_mut().insert(m, names);
        }
        Ok(std::cell::Ref::map(self.creations.borrow(), |c| &c[&m]))
    }

    /// Simple names of the types `caller` creates (its New edges), on lines `within` only if
    /// given.
    fn created_by(
        &self,
        caller: &str,
        within: Option<(u32, u32)>,
    ) -> Result<Vec<String>, QueryError> {
        let v = self.r.view;
        let edges = self.graph.callees(&SymbolId(caller.to_string()))?;
        Ok(edges
            .iter()
            .filter(|e| e.kind == EdgeKind::New)
            .filter(|e| within.is_none_or(|(s, end)| (s..=end).contains(&e.line)))
            .filter_map(|e| created_type(v, v.by_id(&e.to.0)?))
            .map(|t| v.name(t).to_string())
            .collect())
    }

    /// Whether the receiver of a call to `callee` names overrider `m`'s type by a word the
    /// callee's own type lacks (`host` for `StandardHostValve` when `Valve.invoke` is called).
    fn receiver_names(&self, m: SymIdx, callee: SymIdx, receiver: &[String]) -> bool {
        let v = self.r.view;
        let (Some(owner), Some(base)) = (v.owner_name(m), v.owner_name(callee)) else {
            return false;
        };
        let base = prose_stems(base);
        prose_stems(owner)
            .iter()
            .any(|w| !base.contains(w) && receiver.contains(w))
    }

    /// Whether the product's code creates an instance of type `t` (a New edge from a source
    /// method to one of its constructors, or to the type when it declares none). Of the
    /// implementations of an interface, those are the ones a call can reach without
    /// configuration naming a class.
    fn is_created(&self, t: SymIdx) -> Result<bool, QueryError> {
        if let Some(&c) = self.created.borrow().get(&t) {
            return Ok(c);
        }
        let v = self.r.view;
        let constructors = v.members(t).into_iter();
        let made = std::iter::once(t)
            .chain(constructors.filter(|&m| v.kind(m) == SymbolKind::Constructor));
        let mut c = false;
        for k in made {
            let callers = self.graph.callers(&SymbolId(v.id(k).to_string()))?;
            c = callers.iter().any(|e| {
                e.kind == EdgeKind::New
                    && v.by_id(&e.from.0)
                        .is_some_and(|m| v.provenance_of(m) == Provenance::Source)
            });
            if c {
                break;
            }
        }
        self.created.borrow_mut().insert(t, c);
        Ok(c)
    }

    /// A callee more than [`HELPER_CALLERS`] methods call whose name holds no question word
    /// (looked up once per callee).
    fn is_helper(&self, c: SymIdx) -> Result<bool, QueryError> {
        if let Some(&h) = self.helpers.borrow().get(&c) {
            return Ok(h);
        }
        let v = self.r.view;
        let id = SymbolId(v.id(c).to_string());
        let h = self.owner_hits(v.name(c)) == 0
            && self.graph.caller_count(&id, HELPER_CALLERS + 1)? > HELPER_CALLERS;
        self.helpers.borrow_mut().insert(c, h);
        Ok(h)
    }

    fn is_source_callable(&self, i: SymIdx) -> bool {
        let v = self.r.view;
        v.kind(i).is_callable() && v.provenance_of(i) == Provenance::Source
    }
}

/// A step of a chain: the method and how many calls below the chain's first step it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link {
    pub sym: SymIdx,
    pub depth: usize,
}

/// Builds the chain for a flow question. `entry` is where it starts if the question names it.
pub fn build(
    r: &Retriever<'_, '_>,
    q: &Question,
    ranked: &[Ranked],
    graph: &dyn CallGraph,
    entry: Option<SymIdx>,
) -> Result<Vec<Link>, QueryError> {
    let v = r.view;
    let top: HashMap<SymIdx, usize> = ranked
        .iter()
        .filter_map(|x| match x.key {
            UnitKey::Sym(i) => Some(i),
            _ => None,
        })
        .take(30)
        .enumerate()
        .map(|(k, i)| (i, k))
        .collect();
    let mut max_rel: f32 = 0.0;
    for &i in top.keys() {
        if v.kind(i).is_callable() {
            max_rel = max_rel.max(r.body_score(i, q)?);
        }
    }
    let mut ctx = Ctx {
        threshold: 0.3,
        r,
        q,
        graph,
        top,
        rel_cache: Default::default(),
        overriders: Default::default(),
        created: Default::default(),
        creations: Default::default(),
        helpers: Default::default(),
        max_rel,
    };

    if let Some(e) = entry {
        let mut out = Vec::new();
        // A named entry: the asker wants its whole flow, so follow weaker callees too.
        ctx.threshold = 0.15;
        descend(&ctx, e, &mut out)?;
        return Ok(out);
    }
    // No named entry: try the best hits as starting points, each climbing to where its flow
    // begins, and keep the chain that holds the most relevant code. When a model picked among
    // the hits (`rerank`), only its picks: the chain is to pass through what it chose.
    let seed_of = |x: &Ranked| match x.key {
        UnitKey::Sym(i) if ctx.is_source_callable(i) && r.has_body(i) => Some(i),
        _ => None,
    };
    let picked: Vec<SymIdx> = ranked
        .iter()
        .filter(|x| x.legs.contains(&crate::rerank::PICKED))
        .filter_map(seed_of)
        .take(SEEDS)
        .collect();
    let seeds: Vec<SymIdx> = if picked.is_empty() {
        ranked.iter().filter_map(seed_of).take(SEEDS).collect()
    } else {
        picked
    };
    let mut best: Option<(Vec<Link>, f32)> = None;
    for (rank, &seed) in seeds.iter().enumerate() {
        let mut out: Vec<Link> = (climb(&ctx, seed)?.into_iter().enumerate())
            .map(|(depth, sym)| Link { sym, depth })
            .collect();
        descend(&ctx, seed, &mut out)?;
        // Overloads handing off to each other are one step of the flow: a run of them counts
        // once, so a chain of constructor overloads does not outscore a real flow.
        let mut score = 0.0;
        let mut prev: Option<SymIdx> = None;
        for n in out.iter().take(6).map(|l| l.sym) {
            let same_step =
                prev.is_some_and(|p| v.name(p) == v.name(n) && v.owner_type(p) == v.owner_type(n));
            if !same_step {
                score += ctx.rel(n)?;
            }
            prev = Some(n);
        }
        score += COVERAGE * coverage(&ctx, &out)?;
        score += 0.3
            * seeds
                .iter()
                .filter(|&&s| out.iter().any(|l| l.sym == s))
                .count() as f32;
        score -= 0.05 * rank as f32;
        if tracing::enabled!(tracing::Level::DEBUG) {
            let chain: Vec<(&str, f32)> = (out.iter())
                .map(|l| (v.name(l.sym), ctx.rel(l.sym).unwrap_or(0.0)))
                .collect();
            tracing::debug!(seed = v.id(seed), rank, score, ?chain);
        }
        if best.as_ref().is_none_or(|(_, b)| score > *b) {
            best = Some((out, score));
        }
    }
    Ok(best.map(|(c, _)| c).unwrap_or_default())
}

/// How much of the question a chain's names explain: the question words (idf-weighted, relative
/// to the rarest) that the names of its first steps or of their types hold, each counted once.
/// Repeating a word adds nothing, so a run of `List` decorators does not outweigh the three
/// steps whose names are the question's rarest words.
fn coverage(ctx: &Ctx<'_, '_, '_>, chain: &[Link]) -> Result<f32, QueryError> {
    let mut words: Vec<String> = chain
        .iter()
        .take(6)
        .flat_map(|l| ctx.name_words(l.sym))
        .collect();
    words.sort();
    words.dedup();
    let max_idf = (ctx.q.terms.iter())
        .filter(|t| matches!(t.origin, TermOrigin::Word | TermOrigin::Translation))
        .map(|t| ctx.r.idf(ctx.q, &t.stem))
        .fold(0.0f32, f32::max);
    if max_idf <= 0.0 {
        return Ok(0.0);
    }
    Ok((words.iter())
        .filter(|w| ctx.is_question_word(w))
        .map(|w| ctx.r.idf(ctx.q, w) / max_idf)
        .sum())
}

/// The callers above `start` that lead into it, outermost first (not including `start`).
fn climb(ctx: &Ctx<'_, '_, '_>, start: SymIdx) -> Result<Vec<SymIdx>, QueryError> {
    let v = ctx.r.view;
    let mut up: Vec<SymIdx> = Vec::new();
    let mut cur = start;
    for _ in 0..MAX_UP {
        let mut best: Option<(SymIdx, f32)> = None;
        let callers: Vec<SymIdx> = ctx
            .graph
            .callers(&SymbolId(v.id(cur).to_string()))?
            .iter()
            .filter(|e| e.confidence >= 0.5)
            .filter_map(|e| v.by_id(&e.from.0))
            .filter(|&c| c != cur && c != start && !up.contains(&c) && ctx.is_source_callable(c))
            .collect();
        for &c in &callers {
            let mut score = ctx.rel(c)?;
            if callers.len() == 1 {
                score += 0.3;
            }
            if best.is_none_or(|(_, b)| score > b) {
                best = Some((c, score));
            }
        }
        match best {
            Some((c, s)) if s >= 0.3 => {
                up.push(c);
                cur = c;
            }
            _ => break,
        }
    }
    up.reverse();
    Ok(up)
}

/// Grows the chain below `root`. The calls below it are explored best step first (each round
/// follows the strongest callee of any method reached so far), further than the chain is long;
/// the chain is then the path to the method that matters most to the question (where a flow
/// question says it ends up), plus the strongest other steps. The chain reads top-down: each
/// method, then what it leads to, strongest first.
/// `out` holds the callers climbed to above `root` (a path, outermost first), if any.
fn descend(ctx: &Ctx<'_, '_, '_>, root: SymIdx, out: &mut Vec<Link>) -> Result<(), QueryError> {
    if out.iter().any(|l| l.sym == root) || out.len() >= MAX_CHAIN {
        return Ok(());
    }
    // Steps reached, in the order they were: (method, parent step, depth).
    let mut steps: Vec<(SymIdx, Option<usize>, usize)> = Vec::new();
    // Steps on offer: (strength, method, parent step, depth).
    let mut offer: Vec<(f32, SymIdx, Option<usize>, usize)> = vec![(f32::INFINITY, root, None, 0)];
    let mut reached: Vec<SymIdx> = out.iter().map(|l| l.sym).collect();
    let base = out.len();
    while steps.len() < EXPLORED {
        let Some(best) =
            (0..offer.len()).max_by(|&a, &b| offer[a].0.total_cmp(&offer[b].0).then(b.cmp(&a)))
        else {
            break;
        };
        let (_, node, parent, depth) = offer.swap_remove(best);
        if reached.contains(&node) {
            continue;
        }
        reached.push(node);
        steps.push((node, parent, depth));
        if depth >= MAX_DEPTH {
            continue;
        }
        let at = steps.len() - 1;
        for (c, score) in next_steps(ctx, node, &reached)? {
            offer.push((score, c, Some(at), depth + 1));
        }
    }
    // The path to where the question says the flow ends up, then the other steps in the order
    // they were reached, each under a step already kept.
    let room = MAX_CHAIN - out.len();
    let mut keep = vec![false; steps.len()];
    let mut path = Vec::new();
    let mut at = goal(ctx, root, &steps)?;
    while let Some(k) = at {
        path.push(k);
        at = steps[k].1;
    }
    if path.len() > room {
        path.clear(); // too deep to show whole: keep the steps in the order they came
    }
    if path.is_empty() && !steps.is_empty() {
        path.push(0);
    }
    for k in path {
        keep[k] = true;
    }
    let mut kept = keep.iter().filter(|&&x| x).count();
    for k in 0..steps.len() {
        if kept >= room {
            break;
        }
        if !keep[k] && steps[k].1.is_some_and(|p| keep[p]) {
            keep[k] = true;
            kept += 1;
        }
    }
    // Top-down order: a step, then the steps under it in the order they were reached.
    let mut stack: Vec<usize> = vec![0];
    while let Some(k) = stack.pop() {
        if !keep.get(k).copied().unwrap_or(false) {
            continue;
        }
        out.push(Link {
            sym: steps[k].0,
            depth: base + steps[k].2,
        });
        let children: Vec<usize> = (0..steps.len())
            .filter(|&c| steps[c].1 == Some(k))
            .collect();
        stack.extend(children.into_iter().rev());
    }
    Ok(())
}

/// Where the question says the flow ends up, among the steps reached (method, parent step,
/// depth): the method whose own or type's name holds the most question words the start's names
/// do not (`isSafeAttribute` for "Jsoup.clean … down to where each attribute is checked"); the
/// deeper, then the more relevant, on a tie.
fn goal(
    ctx: &Ctx<'_, '_, '_>,
    root: SymIdx,
    steps: &[(SymIdx, Option<usize>, usize)],
) -> Result<Option<usize>, QueryError> {
    // The start's words include those of its arguments as the question writes them
    // (`Logger.info(format, arg)`): they say what goes in, not where it ends up.
    let mut start_words = ctx.name_words(root);
    let args = crate::answer::args_in_text(&ctx.q.text, ctx.r.view.name(root));
    for arg in args.unwrap_or_default() {
        start_words.extend(prose_stems(&arg));
    }
    let mut best: Option<(usize, (usize, usize, f32))> = None;
    for (k, &(node, _, depth)) in steps.iter().enumerate().skip(1) {
        let hits = ctx
            .name_words(node)
            .iter()
            .filter(|w| !start_words.contains(w) && ctx.is_question_word(w))
            .count();
        let key = (hits, depth, ctx.rel(node)?);
        let better = best
            .as_ref()
            .is_none_or(|(_, b)| key.partial_cmp(b) == Some(std::cmp::Ordering::Greater));
        if hits > 0 && better {
            best = Some((k, key));
        }
    }
    Ok(best.map(|(k, _)| k))
}

/// A call the chain may follow: (callee, confidence, the call's site, call, what picked it among
/// overriders). `call` numbers the call sites, so one call followed into several overriders is
/// still one branch.
type Target = (SymIdx, f32, std::rc::Rc<CallSite>, usize, f32);

/// A callee scored: (callee, score, leaf, call).
type Scored = (SymIdx, f32, bool, usize);

/// The callees of `node` worth following, strongest first, with their strength. `path` is the
/// chain so far.
fn next_steps(
    ctx: &Ctx<'_, '_, '_>,
    node: SymIdx,
    path: &[SymIdx],
) -> Result<Vec<(SymIdx, f32)>, QueryError> {
    let v = ctx.r.view;
    let me = v.sym(node);
    let me = &me.symbol;
    let targets = call_targets(ctx, me, path)?;
    read_ahead(ctx, node, &targets)?;
    let mut scored: Vec<Scored> = Vec::new();
    for (c, confidence, site, call, bonus) in targets {
        let object_method = is_object_method(v.name(c), v.param_types(c).len())
            && v.owner_type(c) != v.owner_type(node);
        if c == node
            || path.contains(&c)
            || object_method
            || !ctx.is_source_callable(c)
            || scored.iter().any(|(x, _, _, _)| *x == c)
        {
            continue;
        }
        let step = Step {
            node,
            name: &me.name,
            c,
            confidence,
            site: &site,
            bonus,
        };
        if let Some((s, leaf)) = score_step(ctx, &step)? {
            scored.push((c, s, leaf, call));
        }
    }
    scored.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
    for (c, s, _, _) in &scored {
        let to = format!("{}.{}", v.owner_name(*c).unwrap_or(""), v.name(*c));
        tracing::debug!(from = %me.name, to = %to, score = s, "chain callee");
    }
    Ok(choose(ctx, &scored))
}

/// Each call's target of method `me`, then, for a call to a method without a body (an
/// interface's, an abstract one), the overriders the question's words point to most: the call
/// goes on in one of them. `path` is the chain so far.
fn call_targets(
    ctx: &Ctx<'_, '_, '_>,
    me: &indexer::model::Symbol,
    path: &[SymIdx],
) -> Result<Vec<Target>, QueryError> {
    let v = ctx.r.view;
    // Types the chain so far creates (`traverse(new CleaningVisitor(..), root)`).
    let mut on_path: Vec<String> = Vec::new();
    for &m in path {
        on_path.extend(ctx.creates(m)?.iter().cloned());
    }
    let mut targets: Vec<Target> = Vec::new();
    for (call, e) in ctx.graph.callees(&me.id)?.into_iter().enumerate() {
        if e.confidence < 0.5 {
            continue;
        }
        let Some(to) = v.by_id(&e.to.0) else { continue };
        let site = std::rc::Rc::new(e.site.clone());
        let abstract_target = v.kind(to).is_callable() && !ctx.r.has_body(to);
        if abstract_target {
            for (bonus, i) in picked_overriders(ctx, to, &site, &on_path)? {
                let site = site.clone();
                targets.push((i, e.confidence * DISPATCH_CONFIDENCE, site, call, bonus));
            }
        }
        targets.push((to, e.confidence, site.clone(), call, 0.0));
        // Making a task (`new InitializationTask(..)`, a `Runnable` or `Callable`) is how work
        // is handed to another thread: the flow goes on in its `run()` or `call()`.
        // A type without a declared constructor is its own creation's target.
        if let Some(t) = created_type(v, to) {
            for m in v.members(t) {
                if matches!(v.name(m), "run" | "call")
                    && v.param_types(m).is_empty()
                    && ctx.r.has_body(m)
                {
                    let site = site.clone();
                    targets.push((m, e.confidence * DISPATCH_CONFIDENCE, site, call, 0.0));
                }
            }
        }
    }
    Ok(targets)
}

/// The overriders of abstract `to` (called with `site`) something points to: the receiver
/// naming its type, the chain so far creating it (`on_path`), or the question; the strongest
/// [`IMPLEMENTATIONS_TRIED`], each with what picked it.
fn picked_overriders(
    ctx: &Ctx<'_, '_, '_>,
    to: SymIdx,
    site: &CallSite,
    on_path: &[String],
) -> Result<Vec<(f32, SymIdx)>, QueryError> {
    let v = ctx.r.view;
    let receiver = prose_stems(&site.receiver.join(" "));
    // Only candidates something points to are read: reading every candidate's type and text
    // costs more than the rest of the chain.
    let bonus = |i: SymIdx| {
        let t = v.owner_type(i)?;
        let name = v.name(t);
        let mut bonus = 0.0;
        if ctx.receiver_names(i, to, &receiver) {
            bonus += RECEIVER_NAMED;
        }
        if on_path.iter().any(|c| c == name) {
            bonus += CREATED_ON_PATH;
        }
        let pointed = ctx.top.contains_key(&i) || ctx.owner_hits(name) > 0;
        (bonus > 0.0 || pointed).then_some(bonus)
    };
    let impls = ctx
        .overriders(to, |i| bonus(i).is_some())
        .unwrap_or_default();
    let mut best: Vec<(f32, f32, SymIdx)> = Vec::new();
    for i in impls.into_iter().filter(|&i| ctx.is_source_callable(i)) {
        let (Some(mut b), Some(t)) = (bonus(i), v.owner_type(i)) else {
            continue;
        };
        if ctx.is_created(t)? {
            b += CREATED;
        }
        best.push((ctx.rel(i)? + b, b, i));
    }
    best.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.2.cmp(&b.2)));
    Ok(best
        .into_iter()
        .take(IMPLEMENTATIONS_TRIED)
        .map(|(_, bonus, i)| (bonus, i))
        .collect())
}

/// Reads each target's text and calls (scored next) in one batch each.
fn read_ahead(ctx: &Ctx<'_, '_, '_>, node: SymIdx, targets: &[Target]) -> Result<(), QueryError> {
    let v = ctx.r.view;
    let read: Vec<SymIdx> = targets
        .iter()
        .map(|t| t.0)
        .filter(|&c| c != node && ctx.is_source_callable(c))
        .collect();
    let texts: Vec<&str> = read.iter().map(|&c| v.path(c)).collect();
    v.prefetch_files(&texts)?;
    v.prefetch_syms(&texts)?;
    let ids: Vec<SymbolId> = read
        .iter()
        .map(|&c| SymbolId(v.id(c).to_string()))
        .collect();
    ctx.graph.prefetch_callees(&ids)?;
    Ok(())
}

/// A callee `c` of `node` (named `name`) to score.
struct Step<'s> {
    node: SymIdx,
    name: &'s str,
    c: SymIdx,
    confidence: f32,
    site: &'s CallSite,
    bonus: f32,
}

/// How strongly the flow goes on in `step`'s callee, and whether it is a leaf (calls nothing
/// further into the code base); `None`: the flow never goes through it.
fn score_step(ctx: &Ctx<'_, '_, '_>, step: &Step<'_>) -> Result<Option<(f32, bool)>, QueryError> {
    let v = ctx.r.view;
    let &Step {
        node,
        name,
        c,
        confidence,
        site,
        bonus,
    } = step;
    let mut s = ctx.rel(c)? * confidence + bonus;
    let (a, b) = (name.to_lowercase(), v.name(c).to_lowercase());
    let same_owner = v.owner_type(c) == v.owner_type(node);
    let overload = a == b && same_owner;
    if overload {
        s += 0.6; // an overload taking over
    } else if same_owner && (b.contains(&a) || a.contains(&b)) {
        s += 0.35;
    }
    let lines = v.line_span(c);
    if !ctx.r.has_body(c) {
        s -= 0.2; // abstract: the work happens in an implementation we cannot pick
    }
    // Where the flow goes on: callees that call further into the code base.
    let leaf = !ctx
        .graph
        .callees(&SymbolId(v.id(c).to_string()))?
        .iter()
        .any(|e| {
            e.confidence >= 0.5
                && v.by_id(&e.to.0)
                    .is_some_and(|t| t != c && ctx.is_source_callable(t))
        });
    let small_static = !same_owner && lines <= 6 && v.flags(c) & FLAG_STATIC != 0;
    // An argument check of another type only throws (making its exception is its one
    // call) and hands nothing on: the flow never goes through it, unless its own name is
    // what the question is about.
    if small_static && ctx.owner_hits(v.name(c)) == 0 && is_guard(v, c) {
        return Ok(None);
    }
    if leaf && lines <= 5 && !overload && is_accessor(v.name(c)) {
        s -= 0.3; // getters, setters and predicates on state
    } else if leaf && small_static {
        s -= 0.25; // a small static helper of another type: a conversion
    } else if !leaf {
        s += 0.15;
    }
    if v.kind(c) == SymbolKind::Constructor && !overload {
        s -= 0.2; // making an object is rarely the step the flow is about
    }
    // A helper called from everywhere (an argument check, a status message) is no step of
    // this flow unless its own name is about the question.
    if s > 0.1 && !same_owner && ctx.is_helper(c)? {
        s -= 0.3;
    }
    // The call hands on the method's own parameters, or what it made before (`le = new
    // LoggingEvent(..)`, then `callAppenders(le)`): the flow goes on there; making the
    // value was a side step.
    if site.flags & (SITE_PARAM | SITE_LOCAL) != 0 {
        s += 0.2;
    }
    if site.flags & SITE_RETURNED != 0 {
        // Its result is the method's result: the work is handed on to it.
        s += 0.15;
    } else if site.flags & SITE_ARGUMENT != 0 {
        // It makes an argument of another call (`parse(r, new Parser(b))`): the flow goes
        // on in the outer call.
        s -= 0.15;
    }
    Ok(Some((s, leaf)))
}

/// The strongest of `scored` (strongest first), one per call, with their strength.
fn choose(ctx: &Ctx<'_, '_, '_>, scored: &[Scored]) -> Vec<(SymIdx, f32)> {
    // The strongest callees, strongest first: the main path before side branches.
    let mut chosen: Vec<(SymIdx, usize)> = Vec::new();
    for x in scored.iter().filter(|x| x.1 >= ctx.threshold) {
        if chosen.len() == BRANCH {
            break;
        }
        if !chosen.iter().any(|c| c.1 == x.3) {
            chosen.push((x.0, x.3));
        }
    }
    if chosen.is_empty() {
        // Nothing clearly relevant: keep going down the best callee that calls further, so the
        // chain reaches where the work happens.
        chosen.extend(
            scored
                .iter()
                .find(|x| x.1 > 0.1 && !x.2)
                .map(|x| (x.0, x.3)),
        );
    }
    chosen
        .into_iter()
        .map(|(c, call)| {
            let score = scored
                .iter()
                .find(|x| x.0 == c && x.3 == call)
                .map_or(0.0, |x| x.1);
            (c, score)
        })
        .collect()
}

/// A method returning nothing whose body throws (`throw new X(..)`): an argument or state check
/// (`Validate.notEmpty`).
fn is_guard(v: &crate::view::SnapshotView<'_>, m: SymIdx) -> bool {
    let s = &v.sym(m).symbol;
    s.value_type == "void" && !s.thrown.is_empty()
}

/// The type a call to `callee` creates: a constructor's type, or a type called as its own
/// implicit constructor.
fn created_type(v: &crate::view::SnapshotView<'_>, callee: SymIdx) -> Option<SymIdx> {
    match v.kind(callee) {
        SymbolKind::Constructor => v.owner_type(callee),
        k if k.is_type() => Some(callee),
        _ => None,
    }
}

/// `getX`, `setX`, `isX`, `hasX`, `withX` and the `Object` methods.
fn is_accessor(name: &str) -> bool {
    accessor_lines(name).is_some()
        || has_bean_prefix(name, "with")
        || matches!(name, "equals" | "hashCode" | "toString" | "compareTo")
}

/// An override of one of `java.lang.Object`'s methods (`toString()`, `equals(Object)`, …): every
/// type has them, so a call to one says nothing about the flow.
fn is_object_method(name: &str, n: usize) -> bool {
    match name {
        "toString" | "hashCode" | "getClass" | "clone" | "finalize" | "notify" | "notifyAll" => {
            n == 0
        }
        "equals" => n == 1,
        "wait" => n <= 2,
        _ => false,
    }
}
