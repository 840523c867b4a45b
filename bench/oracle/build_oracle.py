#!/usr/bin/env python3
"""Build a definitions + call-graph oracle for a Java source tree from javac -g bytecode.

    python3 build_oracle.py PKG_ROOT --defs OUT_DEFS.jsonl --edges OUT_EDGES.jsonl [--work DIR]
                            [--exclude REL_PATH ...]

WORK (default: $TMPDIR/oracle-work-<basename of PKG_ROOT>) receives the class files, javac.log, files.txt and
excluded.txt; nothing is written next to this script.

PKG_ROOT is the unpacked source package; every file under PKG_ROOT/src/main/java is compiled with
`javac -g --release 17 -encoding UTF-8 -proc:none`. Files that fail to compile are excluded (iteratively)
and listed in WORK/excluded.txt. Method resolution uses Resolve.java (reflection over the compiled classes
and the JDK). Record formats follow README-callgraph.md.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ inside the repo
import classfile as cf  # noqa: E402

SRC = 'src/main/java'


# ----------------------------------------------------------------------------------------------- compile
def compile_tree(root, work, exclude):
    files = []
    for d, _, fs in os.walk(os.path.join(root, SRC)):
        for f in fs:
            if f.endswith('.java'):
                files.append(os.path.relpath(os.path.join(d, f), root))
    files.sort()
    excluded = [f for f in files if f in set(exclude)]
    classes = os.path.join(work, 'classes')
    for _ in range(20):
        subprocess.run(['rm', '-rf', classes])
        os.makedirs(classes)
        use = [f for f in files if f not in excluded]
        with open(os.path.join(work, 'files.txt'), 'w') as fh:
            fh.write('\n'.join(use) + '\n')
        p = subprocess.run(['javac', '-g', '--release', '17', '-encoding', 'UTF-8', '-proc:none', '-nowarn',
                            '-Xmaxerrs', '10000', '-d', classes, '@' + os.path.join(work, 'files.txt')],
                           cwd=root, capture_output=True, text=True)
        with open(os.path.join(work, 'javac.log'), 'a') as fh:
            fh.write(p.stdout + p.stderr)
        if p.returncode == 0:
            break
        bad = set()
        for m in re.finditer(r'^(\S+\.java):\d+: error:', p.stderr, re.M):
            bad.add(os.path.relpath(os.path.join(root, m.group(1)), root))
        bad -= set(excluded)
        if not bad:
            sys.exit('javac failed without attributable errors:\n' + p.stderr[-3000:])
        excluded += sorted(bad)
    else:
        sys.exit('javac keeps failing')
    with open(os.path.join(work, 'excluded.txt'), 'w') as fh:
        fh.write(''.join(f + '\n' for f in excluded))
    return classes, use, excluded


# ----------------------------------------------------------------------------------------------- source text
def blank_source(text):
    """Blank comments and the contents of string/char literals (keep quotes and newlines)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '/' and i + 1 < n and text[i + 1] == '/':
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif c == '/' and i + 1 < n and text[i + 1] == '*':
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif text.startswith('"""', i):
            j = text.find('"""', i + 3)
            j = n if j < 0 else j
            out.append('"""' + re.sub(r'[^\n]', ' ', text[i + 3:j]) + '"""')
            i = j + 3
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            out.append(c + ' ' * (min(j, n) - i - 1) + (c if j < n and text[j] == c else ''))
            i = j + 1 if j < n and text[j] == c else j
        else:
            out.append(c)
            i += 1
    return ''.join(out)


TOKEN = re.compile(r'[A-Za-z_$][\w$]*|::|\S')
KEYWORDS_NOT_TYPE = {'return', 'new', 'throw', 'else', 'case', 'yield', 'assert', 'do', 'if', 'while', 'for',
                     'switch', 'catch', 'try', 'finally', 'instanceof', 'this', 'super', 'default', 'break',
                     'continue', 'synchronized', 'extends', 'implements', 'throws', 'package', 'import'}


class Source:
    def __init__(self, path):
        with open(path, encoding='utf-8', errors='replace') as fh:
            self.text = fh.read()
        self.blank = blank_source(self.text)
        self.lines = self.blank.split('\n')
        self.tokens = []  # (line, col, text)
        for ln, line in enumerate(self.lines, 1):
            for m in TOKEN.finditer(line):
                self.tokens.append((ln, m.start(), m.group()))
        self.tok_by_line = collections.defaultdict(list)
        for i, t in enumerate(self.tokens):
            self.tok_by_line[t[0]].append(i)
        self._first_tok = {}

    def line(self, n):
        return self.lines[n - 1] if 0 < n <= len(self.lines) else ''

    def last_token_index_upto(self, line):
        """index of the last token on a line <= line"""
        for ln in range(min(line, len(self.lines)), 0, -1):
            if self.tok_by_line.get(ln):
                return self.tok_by_line[ln][-1]
        return -1

    def decl_line(self, name, first_line, ctor, class_simple):
        """line of the declaration `name(`, searching backwards from the end of first_line"""
        i = self.last_token_index_upto(first_line)
        toks = self.tokens
        while i >= 0:
            ln, col, t = toks[i]
            if ctor and t in ('class', 'enum', 'interface', 'record') and i + 1 < len(toks) \
                    and toks[i + 1][2] == class_simple:
                return None  # reached the class header: no explicit constructor
            if t == name and i + 1 < len(toks) and toks[i + 1][2] == '(':
                prev = toks[i - 1][2] if i > 0 else ''
                if ctor:
                    if prev not in ('.', 'new', '::'):
                        return ln
                elif (re.match(r'[A-Za-z_$]', prev) and prev not in KEYWORDS_NOT_TYPE) or prev in ('>', ']'):
                    return ln
            i -= 1
        return None

    def block_end(self, line):
        """line of the '}' closing the first '{' at or after line (brace matching)"""
        i = self.tok_by_line.get(line, [None])[0]
        if i is None:
            return line
        depth = 0
        started = False
        for j in range(i, len(self.tokens)):
            t = self.tokens[j][2]
            if t == '{':
                depth += 1
                started = True
            elif t == '}':
                depth -= 1
                if started and depth == 0:
                    return self.tokens[j][0]
            elif t == ';' and not started:
                return self.tokens[j][0]
        return line


# ----------------------------------------------------------------------------------------------- naming
def dotted(binary):
    return binary.replace('/', '.')


def simple_parts(binary):
    """'a/b/Outer$Inner$1' -> ['Outer', 'Inner', '1']"""
    s = dotted(binary).split('.')[-1]
    return [p for p in s.split('$') if p != ''] or [s]


def symbol_class(binary):
    return '.'.join(simple_parts(binary))


def named_class(binary):
    for p in reversed(simple_parts(binary)):
        if p.isdigit():
            continue
        return re.sub(r'^\d+', '', p)
    return simple_parts(binary)[0]


def type_name(t):
    """owner from an instruction: class name or array descriptor"""
    return t if t.startswith('[') else dotted(t)


# ----------------------------------------------------------------------------------------------- main build
BOX = {'java/lang/Integer', 'java/lang/Long', 'java/lang/Boolean', 'java/lang/Character', 'java/lang/Short',
       'java/lang/Byte', 'java/lang/Double', 'java/lang/Float'}
UNBOX = {'intValue', 'longValue', 'booleanValue', 'charValue', 'shortValue', 'byteValue', 'doubleValue',
         'floatValue'}


class Builder:
    def __init__(self, root, classes_dir):
        self.root = root
        self.classes_dir = classes_dir
        self.classes = {}  # internal name -> ClassFile
        for d, _, fs in os.walk(classes_dir):
            for f in fs:
                if f.endswith('.class'):
                    with open(os.path.join(d, f), 'rb') as fh:
                        c = cf.ClassFile(fh.read())
                    self.classes[c.name] = c
        self.sources = {}
        self.resolved = {}

    # -- class facts
    def file_of(self, cname):
        c = self.classes.get(cname)
        if c is None:
            return None
        pkg = cname.rsplit('/', 1)[0] if '/' in cname else ''
        sf = c.source_file or (simple_parts(cname)[0] + '.java')
        return '/'.join(x for x in (SRC, pkg, sf) if x)

    def source(self, rel):
        if rel not in self.sources:
            self.sources[rel] = Source(os.path.join(self.root, rel))
        return self.sources[rel]

    def inner_info(self, cname):
        c = self.classes.get(cname)
        if c is None:
            return None
        return c.inner.get(cname)

    def is_anonymous(self, cname):
        ii = self.inner_info(cname)
        return bool(ii) and ii[1] is None

    def is_local(self, cname):
        ii = self.inner_info(cname)
        return bool(ii) and ii[1] is not None and ii[0] is None and self.classes[cname].enclosing is not None

    def simple_name(self, cname):
        ii = self.inner_info(cname)
        if ii and ii[1]:
            return ii[1]
        return named_class(cname)

    def anon_supertype(self, cname):
        c = self.classes[cname]
        if c.super == 'java/lang/Object' and c.interfaces:
            return c.interfaces[0]
        return c.super

    # -- resolution
    def resolve_all(self, queries):
        todo = sorted(q for q in queries if q not in self.resolved)
        if not todo:
            return
        inp = ''.join('%s\t%s\t%s\t%d\n' % (type_name(o), n, d, 1 if itf else 0) for o, n, d, itf in todo)
        # Resolve.java is compiled into a scratch folder (never next to this script), then run with the
        # compiled corpus classes on the class path.
        with tempfile.TemporaryDirectory(prefix='oracle-resolve-') as tmp:
            p = subprocess.run(['javac', '--release', '17', '-nowarn', '-d', tmp, os.path.join(HERE, 'Resolve.java')],
                               capture_output=True, text=True)
            if p.returncode != 0:
                sys.exit('javac Resolve.java failed: ' + p.stderr[-3000:])
            p = subprocess.run(['java', '-cp', tmp + os.pathsep + self.classes_dir, 'Resolve'],
                               input=inp, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit('Resolve failed: ' + p.stderr[-3000:])
        ans = p.stdout.split('\n')
        for q, a in zip(todo, ans):
            self.resolved[q] = None if a == '?' else a.replace('.', '/')

    def resolve(self, owner, name, desc, itf):
        r = self.resolved.get((owner, name, desc, itf))
        if r is None:
            r = 'java/lang/Object' if owner.startswith('[') else owner
        return r

    # -- methods
    def method_key(self, c, m):
        return (c.name, m.name, m.desc)

    def build(self):
        # pass 1: instructions, lambda parents, queries
        self.instrs = {}  # method key -> list of instruction dicts
        self.lambda_parent = {}  # (class, lambda name, desc) -> (class, method, desc)
        self.anon_creator = {}  # anonymous class -> (class, method, desc) first method doing `new` of it
        queries = set()
        self.mflags = {}
        for cname, c in self.classes.items():
            for m in c.methods:
                key = self.method_key(c, m)
                self.mflags[key] = m.access
                if not m.code:
                    continue
                ins = []
                code = m.code
                for pc, op in cf.walk(code):
                    if op == 0xbb:
                        t = c.class_name(cf.u2at(code, pc + 1))
                        ins.append(dict(pc=pc, kind='new', cls=t))
                        if self.is_anonymous(t) and t not in self.anon_creator:
                            self.anon_creator[t] = key
                    elif op in (0xb6, 0xb7, 0xb8, 0xb9):
                        o, n, d, itf = c.member_ref(cf.u2at(code, pc + 1))
                        ins.append(dict(pc=pc, kind='invoke', opcode=cf.INVOKES[op], owner=o, name=n, desc=d, itf=itf))
                        queries.add((o, n, d, itf))
                    elif op == 0xba:
                        bi, n, d = c.indy(cf.u2at(code, pc + 1))
                        bmh, bargs = c.bootstrap[bi]
                        kind, bo, bn, bd, _ = c.method_handle(bmh)
                        if bo == 'java/lang/invoke/LambdaMetafactory' and len(bargs) >= 2:
                            hk, ho, hn, hd, hitf = c.method_handle(bargs[1])
                            if ho == cname and hn.startswith('lambda$') and hd and \
                                    any(mm.name == hn and mm.desc == hd and mm.access & cf.ACC_SYNTHETIC
                                        for mm in c.methods):
                                self.lambda_parent.setdefault((cname, hn, hd), key)
                            else:
                                ins.append(dict(pc=pc, kind='mref', opcode='invokedynamic', owner=ho, name=hn,
                                                desc=hd, itf=hitf, handle_kind=hk))
                                queries.add((ho, hn, hd, hitf))
                self.instrs[key] = ins
        self.resolve_all(queries)

    def map_lambda(self, key):
        """follow lambda bodies up to the source method"""
        seen = set()
        while key in self.lambda_parent and key not in seen:
            seen.add(key)
            key = self.lambda_parent[key]
        return key

    def enclosing_of_anon(self, cname):
        c = self.classes[cname]
        enc = c.enclosing
        if enc is None:
            return None
        ec, mn, md = enc
        if mn is None:
            k = self.anon_creator.get(cname)
            if k is None:
                return None
            ec, mn, md = k
        ec, mn, md = self.map_lambda((ec, mn, md))
        return dict(**{'class': dotted(ec)}, method=mn, desc=md, named_class=named_class(ec))

    # -- defs
    def defs(self):
        out = []
        self.ctor_extent = {}
        for cname in sorted(self.classes):
            c = self.classes[cname]
            f = self.file_of(cname)
            src = self.source(f)
            anon = self.is_anonymous(cname)
            enum = bool(c.access & cf.ACC_ENUM)
            for m in c.methods:
                key = self.method_key(c, m)
                synth = bool(m.access & cf.ACC_SYNTHETIC)
                bridge = bool(m.access & cf.ACC_BRIDGE)
                lam = synth and m.name.startswith('lambda$')
                abstract = bool(m.access & (cf.ACC_ABSTRACT | cf.ACC_NATIVE)) and not m.code
                lines = [ln for _, ln in m.lnt]
                first = min(m.lnt)[1] if m.lnt else None
                implicit = synth or bridge or lam
                if enum and m.access & cf.ACC_STATIC and (
                        (m.name == 'values' and m.desc == '()[L%s;' % cname) or
                        (m.name == 'valueOf' and m.desc == '(Ljava/lang/String;)L%s;' % cname)):
                    implicit = True
                decl = None
                if not implicit and m.name != '<clinit>' and first is not None:
                    ctor = m.name == '<init>'
                    simple = self.simple_name(cname)
                    if ctor and anon:
                        implicit = True
                    else:
                        decl = src.decl_line(simple if ctor else m.name, first, ctor, simple)
                        if ctor and decl is None:
                            implicit = True
                if m.name == '<init>':
                    if decl is not None:
                        self.ctor_extent[key] = (decl, src.block_end(decl))
                    else:
                        self.ctor_extent[key] = None
                d = dict(file=f, **{'class': dotted(cname)}, method=m.name, desc=m.desc,
                         symbol=symbol_class(cname) + '.' + m.name, named_class=named_class(cname),
                         first_line=first, min_line=min(lines) if lines else None,
                         max_line=max(lines) if lines else None, decl_line=decl,
                         static=bool(m.access & cf.ACC_STATIC), abstract=abstract, synthetic=synth, bridge=bridge,
                         lambda_=lam, implicit=implicit, class_anonymous=anon, class_local=self.is_local(cname),
                         class_synthetic=bool(c.access & cf.ACC_SYNTHETIC),
                         class_interface=bool(c.access & cf.ACC_INTERFACE))
                d['lambda'] = d.pop('lambda_')
                # keep README field order
                d = {k: d[k] for k in ('file', 'class', 'method', 'desc', 'symbol', 'named_class', 'first_line',
                                       'min_line', 'max_line', 'decl_line', 'static', 'abstract', 'synthetic',
                                       'bridge', 'lambda', 'implicit', 'class_anonymous', 'class_local',
                                       'class_synthetic', 'class_interface')}
                if lam:
                    p = self.map_lambda(key)
                    if p != key:
                        d['enclosing_method'] = {'class': dotted(p[0]), 'method': p[1], 'desc': p[2]}
                elif anon:
                    e = self.enclosing_of_anon(cname)
                    if e:
                        d['enclosing_method'] = {'class': e['class'], 'method': e['method'], 'desc': e['desc']}
                self.mflags[key] = m.access
                out.append(d)
        self.def_records = out
        return out

    # -- edges
    def edges(self):
        out = []
        for cname in sorted(self.classes):
            c = self.classes[cname]
            f = self.file_of(cname)
            src = self.source(f)
            enum = bool(c.access & cf.ACC_ENUM)
            csynth = bool(c.access & cf.ACC_SYNTHETIC)
            anon = self.is_anonymous(cname)
            enc = self.enclosing_of_anon(cname) if anon else None
            for m in c.methods:
                key = self.method_key(c, m)
                if key not in self.instrs:
                    continue
                mk = self.map_lambda(key)
                via_lambda = mk != key
                caller_cls, caller_m, caller_d = mk
                cm_access = self.mflags.get(mk, 0)
                bridge = bool(m.access & cf.ACC_BRIDGE)
                synth_m = bool(m.access & cf.ACC_SYNTHETIC) and not m.name.startswith('lambda$')
                enum_implicit = enum and m.name in ('values', 'valueOf') and m.access & cf.ACC_STATIC and \
                    m.desc in ('()[L%s;' % cname, '(Ljava/lang/String;)L%s;' % cname)
                pending = []  # stack of (class, pc, line)
                claimed = set()
                new_lines = {}
                for ins in self.instrs[key]:
                    line = m.line_at(ins['pc'])
                    if ins['kind'] == 'new':
                        pending.append((ins['cls'], ins['pc'], line))
                        continue
                    owner, name, desc, itf = ins['owner'], ins['name'], ins['desc'], ins['itf']
                    e = collections.OrderedDict()
                    ctor_call = None
                    new_line = None
                    if ins['kind'] == 'invoke' and name == '<init>' and ins['opcode'] == 'invokespecial':
                        idx = None
                        for j in range(len(pending) - 1, -1, -1):
                            if pending[j][0] == owner:
                                idx = j
                                break
                        if idx is not None:
                            ctor_call = 'new'
                            new_line = pending[idx][2]
                            del pending[idx:]
                        else:
                            ctor_call = 'super_or_this'
                    anon_creation = ctor_call == 'new' and self.is_anonymous(owner)
                    if anon_creation:
                        callee_cls = self.anon_supertype(owner)
                    else:
                        callee_cls = self.resolve(owner, name, desc, itf)
                    external = callee_cls not in self.classes
                    # line (new X: line of the `new` token)
                    adjusted = False
                    xname = self.simple_name(callee_cls if anon_creation else owner) if ctor_call == 'new' else None
                    if ctor_call == 'new' and new_line is not None:
                        rx = re.compile(r'\bnew\s+(?:[\w$]+\s*\.\s*)*' + re.escape(xname) + r'\b')
                        found = None
                        for ln in range(new_line, new_line + 40):
                            for mt in rx.finditer(src.line(ln)):
                                if (ln, mt.start()) not in claimed:
                                    found = (ln, mt.start())
                                    break
                            if found:
                                break
                        if found:
                            claimed.add(found)
                            if found[0] != new_line:
                                adjusted = True
                            line = found[0]
                    # compiler generated?
                    text = src.line(line) if line else ''
                    reason = None
                    if bridge:
                        reason = 'bridge_method'
                    elif enum_implicit:
                        reason = 'enum_implicit_method'
                    elif synth_m:
                        reason = 'synthetic_method'
                    elif csynth:
                        reason = 'synthetic_class'
                    elif owner in self.classes and self.callee_synthetic(owner, name, desc):
                        reason = 'synthetic_callee'
                    elif ctor_call == 'new' and enum and m.name == '<clinit>' and \
                            (owner == cname or (owner in self.classes and self.classes[owner].super == cname)):
                        reason = 'enum_constant'
                    elif ins['kind'] == 'mref':
                        reason = None
                    elif not self.in_text(text, name, ctor_call, xname):
                        reason = self.classify(owner, name, desc, ctor_call, text, callee_cls)
                    e['caller_file'] = f
                    e['caller_class'] = dotted(caller_cls)
                    e['caller_method'] = caller_m
                    e['caller_desc'] = caller_d
                    e['caller_symbol'] = symbol_class(caller_cls) + '.' + caller_m
                    e['caller_named_class'] = named_class(caller_cls)
                    e['line'] = line
                    e['callee_class'] = dotted(callee_cls)
                    e['callee_owner'] = type_name(owner)
                    e['callee_method'] = name
                    e['callee_desc'] = desc
                    e['callee_symbol'] = symbol_class(callee_cls) + '.' + name
                    e['callee_named_class'] = named_class(callee_cls)
                    e['callee_owner_named_class'] = named_class(owner if not owner.startswith('[') else callee_cls)
                    e['callee_file'] = None if external else self.file_of(callee_cls)
                    e['opcode'] = ins['opcode']
                    e['pc'] = ins['pc']
                    if ins['kind'] == 'mref':
                        e['method_ref'] = True
                        e['handle_kind'] = ins['handle_kind']
                    e['external'] = external
                    e['compiler_generated'] = reason is not None
                    e['reason'] = reason
                    if ctor_call:
                        e['ctor_call'] = ctor_call
                    if anon_creation:
                        e['anonymous_class_creation'] = True
                    if via_lambda:
                        e['via_lambda'] = True
                        e['bytecode_caller'] = m.name
                    if adjusted:
                        e['line_adjusted'] = True
                    if ins['kind'] != 'mref' and self.is_initializer(key, mk, m, line, reason):
                        e['initializer'] = True
                    if enc:
                        e['caller_enclosing_method'] = enc
                    out.append(e)
        # merge identical invokes
        merged = collections.OrderedDict()
        for e in out:
            k = (e['caller_class'], e['caller_method'], e['caller_desc'], e.get('bytecode_caller'), e['line'],
                 e['callee_class'], e['callee_owner'], e['callee_method'], e['callee_desc'], e['opcode'])
            if k in merged:
                merged[k]['occurrences'] = merged[k].get('occurrences', 1) + 1
            else:
                merged[k] = e
        return list(merged.values())

    def callee_synthetic(self, owner, name, desc):
        c = self.classes.get(owner)
        for m in c.methods:
            if m.name == name and m.desc == desc:
                return bool(m.access & cf.ACC_SYNTHETIC) and not (m.access & cf.ACC_BRIDGE)
        return False

    def is_initializer(self, key, mk, m, line, reason):
        bname = key[1]
        if mk[1] == '<clinit>' or bname.startswith('lambda$static$'):
            return True
        if bname.startswith('lambda$new$'):
            return True
        if mk[1] == '<init>':
            if reason == 'implicit_super_ctor':
                return False
            ext = self.ctor_extent.get(mk)
            if ext is None:
                return True
            return not (ext[0] <= line <= ext[1])
        return False

    @staticmethod
    def in_text(text, name, ctor_call, xname):
        if ctor_call == 'super_or_this':
            return re.search(r'\b(super|this)\s*\(', text) is not None
        if ctor_call == 'new':
            return re.search(r'\bnew\s+(?:[\w$]+\s*\.\s*)*' + re.escape(xname) + r'\b', text) is not None
        if name == '<init>':
            return False
        return re.search(r'(?<![\w$])' + re.escape(name) + r'\s*\(', text) is not None

    @staticmethod
    def classify(owner, name, desc, ctor_call, text, callee_cls):
        if ctor_call == 'super_or_this':
            return 'implicit_super_ctor'
        if owner == 'java/util/Objects' and name == 'requireNonNull' and '::' in text:
            return 'null_check'
        if name in ('iterator', 'hasNext', 'next'):
            return 'for_each'
        if name in ('close', 'addSuppressed'):
            return 'try_with_resources'
        if owner == 'java/lang/String' and name == 'valueOf':
            return 'string_concat'
        if (owner in BOX and name == 'valueOf') or name in UNBOX:
            return 'autoboxing'
        if owner == 'java/lang/String' and name in ('hashCode', 'equals'):
            return 'string_switch'
        if name == 'ordinal':
            return 'enum_switch'
        if owner == 'java/lang/AssertionError' or name == 'desiredAssertionStatus':
            return 'assert'
        return 'not_in_source_text'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('root')
    ap.add_argument('--defs', required=True)
    ap.add_argument('--edges', required=True)
    ap.add_argument('--work', default=None)
    ap.add_argument('--exclude', nargs='*', default=[])
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    work = os.path.abspath(a.work or os.path.join(tempfile.gettempdir(), 'oracle-work-' + os.path.basename(root)))
    os.makedirs(work, exist_ok=True)
    if os.path.exists(os.path.join(work, 'javac.log')):
        os.remove(os.path.join(work, 'javac.log'))
    classes, used, excluded = compile_tree(root, work, a.exclude)
    b = Builder(root, classes)
    b.build()
    defs = b.defs()
    edges = b.edges()
    with open(a.defs, 'w') as fh:
        for d in defs:
            fh.write(json.dumps(d) + '\n')
    with open(a.edges, 'w') as fh:
        for e in edges:
            fh.write(json.dumps(e) + '\n')
    print('compiled files: %d, excluded: %d %s' % (len(used), len(excluded), excluded))
    print('classes: %d, defs: %d, edges: %d' % (len(b.classes), len(defs), len(edges)))


if __name__ == '__main__':
    main()
