#!/usr/bin/env python3
"""Python framework edges against what `ast` finds in the source: URL entries, router
registrations, Celery tasks and their senders, signal receivers and senders, model classes and
settings/environment reads, each counted as declared (by `ast`) and linked (an edge of
codemap's at the same path:line, or naming the same function), with a few misses listed.

usage: py_frameworks.py REPO EDGES_JSONL [--tables TABLES_JSON] [--misses N]

TABLES_JSON (optional) maps `module.Class` to the table Django itself gives the model
(`apps.get_models()`): then model → table is checked against it.
"""
import ast
import json
import os
import sys
from collections import defaultdict


def py_files(root):
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(".") and x not in ("node_modules",)]
        for f in files:
            if f.endswith(".py"):
                p = os.path.join(d, f)
                yield os.path.relpath(p, root), p


def module_of(rel):
    parts = rel[:-3].split("/")
    if "src" in parts[:-1]:
        parts = parts[len(parts) - 1 - parts[::-1].index("src") :][1:]
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def last_name(f):
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return None


def dotted(n):
    if isinstance(n, ast.Name):
        return n.id
    if isinstance(n, ast.Attribute):
        d = dotted(n.value)
        return d and d + "." + n.attr
    return None


def strconst(n):
    return isinstance(n, ast.Constant) and isinstance(n.value, str)


class Scan(ast.NodeVisitor):
    def __init__(self, rel, module):
        self.rel, self.module, self.stack = rel, module, []
        self.urls, self.registers, self.tasks, self.senders = [], [], [], []
        self.receivers, self.sends, self.models, self.settings, self.env = [], [], [], [], []
        self.settings_names = set()

    def qual(self, name):
        return ".".join([self.module] + self.stack + [name])

    def visit_ImportFrom(self, n):
        if n.module == "django.conf":
            for a in n.names:
                if a.name == "settings":
                    self.settings_names.add(a.asname or a.name)

    def visit_ClassDef(self, n):
        bases = [dotted(b) or "" for b in n.bases]
        self.models.append((self.qual(n.name), n.lineno, bases, n))
        self.stack.append(n.name)
        self.generic_visit(n)
        self.stack.pop()

    def visit_FunctionDef(self, n):
        for d in n.decorator_list:
            f = d.func if isinstance(d, ast.Call) else d
            name = last_name(f)
            if name in ("task", "shared_task", "periodic_task"):
                self.tasks.append((self.qual(n.name), n.lineno))
            if name == "receiver":
                self.receivers.append((self.qual(n.name), d.lineno))
        self.stack.append(n.name)
        self.generic_visit(n)
        self.stack.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Call(self, n):
        name = last_name(n.func)
        line = n.func.end_lineno if isinstance(n.func, ast.Attribute) else n.lineno
        if name in ("path", "re_path", "url") and len(n.args) >= 2 and strconst(n.args[0]):
            v = n.args[1]
            include = isinstance(v, ast.Call) and last_name(v.func) == "include"
            self.urls.append((n.lineno, include, ast.unparse(v)[:60]))
        if name == "register" and len(n.args) >= 2 and strconst(n.args[0]):
            self.registers.append((line, ast.unparse(n)[:60]))
        if name in ("delay", "apply_async", "send_task", "s", "si"):
            self.senders.append((line, ast.unparse(n.func)[:60]))
        if name == "connect" and n.args and isinstance(n.func, ast.Attribute):
            self.receivers.append((ast.unparse(n.args[0]), line))
        if name in ("send", "send_robust") and isinstance(n.func, ast.Attribute):
            self.sends.append((line, ast.unparse(n.func)[:60]))
        if (
            name in ("getenv", "get", "setdefault")
            and n.args
            and strconst(n.args[0])
            and (dotted(n.func) or "").split(".")[-2:-1] in (["os"], ["environ"])
        ):
            self.env.append((line, n.args[0].value))
        self.generic_visit(n)

    def visit_Subscript(self, n):
        if (dotted(n.value) or "").endswith("environ") and strconst(n.slice):
            self.env.append((n.lineno, n.slice.value))
        self.generic_visit(n)

    def visit_Attribute(self, n):
        if isinstance(n.value, ast.Name) and n.value.id in self.settings_names and n.attr.isupper():
            self.settings.append((n.lineno, n.attr))
        self.generic_visit(n)


def main():
    args = sys.argv[1:]
    root, edges_path = args[0], args[1]
    tables_path = args[args.index("--tables") + 1] if "--tables" in args else None
    nmiss = int(args[args.index("--misses") + 1]) if "--misses" in args else 4
    edges = [json.loads(l) for l in open(edges_path)]
    at = defaultdict(list)  # (file, line) -> edges
    for e in edges:
        at[(e["caller_file"], e["line"])].append(e)
    into = defaultdict(list)  # callee symbol -> edges
    for e in edges:
        into[e.get("callee_symbol") or ""].append(e)

    scans = []
    for rel, p in py_files(root):
        try:
            tree = ast.parse(open(p, "rb").read())
        except (SyntaxError, ValueError):
            continue
        s = Scan(rel, module_of(rel))
        s.visit(tree)
        scans.append(s)

    def report(title, items, linked, what):
        ok = [i for i in items if linked(i)]
        print(f"{title}: declared {len(items)}, linked {len(ok)}" + (
            f" ({len(ok) / len(items):.3f})" if items else ""))
        for i in [i for i in items if not linked(i)][:nmiss]:
            print(f"    miss: {what(i)}")

    has = lambda s, line, kind, pred=lambda e: True: any(
        e["kind"] == kind and pred(e) for e in at[(s.rel, line)])
    views = [(s, u) for s in scans for u in s.urls if not u[1]]
    report("django url entries (views)", views, lambda x: has(x[0], x[1][0], "route"),
           lambda x: f"{x[0].rel}:{x[1][0]} {x[1][2]}")
    regs = [(s, r) for s in scans for r in s.registers]
    report("router registrations", regs, lambda x: has(x[0], x[1][0], "route"),
           lambda x: f"{x[0].rel}:{x[1][0]} {x[1][1]}")
    tasks = [(s, t) for s in scans for t in s.tasks]
    report("celery tasks reached by a sender", tasks,
           lambda x: any(e["kind"] == "event" for e in into[x[1][0]]),
           lambda x: f"{x[0].rel}:{x[1][1]} {x[1][0]}")
    senders = [(s, t) for s in scans for t in s.senders]
    report("celery send sites", senders,
           lambda x: has(x[0], x[1][0], "event", lambda e: e["detail"].startswith("celery")),
           lambda x: f"{x[0].rel}:{x[1][0]} {x[1][1]}")
    recv = [(s, r) for s in scans for r in s.receivers]
    signalled = [e for e in edges if e["kind"] == "event" and e["detail"].startswith("signal")]
    report("signal receivers (@receiver, .connect) reached", recv,
           lambda x: any(e["callee_file"] == x[0].rel and (e["callee_symbol"] or "").rsplit(".", 1)[-1]
                         == x[1][0].rsplit(".", 1)[-1] for e in signalled),
           lambda x: f"{x[0].rel}:{x[1][1]} {x[1][0]}")
    sends = [(s, t) for s in scans for t in s.sends]
    report("signal .send sites linked", sends,
           lambda x: has(x[0], x[1][0], "event", lambda e: e["detail"].startswith("signal")),
           lambda x: f"{x[0].rel}:{x[1][0]} {x[1][1]}")
    model_edges = {e["caller_symbol"]: e["callee_symbol"] for e in edges
                   if e["kind"] == "db" and e["detail"] == "model"}
    print(f"model classes with a table edge: {len(model_edges)}; "
          f"query sites (db edges): {sum(1 for e in edges if e['kind'] == 'db' and e['detail'] != 'model')}")
    if tables_path:
        want = json.load(open(tables_path))
        ok = [m for m, t in want.items() if model_edges.get(m) == "table:" + t]
        wrong = [m for m, t in want.items() if m in model_edges and model_edges[m] != "table:" + t]
        print(f"  against Django's own apps registry: {len(want)} models, table right {len(ok)}"
              f" ({len(ok) / len(want):.3f}), wrong {len(wrong)}, missing {len(want) - len(ok) - len(wrong)}")
        for m in wrong[:nmiss]:
            print(f"    wrong: {m}: {model_edges[m]} (Django: {want[m]})")
        for m in [m for m in want if m not in model_edges][:nmiss]:
            print(f"    missing: {m} ({want[m]})")
    sets = [(s, r) for s in scans for r in s.settings]
    report("django settings.X reads", sets,
           lambda x: has(x[0], x[1][0], "config", lambda e: e["callee_symbol"] == "config:" + x[1][1])
           or any(e["kind"] == "config" and e["callee_symbol"] == "config:" + x[1][1]
                  and e["caller_file"] == x[0].rel for e in edges),
           lambda x: f"{x[0].rel}:{x[1][0]} settings.{x[1][1]}")
    env = [(s, r) for s in scans for r in s.env]
    report("environment reads", env,
           lambda x: has(x[0], x[1][0], "config", lambda e: e["callee_symbol"] == "config:" + x[1][1]),
           lambda x: f"{x[0].rel}:{x[1][0]} {x[1][1]}")
    kinds = defaultdict(int)
    for e in edges:
        if e["kind"] in ("route", "event", "db", "config"):
            kinds[e["kind"]] += 1
    print("edges:", dict(sorted(kinds.items())))


if __name__ == "__main__":
    main()
