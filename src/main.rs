//! `codemap`: the one binary. Parses arguments, sets up logging, dispatches to a command, and turns
//! the outcome into an exit code (0 done, 1 nothing found, 2 error).

mod cli;
mod cmd;

use clap::Parser;
use std::process::ExitCode;

/// mimalloc, for Rust and (below) for tree-sitter's C core: indexing makes many small,
/// short-lived allocations on every thread, and a full index runs about 8% faster than on
/// glibc's malloc (bench/RESULTS.md). Built without transparent huge pages (`no_thp`): with them
/// every first touch of a 2 MiB region has the kernel zero all of it, and a full index spent
/// about 15% of its CPU there (sys time 2.2 s against 0.7 s without).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // SAFETY: first thing in the process: no thread and no tree-sitter object exists yet, so
    // nothing allocated by one allocator can be freed by the other.
    unsafe {
        tree_sitter::set_allocator(Some(tree_sitter::Allocator {
            malloc: libmimalloc_sys::mi_malloc,
            calloc: libmimalloc_sys::mi_calloc,
            realloc: libmimalloc_sys::mi_realloc,
            free: libmimalloc_sys::mi_free,
        }))
    };
    // Two TLS backends end up in rustls; pick one before any client exists (deps.md, gotcha 1).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let args = cli::Cli::parse();
    // Servers must survive a client that hangs up (they get a write error instead).
    if !matches!(
        args.command,
        cli::Command::Watch(..) | cli::Command::Bot(..)
    ) {
        die_quietly_on_closed_pipe();
    }
    logging(&args);
    match cmd::run(args) {
        Ok(cmd::Outcome::Done) => ExitCode::SUCCESS,
        Ok(cmd::Outcome::NothingFound) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// mimalloc's `mi_option_purge_delay` (mimalloc.h; the crate names no constant for it).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// How soon a bot reading a team index gives freed memory back to the system, in milliseconds.
/// mimalloc 3 waits a second; the preload of a Meilisearch repository reads the snapshot from
/// the server through large short-lived buffers, and with the default the bot held 572-589 MB
/// answering 50 questions at once on corpus-1m against 453-479 MB with this (bench/RESULTS.md).
/// Not for embedded indexes: there it saved 10 MB for 15 ms more p95.
const TEAM_PURGE_DELAY_MS: std::ffi::c_long = 10;

/// Sets [`TEAM_PURGE_DELAY_MS`], unless `MIMALLOC_PURGE_DELAY` in the environment decides.
pub(crate) fn team_index_allocator() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets one integer option; mimalloc reads options atomically.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, TEAM_PURGE_DELAY_MS) };
    }
}

/// Log lines on stderr: plain text (colours only when stderr is a terminal, so files, pipes,
/// docker and journald get no escape codes) or one JSON object per line.
fn logging(args: &cli::Cli) {
    use std::io::IsTerminal;
    let filter = tracing_subscriber::EnvFilter::try_from_env("CODEMAP_LOG").unwrap_or_else(|_| {
        // A server's log is its record: what was asked, answered and refused.
        let level = match args.command {
            cli::Command::Bot(..) => "info",
            _ => "warn",
        };
        tracing_subscriber::EnvFilter::new(level)
    });
    let fmt = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match args.global.log_format {
        cli::LogFormat::Json => fmt.json().init(),
        cli::LogFormat::Text => fmt.with_ansi(std::io::stderr().is_terminal()).init(),
    }
}

/// `codemap search x | head` should end quietly when `head` closes the pipe, as Unix tools do,
/// instead of panicking in `print!`. Not for `watch`: a server must survive a client that hangs
/// up mid-reply (it gets an error from `write` instead).
fn die_quietly_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: called once at start-up, before any thread exists; SIG_DFL is a valid handler.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
