//! Flow answers: the chain is the path the work takes, not a run of overloads handing off to
//! each other. A watcher class whose constructors delegate through `this(...)` (each mentioning
//! directories, files and listeners) must not beat the polling path that notices a new file
//! and notifies the listener; and a helper whose name is the question's rarest words must beat a
//! longer chain of decorators that all say "list".

mod support;
use query::question::Intent;
use support::{ask_stored, index_repo};

/// Indexes `files` (type name, source) as package `pkg` and asks `question` with the stored
/// call graph.
fn ask_repo(pkg: &str, files: &[(&str, &str)], question: &str) -> query::Answer {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join(pkg);
    let files: Vec<(String, String)> = (files.iter())
        .map(|(name, text)| (format!("src/main/java/{pkg}/{name}.java"), text.to_string()))
        .collect();
    let dir = index_repo(&root, &files);
    ask_stored(&dir, question)
}

const OBSERVER: &str = r#"package watch;

import java.io.File;
import java.io.FileFilter;
import java.util.ArrayList;
import java.util.List;

/** Keeps the state of the files below a directory and tells listeners what changed. */
public class DirectoryObserver {
    private final List<DirectoryListener> listeners = new ArrayList<>();
    private final FileState root;
    private final FileFilter fileFilter;

    /** An observer of the directory with the given name. */
    public DirectoryObserver(String directoryName) {
        this(new File(directoryName));
    }

    /** An observer of a directory file, every file below it. */
    public DirectoryObserver(File directory) {
        this(directory, null);
    }

    /** An observer of a directory file with a file filter for new files. */
    public DirectoryObserver(File directory, FileFilter fileFilter) {
        this(new FileState(directory), fileFilter);
    }

    /** An observer of a directory state with a filter for new files and listeners. */
    DirectoryObserver(FileState rootEntry, FileFilter fileFilter) {
        this.root = rootEntry;
        this.fileFilter = fileFilter;
    }

    public void addListener(DirectoryListener listener) {
        listeners.add(listener);
    }

    /** Compares the directory with its last state and notifies listeners of new files. */
    public void checkAndNotify() {
        File[] files = root.getFile().listFiles(fileFilter);
        if (files == null) {
            return;
        }
        for (File file : files) {
            if (!root.knows(file)) {
                fireFileCreated(file);
            }
        }
    }

    private void fireFileCreated(File file) {
        root.remember(file);
        for (DirectoryListener listener : listeners) {
            listener.onFileCreate(file);
        }
    }
}
"#;

const STATE: &str = r#"package watch;

import java.io.File;
import java.util.HashSet;
import java.util.Set;

/** The files of a directory seen so far. */
public class FileState {
    private final File file;
    private final Set<String> seen = new HashSet<>();

    public FileState(File file) {
        this.file = file;
    }

    public File getFile() {
        return file;
    }

    public boolean knows(File f) {
        return seen.contains(f.getName());
    }

    public void remember(File f) {
        seen.add(f.getName());
    }
}
"#;

const MONITOR: &str = r#"package watch;

/** Runs observers on a background thread at a fixed interval. */
public class DirectoryMonitor implements Runnable {
    private final DirectoryObserver observer;
    private volatile boolean running = true;

    public DirectoryMonitor(DirectoryObserver observer) {
        this.observer = observer;
    }

    /** Polls the observer until stopped. */
    public void run() {
        while (running) {
            observer.checkAndNotify();
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
"#;

const LISTENER: &str = r#"package watch;

import java.io.File;

/** Told about files that appear in a watched directory. */
public interface DirectoryListener {
    /** A new file was noticed. */
    void onFileCreate(File file);
}
"#;

#[test]
fn a_flow_chain_follows_the_work_not_constructor_overloads() {
    let a = ask_repo(
        "watch",
        &[
            ("DirectoryObserver", OBSERVER),
            ("FileState", STATE),
            ("DirectoryMonitor", MONITOR),
            ("DirectoryListener", LISTENER),
        ],
        "How does a directory observer notice a new file and end up calling my listener?",
    );
    assert_eq!(a.intent, Intent::Flow);
    let chain: Vec<&str> = a.chain.iter().map(|s| s.symbol.as_str()).collect();
    assert!(
        chain.iter().any(|s| s.ends_with("checkAndNotify")),
        "the polling path is the chain: {chain:?}"
    );
    let constructors = chain
        .iter()
        .filter(|s| s.ends_with("DirectoryObserver.DirectoryObserver"))
        .count();
    assert!(
        constructors <= 1,
        "constructor overloads are not the flow: {chain:?}"
    );
}

/// A helper whose name is the question's rarest words, beside a longer chain of list
/// decorators whose every step says "list": the chain that explains the question is the flow.
const LIST_TOOLS: &str = r#"package lists;

import java.util.ArrayList;
import java.util.List;

/** Helpers for lists. */
public final class ListTools {
    /** Returns the longest common subsequence of two lists. */
    public static <E> List<E> longestCommonSubsequence(List<E> a, List<E> b) {
        SequenceComparator<E> comparator = new SequenceComparator<>(a, b);
        EditScript<E> script = comparator.getScript();
        List<E> result = new ArrayList<>();
        script.keepCommon(result);
        return result;
    }

    /** A read-only view of a list: the list cannot be changed through it. */
    public static <E> List<E> unmodifiableList(List<E> list) {
        return ReadOnlyList.readOnlyList(list);
    }
}
"#;

const COMPARATOR: &str = r#"package lists;

import java.util.List;

/** Compares two sequences with Myers' difference algorithm. */
public class SequenceComparator<E> {
    private final List<E> left;
    private final List<E> right;

    public SequenceComparator(List<E> left, List<E> right) {
        this.left = left;
        this.right = right;
    }

    /** The edit script that turns the left sequence into the right one. */
    public EditScript<E> getScript() {
        EditScript<E> script = new EditScript<>();
        buildScript(0, left.size(), 0, right.size(), script);
        return script;
    }

    private void buildScript(int start1, int end1, int start2, int end2, EditScript<E> script) {
        int middle = middleSnake(start1, end1, start2, end2);
        if (middle < 0) {
            return;
        }
        script.keep(left.get(middle));
    }

    /** The middle snake of the difference algorithm. */
    private int middleSnake(int start1, int end1, int start2, int end2) {
        for (int i = start1; i < end1; i++) {
            if (left.get(i).equals(right.get(Math.min(i, end2 - 1)))) {
                return i;
            }
        }
        return -1;
    }
}
"#;

const SCRIPT: &str = r#"package lists;

import java.util.ArrayList;
import java.util.List;

/** The commands that turn one sequence into another. */
public class EditScript<E> {
    private final List<E> kept = new ArrayList<>();

    void keep(E e) {
        kept.add(e);
    }

    /** Adds the kept elements, the common subsequence, to a result list. */
    public void keepCommon(List<E> result) {
        result.addAll(kept);
    }
}
"#;

const SAFE_LIST: &str = r#"package lists;

import java.util.ArrayList;
import java.util.List;

/** A list that hands out read-only sub-lists of its list. */
public class SafeList<E> {
    private final List<E> list = new ArrayList<>();

    /** A read-only sub-list of this list, from one index of the list to another. */
    public List<E> subList(int from, int to) {
        List<E> sub = list.subList(from, to);
        return ListTools.unmodifiableList(sub);
    }
}
"#;

const READ_ONLY: &str = r#"package lists;

import java.util.List;

/** Decorates a list so that the list cannot be changed; the result list reads the list. */
public final class ReadOnlyList<E> extends ListDecorator<E> {
    /** A read-only list of the given list. */
    public static <E> List<E> readOnlyList(List<E> list) {
        return new ReadOnlyList<>(list);
    }

    /** Wraps the list; the list must not be null. */
    ReadOnlyList(List<E> list) {
        super(list);
    }
}
"#;

const DECORATORS: &str = r#"package lists;

import java.util.AbstractList;
import java.util.Collection;
import java.util.List;

/** Decorates another list: every list method goes to the decorated list. */
public abstract class ListDecorator<E> extends CollectionDecorator<E> {
    /** Wraps the list, keeping the list as the collection. */
    protected ListDecorator(List<E> list) {
        super(list);
    }
}
"#;

const COLLECTION_DECORATOR: &str = r#"package lists;

import java.util.Collection;

/** Decorates another collection (a list or a set); the result list or set reads it. */
public abstract class CollectionDecorator<E> {
    private final Collection<E> collection;

    /** Wraps the collection, a list in most cases; the list must not be null. */
    protected CollectionDecorator(Collection<E> collection) {
        if (collection == null) {
            throw new NullPointerException("list");
        }
        this.collection = collection;
    }
}
"#;

#[test]
fn the_chain_whose_names_explain_the_question_beats_a_longer_chain_of_common_words() {
    let a = ask_repo(
        "lists",
        &[
            ("ListTools", LIST_TOOLS),
            ("SequenceComparator", COMPARATOR),
            ("EditScript", SCRIPT),
            ("SafeList", SAFE_LIST),
            ("ReadOnlyList", READ_ONLY),
            ("ListDecorator", DECORATORS),
            ("CollectionDecorator", COLLECTION_DECORATOR),
        ],
        "How does the longest-common-subsequence helper for lists compute its result list? \
         Trace it from the utility method into the list comparison and back out to the list.",
    );
    assert_eq!(a.intent, Intent::Flow);
    let chain: Vec<&str> = a.chain.iter().map(|s| s.symbol.as_str()).collect();
    assert!(
        chain
            .first()
            .is_some_and(|s| s.ends_with("ListTools.longestCommonSubsequence")),
        "the chain starts at the helper the question describes: {chain:?}"
    );
    assert!(
        !chain.iter().any(|s| s.ends_with("Decorator")),
        "list decorators are not this flow: {chain:?}"
    );
}
