"""Minimal Java class-file reader (JVMS chapter 4): constant pool, methods, Code/LineNumberTable,
SourceFile, InnerClasses, EnclosingMethod, BootstrapMethods, and a bytecode walker for invoke/new."""
import struct

ACC_PUBLIC, ACC_PRIVATE, ACC_PROTECTED, ACC_STATIC = 0x1, 0x2, 0x4, 0x8
ACC_FINAL, ACC_SYNCHRONIZED, ACC_BRIDGE, ACC_VARARGS = 0x10, 0x20, 0x40, 0x80
ACC_NATIVE, ACC_INTERFACE, ACC_ABSTRACT, ACC_SYNTHETIC = 0x100, 0x200, 0x400, 0x1000
ACC_ANNOTATION, ACC_ENUM = 0x2000, 0x4000

REF_KINDS = {1: 'REF_getField', 2: 'REF_getStatic', 3: 'REF_putField', 4: 'REF_putStatic',
             5: 'REF_invokeVirtual', 6: 'REF_invokeStatic', 7: 'REF_invokeSpecial',
             8: 'REF_newInvokeSpecial', 9: 'REF_invokeInterface'}

INVOKES = {0xb6: 'invokevirtual', 0xb7: 'invokespecial', 0xb8: 'invokestatic',
           0xb9: 'invokeinterface', 0xba: 'invokedynamic'}


def _oplen():
    t = [1] * 256
    for op in (0x10, 0x12, 0xa9, 0xbc):
        t[op] = 2
    for op in range(0x15, 0x1a):
        t[op] = 2
    for op in range(0x36, 0x3b):
        t[op] = 2
    for op in (0x11, 0x13, 0x14, 0x84, 0xbb, 0xbd, 0xc0, 0xc1, 0xc6, 0xc7, 0xb6, 0xb7, 0xb8):
        t[op] = 3
    for op in range(0x99, 0xa9):
        t[op] = 3
    for op in range(0xb2, 0xb6):
        t[op] = 3
    t[0xc5] = 4
    for op in (0xb9, 0xba, 0xc8, 0xc9):
        t[op] = 5
    return t


OPLEN = _oplen()


def mutf8(b):
    # modified UTF-8: NUL as C0 80, supplementary chars as surrogate pairs
    try:
        return b.decode('utf-8')
    except UnicodeDecodeError:
        return b.replace(b'\xc0\x80', b'\x00').decode('utf-8', errors='replace')


class Reader:
    def __init__(self, data, pos=0):
        self.d = data
        self.p = pos

    def u1(self):
        v = self.d[self.p]
        self.p += 1
        return v

    def u2(self):
        v = struct.unpack_from('>H', self.d, self.p)[0]
        self.p += 2
        return v

    def u4(self):
        v = struct.unpack_from('>I', self.d, self.p)[0]
        self.p += 4
        return v

    def bytes(self, n):
        v = self.d[self.p:self.p + n]
        self.p += n
        return v


class Method:
    def __init__(self):
        self.access = 0
        self.name = None
        self.desc = None
        self.code = None
        self.lnt = []  # (start_pc, line)

    def line_at(self, pc):
        best = None
        for spc, ln in self.lnt:
            if spc <= pc and (best is None or spc >= best[0]):
                best = (spc, ln)
        return best[1] if best else None


class ClassFile:
    def __init__(self, data):
        r = Reader(data)
        if r.u4() != 0xCAFEBABE:
            raise ValueError('not a class file')
        r.u2(), r.u2()
        n = r.u2()
        cp = [None] * n
        i = 1
        while i < n:
            tag = r.u1()
            if tag == 1:
                ln = r.u2()
                cp[i] = (1, mutf8(r.bytes(ln)))
            elif tag in (3, 4):
                cp[i] = (tag, r.u4())
            elif tag in (5, 6):
                cp[i] = (tag, r.bytes(8))
                i += 1
            elif tag in (7, 8, 16, 19, 20):
                cp[i] = (tag, r.u2())
            elif tag in (9, 10, 11, 12, 17, 18):
                cp[i] = (tag, r.u2(), r.u2())
            elif tag == 15:
                cp[i] = (tag, r.u1(), r.u2())
            else:
                raise ValueError('bad cp tag %d' % tag)
            i += 1
        self.cp = cp
        self.access = r.u2()
        self.name = self.class_name(r.u2())
        sup = r.u2()
        self.super = self.class_name(sup) if sup else None
        self.interfaces = [self.class_name(r.u2()) for _ in range(r.u2())]
        for _ in range(r.u2()):  # fields
            r.u2(), r.u2(), r.u2()
            for _ in range(r.u2()):
                r.u2()
                r.bytes(r.u4())
        self.methods = []
        for _ in range(r.u2()):
            m = Method()
            m.access = r.u2()
            m.name = self.utf(r.u2())
            m.desc = self.utf(r.u2())
            for _ in range(r.u2()):
                an = self.utf(r.u2())
                alen = r.u4()
                end = r.p + alen
                if an == 'Code':
                    r.u2(), r.u2()
                    clen = r.u4()
                    m.code = r.bytes(clen)
                    r.bytes(8 * r.u2())
                    for _ in range(r.u2()):
                        can = self.utf(r.u2())
                        clen2 = r.u4()
                        cend = r.p + clen2
                        if can == 'LineNumberTable':
                            for _ in range(r.u2()):
                                m.lnt.append((r.u2(), r.u2()))
                        r.p = cend
                r.p = end
            self.methods.append(m)
        self.source_file = None
        self.inner = {}  # binary name -> (outer or None, simple name or None, flags)
        self.enclosing = None  # (class, method name or None, desc or None)
        self.bootstrap = []  # [(method handle cp index, [arg cp indices])]
        for _ in range(r.u2()):
            an = self.utf(r.u2())
            alen = r.u4()
            end = r.p + alen
            if an == 'SourceFile':
                self.source_file = self.utf(r.u2())
            elif an == 'InnerClasses':
                for _ in range(r.u2()):
                    ic, oc, nm, fl = r.u2(), r.u2(), r.u2(), r.u2()
                    self.inner[self.class_name(ic)] = (self.class_name(oc) if oc else None,
                                                       self.utf(nm) if nm else None, fl)
            elif an == 'EnclosingMethod':
                c, nt = r.u2(), r.u2()
                if nt:
                    mn, md = self.name_type(nt)
                else:
                    mn = md = None
                self.enclosing = (self.class_name(c), mn, md)
            elif an == 'BootstrapMethods':
                for _ in range(r.u2()):
                    mh = r.u2()
                    self.bootstrap.append((mh, [r.u2() for _ in range(r.u2())]))
            r.p = end

    def utf(self, i):
        return self.cp[i][1]

    def class_name(self, i):
        return self.utf(self.cp[i][1])

    def name_type(self, i):
        e = self.cp[i]
        return self.utf(e[1]), self.utf(e[2])

    def member_ref(self, i):
        """-> (owner, name, desc, is_interface_ref)"""
        e = self.cp[i]
        n, d = self.name_type(e[2])
        return self.class_name(e[1]), n, d, e[0] == 11

    def method_handle(self, i):
        """-> (ref_kind name, owner, name, desc, is_interface)"""
        e = self.cp[i]
        o, n, d, itf = self.member_ref(e[2])
        return REF_KINDS[e[1]], o, n, d, itf

    def indy(self, i):
        """-> (bootstrap index, name, desc)"""
        e = self.cp[i]
        n, d = self.name_type(e[2])
        return e[1], n, d


def walk(code):
    """yield (pc, opcode, operand bytes start) for every instruction"""
    pc = 0
    n = len(code)
    while pc < n:
        op = code[pc]
        if op == 0xaa:  # tableswitch
            p = (pc + 4) & ~3
            lo, hi = struct.unpack_from('>ii', code, p + 4)
            ln = p + 12 + 4 * (hi - lo + 1) - pc
        elif op == 0xab:  # lookupswitch
            p = (pc + 4) & ~3
            np_ = struct.unpack_from('>i', code, p + 4)[0]
            ln = p + 8 + 8 * np_ - pc
        elif op == 0xc4:  # wide
            ln = 6 if code[pc + 1] == 0x84 else 4
        else:
            ln = OPLEN[op]
        yield pc, op
        pc += ln


def u2at(code, p):
    return (code[p] << 8) | code[p + 1]
