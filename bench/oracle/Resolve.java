// JVM method resolution helper for build_oracle.py (JDK 17, single-file source program).
// Usage: java -cp CLASSES_DIR Resolve.java < queries > answers
// Query line:  owner<TAB>name<TAB>desc<TAB>isInterfaceRef(0|1)   (owner = binary name, or array descriptor)
// Answer line: declaring class binary name, or "?" when the class/method cannot be found.
// Resolution follows JVMS 5.4.3.3 (class methods) / 5.4.3.4 (interface methods):
// class chain first, then Object (interface refs), then the maximally-specific superinterface methods.
import java.io.*;
import java.lang.invoke.MethodType;
import java.lang.reflect.*;
import java.util.*;

public class Resolve {
    static ClassLoader loader;

    static String desc(Method m) {
        return MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString();
    }

    static final Map<Class<?>, Method[]> cache = new HashMap<>();

    static Method[] declared(Class<?> c) {
        return cache.computeIfAbsent(c, k -> {
            try {
                return k.getDeclaredMethods();
            } catch (Throwable t) {
                return new Method[0];
            }
        });
    }

    static Method find(Class<?> c, String name, String d) {
        for (Method m : declared(c)) {
            if (!m.getName().equals(name)) continue;
            if (desc(m).equals(d)) return m;
        }
        // signature-polymorphic methods (MethodHandle.invoke*, VarHandle.get/set...)
        if (c == java.lang.invoke.MethodHandle.class || c == java.lang.invoke.VarHandle.class) {
            for (Method m : declared(c)) {
                if (m.getName().equals(name) && Modifier.isNative(m.getModifiers()) && m.isVarArgs()) return m;
            }
        }
        return null;
    }

    static void allSuperInterfaces(Class<?> c, LinkedHashSet<Class<?>> out) {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            Deque<Class<?>> q = new ArrayDeque<>(Arrays.asList(k.getInterfaces()));
            while (!q.isEmpty()) {
                Class<?> i = q.poll();
                if (out.add(i)) q.addAll(Arrays.asList(i.getInterfaces()));
            }
        }
    }

    static Class<?> maxSpecific(Class<?> c, String name, String d) {
        LinkedHashSet<Class<?>> itfs = new LinkedHashSet<>();
        allSuperInterfaces(c, itfs);
        List<Class<?>> cands = new ArrayList<>();
        Map<Class<?>, Method> ms = new HashMap<>();
        for (Class<?> i : itfs) {
            Method m = find(i, name, d);
            if (m != null && !Modifier.isPrivate(m.getModifiers()) && !Modifier.isStatic(m.getModifiers())) {
                cands.add(i);
                ms.put(i, m);
            }
        }
        List<Class<?>> max = new ArrayList<>();
        for (Class<?> i : cands) {
            boolean dominated = false;
            for (Class<?> j : cands) if (j != i && i.isAssignableFrom(j)) dominated = true;
            if (!dominated) max.add(i);
        }
        List<Class<?>> concrete = new ArrayList<>();
        for (Class<?> i : max) if (!Modifier.isAbstract(ms.get(i).getModifiers())) concrete.add(i);
        if (concrete.size() == 1) return concrete.get(0);
        if (!max.isEmpty()) return max.get(0);
        if (!cands.isEmpty()) return cands.get(0);
        return null;
    }

    static String resolve(String owner, String name, String d, boolean itf) throws Exception {
        if (owner.startsWith("[")) {
            Method m = find(Object.class, name, d);
            return m != null ? "java.lang.Object" : "?";
        }
        Class<?> c;
        try {
            c = Class.forName(owner, false, loader);
        } catch (Throwable t) {
            return "?";
        }
        if (name.equals("<init>") || name.equals("<clinit>")) return c.getName();
        if (!c.isInterface()) {
            for (Class<?> k = c; k != null; k = k.getSuperclass()) {
                if (find(k, name, d) != null) return k.getName();
            }
        } else {
            if (find(c, name, d) != null) return c.getName();
            Method m = find(Object.class, name, d);
            if (m != null && Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers())) return "java.lang.Object";
        }
        Class<?> r = maxSpecific(c, name, d);
        return r != null ? r.getName() : "?";
    }

    public static void main(String[] args) throws Exception {
        loader = Resolve.class.getClassLoader();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        PrintStream out = new PrintStream(new BufferedOutputStream(System.out), false, "UTF-8");
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isEmpty()) continue;
            String[] p = line.split("\t");
            out.println(resolve(p[0], p[1], p[2], p.length > 3 && p[3].equals("1")));
        }
        out.flush();
    }
}
