//! The README's command table and deploy/ follow the binary: every subcommand has a row, and the
//! `docgen serve` and MCP HTTP services (compose and systemd) run command lines the binary
//! accepts, with their files documented in deploy/README.md.

mod support;
use std::path::Path;
use support::codemap;

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

#[test]
fn the_command_table_has_a_row_per_subcommand() {
    let help = codemap().arg("--help").output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(
        commands.contains(&"docgen") && commands.contains(&"mcp"),
        "{help}"
    );
    let readme = read("README.md");
    let rows: Vec<&str> = readme
        .lines()
        .filter(|l| l.starts_with("| `codemap "))
        .collect();
    for c in &commands {
        let row = format!("| `codemap {c}");
        assert!(
            rows.iter().any(|r| r.starts_with(&row)),
            "README has no row for {c}"
        );
    }
    for row in ["| `codemap docgen serve --config", "| `codemap mcp --http"] {
        assert!(
            rows.iter().any(|r| r.starts_with(row)),
            "README has no row {row}"
        );
    }
}

/// Runs a service's command line with its config file swapped for a missing one: the binary
/// must get as far as reading the config (so the flags parse), and name it.
fn assert_runs(args: &[String], config: &str, tmp: &Path) {
    let missing = tmp.join("missing.toml");
    let args: Vec<String> = args
        .iter()
        .map(|a| {
            if a == config {
                missing.display().to_string()
            } else {
                a.clone()
            }
        })
        .collect();
    assert!(
        args.contains(&missing.display().to_string()),
        "{args:?} has no {config}"
    );
    let o = codemap().args(&args).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(!err.contains("Usage:"), "{args:?}: {err}");
    assert!(err.contains("missing.toml"), "{args:?}: {err}");
}

#[test]
fn the_docgen_and_mcp_services_run_valid_command_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let compose = read("deploy/compose.yaml");
    let mut commands = compose
        .lines()
        .filter_map(|l| l.trim().strip_prefix("command: "))
        .filter(|c| c.starts_with('['))
        .map(|c| serde_json::from_str::<Vec<String>>(c).unwrap());
    let docgen = commands
        .find(|c| c[0] == "docgen")
        .expect("a docgen service");
    assert_eq!(docgen[1], "serve");
    assert_runs(&docgen, "/etc/codemap/docgen-serve.toml", tmp.path());
    let mcp = commands.find(|c| c[0] == "mcp").expect("an mcp service");
    assert!(mcp.contains(&"--http".to_string()));
    assert_runs(&mcp, "/etc/codemap/mcp.toml", tmp.path());
    for service in ["docgen", "mcp"] {
        assert!(
            compose.contains(&format!("\n  {service}:\n")),
            "no {service} service"
        );
    }

    for (unit, config) in [
        ("codemap-docgen.service", "/etc/codemap/docgen-serve.toml"),
        ("codemap-mcp.service", "/etc/codemap/mcp.toml"),
    ] {
        let text = read(&format!("deploy/systemd/{unit}"));
        let exec = text
            .lines()
            .find_map(|l| l.strip_prefix("ExecStart=/usr/local/bin/codemap "))
            .unwrap_or_else(|| panic!("{unit} runs codemap"));
        let args: Vec<String> = exec.split_whitespace().map(String::from).collect();
        assert_runs(&args, config, tmp.path());
    }
    let guide = read("deploy/README.md");
    for f in [
        "deploy/docgen-serve.toml",
        "deploy/mcp.toml",
        "deploy/systemd/codemap-docgen.service",
        "deploy/systemd/codemap-mcp.service",
    ] {
        assert!(guide.contains(f), "deploy/README.md does not mention {f}");
    }
}

/// The two-instance variant: its services run command lines the binary accepts, and its files
/// are in deploy/README.md.
#[test]
fn the_network_variant_runs_valid_command_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let compose = read("deploy/compose.network.yaml");
    let commands: Vec<Vec<String>> = compose
        .lines()
        .filter_map(|l| l.trim().strip_prefix("command: "))
        .filter(|c| c.starts_with('['))
        .map(|c| serde_json::from_str::<Vec<String>>(c).unwrap())
        .collect();
    let join = commands
        .iter()
        .find(|c| c.contains(&"--join-network".to_string()))
        .expect("a service joining the network");
    assert_runs(join, "/etc/codemap/bot.toml", tmp.path());
    let bot = commands
        .iter()
        .find(|c| c[0] == "bot" && c.len() == 3)
        .expect("a bot service");
    assert_runs(bot, "/etc/codemap/bot.toml", tmp.path());
    let guide = read("deploy/README.md");
    for f in ["deploy/compose.network.yaml", "deploy/bot.network.toml"] {
        assert!(guide.contains(f), "deploy/README.md does not mention {f}");
    }
}
