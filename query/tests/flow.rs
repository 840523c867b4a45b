//! Flow answers: the chain is the path the work takes, not a run of overloads handing off to
//! each other. A watcher class whose constructors delegate through `this(...)` (each mentioning
//! directories, files and listeners) must not beat the polling path that notices a new file
//! and notifies the listener.

use indexer::pipeline::{self, IndexOptions};
use indexer::store::{EmbeddedIndex, IndexDir};
use query::question::Intent;
use query::{AskOptions, Asker};

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
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("w");
    for (name, text) in [
        ("DirectoryObserver", OBSERVER),
        ("FileState", STATE),
        ("DirectoryMonitor", MONITOR),
        ("DirectoryListener", LISTENER),
    ] {
        let p = root.join(format!("src/main/java/watch/{name}.java"));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let dir = IndexDir::new(root.join(".codemap"));
    pipeline::run(&root, &dir, &IndexOptions::default(), &|_| {}).unwrap();
    let index = EmbeddedIndex::open(&dir).unwrap();
    let asker = Asker::new(&index).unwrap();
    let graph = query::StoredGraph::new(&index);
    let opts = AskOptions {
        graph: Some(&graph),
        ..AskOptions::default()
    };
    let a = asker
        .ask(
            "How does a directory observer notice a new file and end up calling my listener?",
            &opts,
        )
        .unwrap();
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
